import Fastify from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../src/db';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { startBenchService, type Measurement } from '../harness';

/** PENDING orders to choose from; each wave is released after it is measured, so the pool stays this size. */
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
  await sql`ANALYZE products, orders, order_items, warehouse_locations`.execute(db);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * POST /waves choosing from 5,000 PENDING orders (8 orders, 40 units, optimal routes), one
 * supervisor at a time, against a bare Fastify route that only reads the candidate pool: the 500
 * most urgent PENDING orders and where their lines are (the read a wave starts with).
 */
export default async function waves(): Promise<Measurement[]> {
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
      SELECT i.order_id, i.position, i.quantity, l.aisle, l.position AS place
      FROM (
        SELECT id FROM orders WHERE tenant_id = ${tenant.id} AND status = 'PENDING' AND NOT has_issues
        ORDER BY order_urgency(priority), due_date, created_at, id LIMIT 500
      ) AS pool
      JOIN order_items i ON i.tenant_id = ${tenant.id} AND i.order_id = pool.id
      LEFT JOIN products p ON p.tenant_id = i.tenant_id AND p.id = i.product_id
      LEFT JOIN warehouse_locations l ON l.tenant_id = i.tenant_id AND l.code = p.location_code AND l.aisle IS NOT NULL`.execute(db);
    return { lines: rows.length };
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

  const timed = async (request: () => Promise<Response>): Promise<{ ms: number; response: Response }> => {
    const start = performance.now();
    const response = await request();
    return { ms: performance.now() - start, response };
  };
  const serviceTimes: number[] = [];
  const baselineTimes: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < WAVES_PER_ROUND; i++) {
        const pool = await timed(() => fetch(`${bareUrl}/pool`));
        await pool.response.json();
        baselineTimes.push(pool.ms);
        const made = await timed(() => fetch(`${floorUrl}/waves`, { method: 'POST', headers, body: '{}' }));
        const body = (await made.response.json()) as { data: { id: string } };
        if (made.response.status !== 201) throw new Error(`POST /waves answered ${made.response.status}: ${JSON.stringify(body)}`);
        serviceTimes.push(made.ms);
        // Back to PENDING, so that every wave chooses from the same 5,000 orders.
        await fetch(`${floorUrl}/waves/${body.data.id}/release`, { method: 'POST', headers });
      }
    }
  } finally {
    await bare.close();
    await service.close();
  }
  const serviceSorted = [...serviceTimes].sort((a, b) => a - b);
  const baseline = [...baselineTimes].sort((a, b) => a - b);
  return [
    { name: `POST /waves from ${ORDERS.toLocaleString('en-US')} PENDING orders, p50`, unit: 'ms', service: percentile(serviceSorted, 50), baseline: percentile(baseline, 50), higherIsBetter: false, target: 'under 100 ms' },
    { name: `POST /waves from ${ORDERS.toLocaleString('en-US')} PENDING orders, p99`, unit: 'ms', service: percentile(serviceSorted, 99), baseline: percentile(baseline, 99), higherIsBetter: false },
  ];
}
