import { sql } from 'kysely';
import { checkedPeriod } from '../../src/http/period';
import { loadCharts, loadHeatMap } from '../../src/insight/insight';
import { rollUpInsight } from '../../src/insight/rollup';
import type { Bucket } from '../../src/insight/schemas';
import { percentile, startBenchService, type Measurement } from '../harness';

/** Orders of the seeded history: a million on PostgreSQL, fewer on the embedded database. */
const ORDERS = process.env.DATABASE_URL ? 1_000_000 : 200_000;
const HISTORY_DAYS = 90;
const ORDERS_PER_WAVE = 10;
const LINES_PER_ORDER = 2;
const PICKERS = 20;
const AISLES = 20;
const POSITIONS = 20;
const SEED_CHUNK = 100_000;
const RUNS = 20;
const DAY_MS = 24 * 60 * 60_000;

/**
 * The Insight screen's reads over a history of ORDERS orders spread over 90 days (each picked in a
 * wave of 10 by one of 20 pickers, packed and dispatched, two lines each at 400 locations, one
 * line in 50 short), seeded by SQL alone. Each read's p95 of 20 against the p95 of a plain count
 * of the same period's orders by their index: first as an upgraded install answers them before
 * its rollup ran (from the rows), then after the product's rollup pass caught up, timed.
 */
export default async function insight(): Promise<Measurement[]> {
  const service = await startBenchService();
  const { db } = service.database;
  try {
    const tenant = await service.tenant();
    const started = performance.now();
    await seed(db, tenant.id);
    const seedSeconds = (performance.now() - started) / 1000;
    console.log(`seeded ${ORDERS.toLocaleString('en-US')} orders with their waves, lines and events in ${seedSeconds.toFixed(0)} s`);

    const now = Date.now();
    const ending = (days: number) => checkedPeriod({ from: new Date(now - days * DAY_MS).toISOString(), to: new Date(now).toISOString() }, days);
    const p95 = async (fn: () => Promise<unknown>) => {
      const times: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const start = performance.now();
        await fn();
        // The first run warms the caches and plans up.
        if (run > 0) times.push(performance.now() - start);
      }
      return percentile(times.sort((a, b) => a - b), 0.95);
    };
    const countOrders = (days: number) => {
      const { from, to } = ending(days);
      return () =>
        db.selectFrom('orders').select((eb) => eb.fn.countAll().as('n')).where('tenant_id', '=', tenant.id).where('created_at', '>=', from).where('created_at', '<', to).execute();
    };
    const measure = async (name: string, days: number, read: () => Promise<unknown>): Promise<Measurement> => ({
      name: `${name}, p95 of ${RUNS}`,
      unit: 'ms',
      service: await p95(read),
      baseline: await p95(countOrders(days)),
      higherIsBetter: false,
      target: 'under 200 ms',
    });
    const charts = (days: number, bucket: Bucket) => () => loadCharts(db, tenant.id, ending(days), bucket);
    const screenReads = async (state: string) => [
      await measure(`${state}: heat map, 7 days`, 7, () => loadHeatMap(db, tenant.id, ending(7))),
      await measure(`${state}: charts, 1 day by the hour`, 1, charts(1, 'hour')),
      await measure(`${state}: charts, 7 days by the hour`, 7, charts(7, 'hour')),
      await measure(`${state}: charts, 7 days by the day`, 7, charts(7, 'day')),
      await measure(`${state}: heat map, 92 days (the longest)`, 92, () => loadHeatMap(db, tenant.id, ending(92))),
      await measure(`${state}: charts, 92 days by the day (the longest)`, 92, charts(92, 'day')),
    ];

    // As an upgraded install: the history is there, the rollup has never run.
    const live = await screenReads('before the rollup caught up');
    const catchingUp = performance.now();
    const { hoursRolled } = await rollUpInsight(db);
    const catchUpSeconds = (performance.now() - catchingUp) / 1000;
    console.log(`the rollup caught up with ${hoursRolled} hours in ${catchUpSeconds.toFixed(1)} s`);
    const steady = performance.now();
    await rollUpInsight(db);
    console.log(`a pass with nothing to roll up took ${(performance.now() - steady).toFixed(0)} ms`);
    return [
      ...live,
      { name: `rollup catch-up of ${hoursRolled} hours (baseline: the seeding)`, unit: 's', service: catchUpSeconds, baseline: seedSeconds, higherIsBetter: false },
      ...(await screenReads('after')),
    ];
  } finally {
    await service.close();
  }
}

type Db = Awaited<ReturnType<typeof startBenchService>>['database']['db'];

/** The history, chunk by chunk: ids derived from the series number, so each table joins the one before. */
async function seed(db: Db, tenantId: string): Promise<void> {
  await sql`
    INSERT INTO floor_layouts (tenant_id, aisles, positions_per_aisle, aisle_spacing, position_spacing, cross_aisle_offset, depot_aisle)
    VALUES (${tenantId}, ${AISLES}, ${POSITIONS}, 3, 1, 2, 1)
  `.execute(db);
  await sql`
    INSERT INTO warehouse_locations (tenant_id, code, aisle, position)
    SELECT ${tenantId}, 'L-' || a || '-' || p, a, p FROM generate_series(1, ${AISLES}::integer) a, generate_series(1, ${POSITIONS}::integer) p
  `.execute(db);
  await sql`
    INSERT INTO staff_users (tenant_id, id, username, name, role, pin_hash)
    SELECT ${tenantId}, md5('picker' || n)::uuid, 'picker-' || n, 'Picker ' || n, 'picker', 'x' FROM generate_series(0, ${PICKERS - 1}::integer) n
  `.execute(db);
  // Order g is received at `start + g * step`, picked 40 minutes later, packed at 2 hours, dispatched at 3.
  const step = `${(HISTORY_DAYS * 86_400) / ORDERS} seconds`;
  for (let from = 0; from < ORDERS; from += SEED_CHUNK) {
    const to = from + SEED_CHUNK - 1;
    const received = sql`now() - interval '${sql.raw(String(HISTORY_DAYS))} days' + g * interval '${sql.raw(step)}'`;
    await sql`
      INSERT INTO orders (tenant_id, id, external_id, order_number, status, created_at, updated_at, picked_at, dispatched_at)
      SELECT ${tenantId}, md5('o' || g)::uuid, 'B-' || g, 'N-' || g, 'DISPATCHED', ${received}, ${received} + interval '3 hours',
        ${received} + interval '40 minutes', ${received} + interval '3 hours'
      FROM generate_series(${from}::integer, ${to}::integer) g
    `.execute(db);
    await sql`
      INSERT INTO waves (tenant_id, id, number, status, policy, distance, s_shape_distance, picker_id, created_at, updated_at)
      SELECT ${tenantId}, md5('w' || w)::uuid, w + 1, 'COMPLETED', 'optimal', 80 + w % 40, 110 + w % 50, md5('picker' || w % ${PICKERS}::integer)::uuid,
        ${sql`now() - interval '${sql.raw(String(HISTORY_DAYS))} days' + w * ${ORDERS_PER_WAVE}::integer * interval '${sql.raw(step)}'`} + interval '30 minutes',
        ${sql`now() - interval '${sql.raw(String(HISTORY_DAYS))} days' + w * ${ORDERS_PER_WAVE}::integer * interval '${sql.raw(step)}'`} + interval '50 minutes'
      FROM generate_series(${from / ORDERS_PER_WAVE}::integer, ${(to + 1) / ORDERS_PER_WAVE - 1}::integer) w
    `.execute(db);
    await sql`
      INSERT INTO wave_orders (tenant_id, wave_id, order_id, tote)
      SELECT ${tenantId}, md5('w' || g / ${ORDERS_PER_WAVE}::integer)::uuid, md5('o' || g)::uuid, g % ${ORDERS_PER_WAVE}::integer + 1
      FROM generate_series(${from}::integer, ${to}::integer) g
    `.execute(db);
    await sql`
      INSERT INTO wave_lines (tenant_id, wave_id, order_id, item_position, product_external_id, quantity, walk, stop, location_code, aisle, position,
        picked_quantity, reason, picked_at)
      SELECT ${tenantId}, md5('w' || g / ${ORDERS_PER_WAVE}::integer)::uuid, md5('o' || g)::uuid, i, 'P-' || loc, 2, i, i,
        'L-' || (loc / ${POSITIONS}::integer + 1) || '-' || (loc % ${POSITIONS}::integer + 1), loc / ${POSITIONS}::integer + 1, loc % ${POSITIONS}::integer + 1,
        CASE WHEN (g + i) % 50 = 0 THEN 1 ELSE 2 END, CASE WHEN (g + i) % 100 = 0 THEN 'damaged' WHEN (g + i) % 50 = 0 THEN 'not_found' END,
        ${received} + interval '35 minutes'
      FROM generate_series(${from}::integer, ${to}::integer) g
      CROSS JOIN generate_series(1, ${LINES_PER_ORDER}::integer) i
      CROSS JOIN LATERAL (SELECT (g * 7 + i * 131) % ${AISLES * POSITIONS}::integer AS loc) l
    `.execute(db);
    await sql`
      INSERT INTO events (tenant_id, event, data, occurred_at)
      SELECT ${tenantId}, 'order.status_changed', json_build_object('externalId', 'B-' || g, 'status', s.status)::jsonb, ${received} + s.after
      FROM generate_series(${from}::integer, ${to}::integer) g
      CROSS JOIN (VALUES ('PACKED', interval '2 hours'), ('DISPATCHED', interval '3 hours')) AS s(status, after)
    `.execute(db);
  }
  for (const table of ['orders', 'waves', 'wave_orders', 'wave_lines', 'events']) await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db);
}
