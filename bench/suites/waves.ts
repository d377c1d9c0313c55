import Fastify from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../src/db';
import { greedyCarts, planCarts, type PoolOrder } from '../../src/floor/plan/cart-plan';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { batchingInstance, batchingLowerBound, CAPACITIES, DEMANDS, HW_LAYOUT, optimalBatchingDistance } from '../batching-instances';
import { mulberry32 } from '../../src/floor/plan/random';
import { startBenchService, type Measurement } from '../harness';

/** PENDING orders to choose from; the 240 waves measured take 1,920 of them, so the pool of 500 stays full. */
const ORDERS = 5_000;
const PRODUCTS = 2_000;
/** One product in ten has no location code: its lines are unplaced. */
const LOCATIONS = 1_000;
const LAYOUT = { aisles: 20, positionsPerAisle: 50, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1 };
const WAVES_PER_ROUND = 40;
const ROUNDS = 3;

/** 5,000 PENDING orders of 1 to 4 lines over a placed catalog, with mixed priorities and due dates. */
async function seed(db: Db, tenantId: string): Promise<void> {
  await sql`
    INSERT INTO products (tenant_id, external_id, sku, name, stock, location_code)
    SELECT ${tenantId}, 'P' || g, 'S' || g, 'Product ' || g, 1000000000, CASE WHEN g % 10 = 0 THEN NULL ELSE 'L' || (g % ${LOCATIONS}) END
    FROM generate_series(0, ${PRODUCTS - 1}) AS g`.execute(db);
  await sql`
    INSERT INTO orders (tenant_id, external_id, order_number, status, issues, has_issues, priority, due_date)
    SELECT ${tenantId}, 'O' || g, 'N' || g, 'PENDING', '[]', false, (ARRAY['low', 'medium', 'high', 'urgent'])[1 + g % 4],
      CASE WHEN g % 3 = 0 THEN NULL ELSE now() + (g % 97) * interval '1 hour' END
    FROM generate_series(0, ${ORDERS - 1}) AS g`.execute(db);
  await sql`
    INSERT INTO order_items (tenant_id, order_id, position, product_external_id, product_sku, quantity, product_id)
    SELECT o.tenant_id, o.id, k, p.external_id, p.sku, 1 + k % 2, p.id
    FROM orders o
    CROSS JOIN LATERAL generate_series(0, abs(hashtext(o.external_id)) % 4) AS k
    JOIN products p ON p.tenant_id = o.tenant_id AND p.external_id = 'P' || ((abs(hashtext(o.external_id)) + k * 397) % ${PRODUCTS})
    WHERE o.tenant_id = ${tenantId}`.execute(db);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** The latency of POST /waves, then how well and how fast carts are planned for a whole pool. */
export default async function waves(): Promise<Measurement[]> {
  return [...(await waveLatency()), ...cartPlanQuality(), ...cartPlanTime()];
}

/**
 * POST /waves choosing from 5,000 PENDING orders (8 orders, 40 units, optimal routes), one
 * supervisor at a time, each wave kept (as pickers take carts one after another: the plan is made,
 * then kept while carts are taken from it, and made again once half of it is gone), against a bare Fastify route that only reads the candidate pool: the 500
 * most urgent PENDING orders and where their lines are (the read a wave starts with).
 */
async function waveLatency(): Promise<Measurement[]> {
  const service = await startBenchService();
  const db = service.database.db;
  const tenant = await service.tenant();
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const floorUrl = `${service.url}/api/v1/warehouse/tenants/${tenant.slug}`;
  const put = (path: string, body: unknown) => fetch(`${floorUrl}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });
  await put('/layout', LAYOUT);
  await put('/locations', {
    locations: Array.from({ length: LOCATIONS }, (_, i) => ({ code: `L${i}`, aisle: 1 + (i % LAYOUT.aisles), position: 1 + (Math.floor(i / LAYOUT.aisles) % LAYOUT.positionsPerAisle) })),
  });
  await seed(db, tenant.id);

  const bare = Fastify();
  bare.get('/pool', async () => {
    const { rows } = await sql`
      SELECT i.order_id, i.position, i.quantity, own.aisle, own.position AS place, s.quantity AS slot_quantity, sl.aisle AS slot_aisle, sl.position AS slot_position
      FROM (
        SELECT id FROM orders WHERE tenant_id = ${tenant.id} AND status = 'PENDING' AND NOT has_issues
        ORDER BY order_urgency(priority), due_date, created_at, id LIMIT 500
      ) AS pool
      JOIN order_items i ON i.tenant_id = ${tenant.id} AND i.order_id = pool.id
      LEFT JOIN products p ON p.tenant_id = ${tenant.id} AND p.id = i.product_id
      LEFT JOIN warehouse_locations own ON own.tenant_id = ${tenant.id} AND own.code = p.location_code AND own.aisle IS NOT NULL
      LEFT JOIN product_slots s ON s.tenant_id = ${tenant.id} AND s.product_id = p.id
      LEFT JOIN warehouse_locations sl ON sl.tenant_id = ${tenant.id} AND sl.code = s.location_code`.execute(db);
    return { lines: rows.length };
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

  const timed = async (request: () => Promise<Response>): Promise<{ ms: number; response: Response }> => {
    const start = performance.now();
    const response = await request();
    return { ms: performance.now() - start, response };
  };
  /** Waves made one after another, each next to a read of the bare pool. */
  const measure = async (): Promise<{ service: number[]; baseline: number[] }> => {
    const times = { service: [] as number[], baseline: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < WAVES_PER_ROUND; i++) {
        const pool = await timed(() => fetch(`${bareUrl}/pool`));
        await pool.response.json();
        times.baseline.push(pool.ms);
        const made = await timed(() => fetch(`${floorUrl}/waves`, { method: 'POST', headers, body: '{}' }));
        const body = (await made.response.json()) as { data: { id: string } };
        if (made.response.status !== 201) throw new Error(`POST /waves answered ${made.response.status}: ${JSON.stringify(body)}`);
        times.service.push(made.ms);
      }
    }
    return times;
  };
  const states: { state: string; times: { service: number[]; baseline: number[] } }[] = [];
  try {
    // As a fresh install meets it (no statistics on the tables the orders just filled), then as
    // autovacuum leaves tables in use (analyzed).
    states.push({ state: 'no statistics', times: await measure() });
    await sql`ANALYZE products, orders, order_items, warehouse_locations`.execute(db);
    states.push({ state: 'analyzed', times: await measure() });
  } finally {
    await bare.close();
    await service.close();
  }
  return states.flatMap(({ state, times }) => {
    const serviceSorted = [...times.service].sort((a, b) => a - b);
    const baseline = [...times.baseline].sort((a, b) => a - b);
    const name = `POST /waves from ${ORDERS.toLocaleString('en-US')} PENDING orders, ${state}`;
    return [
      { name: `${name}, p50`, unit: 'ms', service: percentile(serviceSorted, 50), baseline: percentile(baseline, 50), higherIsBetter: false, target: 'under 100 ms' },
      { name: `${name}, p99`, unit: 'ms', service: percentile(serviceSorted, 99), baseline: percentile(baseline, 99), higherIsBetter: false },
    ];
  });
}

/** Instances of each size per capacity and demand: 2 × 4 capacities × 2 demands = 16. */
const INSTANCES_EACH = 2;

/**
 * Walks of the planned carts on Henn & Wäscher-shaped instances (bench/batching-instances.ts)
 * next to the greedy plan's: on 20-order pools against the exact optimum, on 100-order pools
 * against the greedy plan and a lower bound.
 */
function cartPlanQuality(): Measurement[] {
  const exact: { plan: number; greedy: number }[] = [];
  const large: { plan: number; boundPlan: number; boundGreedy: number }[] = [];
  for (const capacity of CAPACITIES) {
    for (const demand of DEMANDS) {
      for (let copy = 0; copy < INSTANCES_EACH; copy++) {
        const seed = 1_000 * capacity + 100 * DEMANDS.indexOf(demand) + copy;
        const small = batchingInstance(20, demand, seed);
        const optimum = optimalBatchingDistance(HW_LAYOUT, small, capacity);
        const smallPlan = planCarts(HW_LAYOUT, small, { maxOrders: small.length, maxItems: capacity });
        exact.push({ plan: smallPlan.distance / optimum, greedy: smallPlan.greedyDistance / optimum });
        const pool = batchingInstance(100, demand, seed);
        const plan = planCarts(HW_LAYOUT, pool, { maxOrders: pool.length, maxItems: capacity });
        const bound = batchingLowerBound(HW_LAYOUT, pool, capacity);
        large.push({ plan: plan.distance / plan.greedyDistance, boundPlan: plan.distance / bound, boundGreedy: plan.greedyDistance / bound });
      }
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const worst = (values: number[]) => Math.max(...values);
  // Percentages, so that the runner's two decimals show the differences that matter.
  const above = (ratio: number) => 100 * (ratio - 1);
  const percent = (name: string, service: number, baseline: number, target?: string): Measurement => ({ name, unit: '%', service, baseline, higherIsBetter: false, ...(target ? { target } : {}) });
  return [
    percent(`${exact.length} pools of 20 orders: walk above the optimum, mean (baseline: greedy plan)`, above(mean(exact.map((r) => r.plan))), above(mean(exact.map((r) => r.greedy))), 'at most 5%'),
    percent(`${exact.length} pools of 20 orders: walk above the optimum, worst (baseline: greedy plan)`, above(worst(exact.map((r) => r.plan))), above(worst(exact.map((r) => r.greedy))), 'at most 12%'),
    percent(`${large.length} pools of 100 orders: walk as a share of the greedy plan's, mean`, 100 * mean(large.map((r) => r.plan)), 100, 'at most 93%'),
    percent(`${large.length} pools of 100 orders: walk as a share of the greedy plan's, worst`, 100 * worst(large.map((r) => r.plan)), 100),
    percent(`${large.length} pools of 100 orders: walk above the lower bound, mean (baseline: greedy plan)`, above(mean(large.map((r) => r.boundPlan))), above(mean(large.map((r) => r.boundGreedy)))),
  ];
}

/** Pools planned for the timing, each a fresh draw. */
const TIMED_POOLS = 20;
const TIMED_ORDERS = 500;
const SERVICE_LIMITS = { maxOrders: 8, maxItems: 40 };

/**
 * 500 orders as POST /waves finds them on the floor above: 1 to 4 lines of 1 or 2 units at
 * random places, urgency from four priorities and 97 due hours. Carts of 8 orders and 40 units.
 */
function servicePool(seed: number): PoolOrder[] {
  const random = mulberry32(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const orders = Array.from({ length: TIMED_ORDERS }, (_, i) => {
    const lines = between(1, 4);
    const places = Array.from({ length: lines }, () => ({ aisle: between(1, LAYOUT.aisles), position: between(1, LAYOUT.positionsPerAisle) }));
    return { id: `o${i}`, units: places.reduce((sum) => sum + between(1, 2), 0), places, urgency: 100 * between(0, 3) + between(0, 96) };
  });
  return orders.sort((a, b) => a.urgency - b.urgency);
}

/**
 * planCarts on 500-order pools, per call and per cart handed out, against the greedy plan alone:
 * wall time, and the CPU time of the call, which other work on the machine disturbs less.
 */
function cartPlanTime(): Measurement[] {
  const planned: { ms: number; cpuMs: number; perCart: number }[] = [];
  const greedy: { ms: number; cpuMs: number; perCart: number }[] = [];
  const timed = <T>(work: () => T): { result: T; ms: number; cpuMs: number } => {
    const [start, cpu] = [performance.now(), process.cpuUsage()];
    const result = work();
    const { user, system } = process.cpuUsage(cpu);
    return { result, ms: performance.now() - start, cpuMs: (user + system) / 1_000 };
  };
  for (let seed = 0; seed <= TIMED_POOLS; seed++) {
    const pool = servicePool(seed);
    const plan = timed(() => planCarts(LAYOUT, pool, SERVICE_LIMITS).carts.length);
    const carts = timed(() => greedyCarts(LAYOUT, pool, SERVICE_LIMITS).length);
    // The first pool only warms up.
    if (seed === 0) continue;
    planned.push({ ms: plan.ms, cpuMs: plan.cpuMs, perCart: plan.ms / plan.result });
    greedy.push({ ms: carts.ms, cpuMs: carts.cpuMs, perCart: carts.ms / carts.result });
  }
  const at = (values: number[], p: number) => percentile([...values].sort((a, b) => a - b), p);
  const time = (name: string, pick: (t: (typeof planned)[number]) => number, p: number, target?: string): Measurement => ({
    name: `${name}, p${p} (baseline: greedy plan alone)`,
    unit: 'ms',
    service: at(planned.map(pick), p),
    baseline: at(greedy.map(pick), p),
    higherIsBetter: false,
    ...(target ? { target } : {}),
  });
  const pool = `${TIMED_ORDERS}-order pool`;
  return [
    time(`planCarts, ${pool}`, (t) => t.ms, 50, 'well under 1,000 ms'),
    time(`planCarts, ${pool}`, (t) => t.ms, 99),
    time(`planCarts CPU time, ${pool}`, (t) => t.cpuMs, 50),
    time(`planCarts CPU time, ${pool}`, (t) => t.cpuMs, 99),
    time(`planCarts per cart handed out, ${pool}`, (t) => t.perCart, 99, 'under 200 ms'),
  ];
}
