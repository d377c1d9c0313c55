import { sql } from 'kysely';
import { purgeOnce } from '../../src/housekeeping/retention';
import { alternate, load, startBenchService, type LoadResult, type Measurement } from '../harness';

const SECONDS = 5;
const ROUNDS = 5;
const RETENTION_DAYS = 30;
/** Old delivered attempts (each with its event) to purge: a million on PostgreSQL, fewer on the embedded database. */
const OLD_DELIVERIES = process.env.DATABASE_URL ? 1_000_000 : 100_000;
const SEED_CHUNK = 100_000;

/**
 * Retention's cost to writes: POST /products at 32 clients while a retention pass purges a backlog
 * of old delivered attempts and their events, against the same writes with no pass running, in
 * alternation (the pass is stopped between its rounds and picks up where it left off).
 */
export default async function retention(): Promise<Measurement[]> {
  const service = await startBenchService({ retentionDays: RETENTION_DAYS });
  const { db } = service.database;
  try {
    const writer = await service.tenant();
    const history = await service.tenant();
    const registered = await fetch(`${service.url}/api/v1/public/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${history.key}` },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/pickport', events: ['product.stock_updated'], secret: 'bench-secret-0123456789abcdef0123456789' }),
    });
    if (registered.status !== 201) throw new Error(`registering the bench webhook failed: ${await registered.text()}`);
    const hook = (await registered.json()) as { data: { id: string } };

    for (let from = 0; from < OLD_DELIVERIES; from += SEED_CHUNK) {
      await sql`
        WITH old AS (
          INSERT INTO events (tenant_id, event, data, occurred_at)
          SELECT ${history.id}, 'product.stock_updated', '{"sku":"S"}', now() - interval '90 days' + g * interval '1 second'
          FROM generate_series(${from}::integer, ${from + SEED_CHUNK - 1}::integer) g
          RETURNING id, occurred_at
        )
        INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, status, status_code, duration_ms, attempted_at, created_at)
        SELECT ${history.id}, ${hook.data.id}, id, 'product.stock_updated', 'delivered', 200, 12, occurred_at, occurred_at FROM old
      `.execute(db);
    }
    await sql`VACUUM ANALYZE webhook_deliveries`.execute(db);
    await sql`VACUUM ANALYZE events`.execute(db);
    console.log(`seeded ${OLD_DELIVERIES.toLocaleString('en-US')} old delivered attempts and their events`);

    let counter = 0;
    const writes = () =>
      load({
        url: `${service.url}/api/v1/public/products`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${writer.key}` },
        body: () => {
          counter++;
          return JSON.stringify({ externalId: `r-${counter}`, sku: `R-${counter}`, name: `Product ${counter}`, stock: counter % 50, price: 9.99 });
        },
        connections: 32,
        durationSeconds: SECONDS,
      });

    let purged = 0;
    const whilePurging = async (): Promise<LoadResult> => {
      const stop = new AbortController();
      let finished = false;
      const pass = purgeOnce(db, { retentionDays: RETENTION_DAYS }, new Date(), { signal: stop.signal }).then((counts) => {
        finished = true;
        purged += counts.deliveries + counts.events;
      });
      const result = await writes();
      if (finished) console.warn('warning: the backlog ran out before the round ended; seed more');
      stop.abort();
      await pass;
      return result;
    };
    const paired = await alternate(ROUNDS, writes, whilePurging);
    console.log(`purged ${purged.toLocaleString('en-US')} rows (attempts and events) during the measured rounds`);

    return [
      {
        name: `POST /products while purging ${OLD_DELIVERIES.toLocaleString('en-US')} old deliveries, 32 connections`,
        unit: 'req/s',
        service: paired.service.requestsPerSecond,
        baseline: paired.baseline.requestsPerSecond,
        higherIsBetter: true,
        target: '≥ 90%',
      },
      { name: 'POST /products p99 latency while purging', unit: 'ms', service: paired.service.p99Ms, baseline: paired.baseline.p99Ms, higherIsBetter: false },
    ];
  } finally {
    await service.close();
  }
}
