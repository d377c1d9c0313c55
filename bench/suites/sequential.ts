import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { sql } from 'kysely';
import { load, startBenchService, type BenchService, type LoadResult, type Measurement } from '../harness';

const SECONDS = 4;
/** The three sides run in alternation, best of this many rounds each (see `alternate` in the harness). */
const ROUNDS = 3;
/** Products in each tenant's catalog before the run: a warehouse's catalog, not an empty table. */
const CATALOG = 20_000;

let counter = 0;
/** What an ERP connector's sync sends, one product per request, and at how many connections. */
const WORKLOADS = [
  {
    name: 'POST /products (new products)',
    connections: [1, 32],
    body: (run: string) => {
      counter++;
      return JSON.stringify({ externalId: `${run}-${counter}`, sku: `${run}-S${counter}`, name: `Sequential product ${counter}`, stock: counter % 50, price: 9.99 });
    },
  },
  {
    name: 'POST /products (stock of a catalog product)',
    connections: [1],
    body: () => {
      counter++;
      const i = (counter % CATALOG) + 1;
      return JSON.stringify({ externalId: `catalog-${i}`, sku: `CATALOG-${i}`, name: `Catalog product ${i}`, stock: counter % 97, price: 9.99 });
    },
  },
] as const;

/**
 * The hand-written route of issue 16: Fastify and one autocommitted `pg` upsert on its own pool, on
 * the service's own schema (same table, same triggers); no key, validation, limits or transaction.
 */
export async function handWritten(service: BenchService): Promise<{ url: string; close(): Promise<void> }> {
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(service.database.db);
  const { id: tenantId } = await service.tenant();
  await fillCatalog(service, tenantId);
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: `-c search_path=${rows[0]!.schema}` });
  const app = Fastify();
  app.post('/products', async (request, reply) => {
    const p = request.body as { externalId: string; sku: string; name: string; stock: number; price: number };
    const result = await pool.query<{ id: string; created: boolean }>(
      `INSERT INTO products (tenant_id, external_id, sku, name, stock, price) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id, external_id) DO UPDATE SET sku = excluded.sku, name = excluded.name, stock = excluded.stock, price = excluded.price, updated_at = now()
       RETURNING id, xmax = 0 AS created`,
      [tenantId, p.externalId, p.sku, p.name, p.stock, p.price],
    );
    const row = result.rows[0]!;
    return reply.status(row.created ? 201 : 200).send({ data: { id: row.id } });
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `${url}/products`,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/**
 * Issue 16, "one request at a time": `POST /products` with a fresh product each request, one
 * connection (an ERP connector sending one request after another) and 32, and a stock change of a
 * catalog product each request (an inventory sync, one connection), against the
 * hand-written route above, the service without Redis and the service with REDIS_URL (rate limits
 * in Redis). The three run in alternation, best of `ROUNDS`. PostgreSQL only: on the embedded
 * database a round trip costs nothing, which is what this measures.
 */
export default async function sequential(): Promise<Measurement[]> {
  if (!process.env.DATABASE_URL) {
    console.log('  sequential: needs DATABASE_URL (PostgreSQL); skipped');
    return [];
  }
  const services: BenchService[] = [];
  let bare: Awaited<ReturnType<typeof handWritten>> | undefined;
  try {
    const plain = await startBenchService({ redisUrl: undefined });
    services.push(plain);
    bare = await handWritten(plain);
    const sides: { name: string; url: string; headers: Record<string, string> }[] = [
      { name: 'hand-written', url: bare.url, headers: { 'content-type': 'application/json' } },
      await serviceSide('without Redis', plain),
    ];
    if (process.env.REDIS_URL) {
      const redis = await startBenchService({ redisUrl: process.env.REDIS_URL, redisKeyPrefix: `bench-${randomUUID()}:` });
      services.push(redis);
      sides.push(await serviceSide('with Redis', redis));
    } else {
      console.log('  sequential: REDIS_URL unset; the Redis side is skipped');
    }
    // Warm up each side (connections, prepared statements, JIT of the JavaScript).
    for (const side of sides) await drive(side, WORKLOADS[0].body, 4, 1, 'warm');

    const measurements: Measurement[] = [];
    for (const workload of WORKLOADS) {
      for (const connections of workload.connections) {
        const best = new Map<string, LoadResult>();
        for (let round = 0; round < ROUNDS; round++) {
          for (const side of sides) {
            const result = await drive(side, workload.body, connections, SECONDS, `${connections}r${round}`);
            if (result.non2xx > 0) console.warn(`warning: ${side.name}, ${connections} connections: ${result.non2xx} requests failed`);
            const previous = best.get(side.name);
            if (!previous || result.requestsPerSecond > previous.requestsPerSecond) best.set(side.name, result);
          }
        }
        measurements.push(...compare(workload.name, connections, best));
      }
    }
    return measurements;
  } finally {
    await bare?.close();
    for (const service of services) await service.close();
  }
}

/** The measurements of one workload at one connection count, from each side's best round. */
function compare(workload: string, connections: number, best: Map<string, LoadResult>): Measurement[] {
  const hand = best.get('hand-written')!;
  const plain = best.get('without Redis')!;
  const redis = best.get('with Redis');
  const latencies = (r: LoadResult) => `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`;
  console.log(
    `  ${workload}, ${connections} connection(s): ${[...best].map(([name, r]) => `${name} ${Math.round(r.requestsPerSecond)} req/s (${latencies(r)})`).join('; ')}`,
  );
  // The issue's targets are for new products, one request at a time.
  const targeted = connections === 1 && workload === WORKLOADS[0].name;
  const at = `${workload}, ${connections === 1 ? 'one request at a time' : `${connections} connections`}`;
  const measurements: Measurement[] = [
    {
      name: `${at}: service without Redis vs hand-written route (${latencies(plain)} vs ${latencies(hand)})`,
      unit: 'req/s',
      service: plain.requestsPerSecond,
      baseline: hand.requestsPerSecond,
      higherIsBetter: true,
      ...(targeted ? { target: 'within 1.5× (≥ 67%)' } : {}),
    },
  ];
  if (redis) {
    measurements.push(
      {
        name: `${at}: service with Redis vs without (${latencies(redis)})`,
        unit: 'req/s',
        service: redis.requestsPerSecond,
        baseline: plain.requestsPerSecond,
        higherIsBetter: true,
        ...(targeted ? { target: 'within 1.3× (≥ 77%)' } : {}),
      },
      { name: `${at}: service with Redis vs hand-written route`, unit: 'req/s', service: redis.requestsPerSecond, baseline: hand.requestsPerSecond, higherIsBetter: true },
    );
  }
  return measurements;
}

/**
 * Gives the tenant a catalog of `CATALOG` products, analyzed as autovacuum leaves a table in use.
 * On a table that grows from empty, the first minute plans statements on statistics of an empty
 * table (docs/operations.md), which is not what one request at a time costs.
 */
async function fillCatalog(service: BenchService, tenantId: string): Promise<void> {
  const { db } = service.database;
  await sql`INSERT INTO products (tenant_id, external_id, sku, name, stock, price)
    SELECT ${tenantId}, 'catalog-' || i, 'CATALOG-' || i, 'Catalog product ' || i, i % 50, 9.99 FROM generate_series(1, ${CATALOG}) AS i`.execute(db);
  await sql`VACUUM ANALYZE products`.execute(db);
}

async function serviceSide(name: string, service: BenchService) {
  const { key, id } = await service.tenant();
  await fillCatalog(service, id);
  return { name, url: `${service.url}/api/v1/public/products`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } };
}

function drive(side: { url: string; headers: Record<string, string> }, body: (run: string) => string, connections: number, durationSeconds: number, run: string): Promise<LoadResult> {
  return load({ url: side.url, method: 'POST', headers: side.headers, body: () => body(run), connections, durationSeconds });
}
