import { sql } from 'kysely';
import type { Db } from '../../src/db';
import { startBenchService, type Measurement } from '../harness';

/** Orders waiting on stock of one product (PENDING with an INSUFFICIENT_STOCK issue); BENCH_WAITING overrides it. */
const WAITING = Number(process.env.BENCH_WAITING ?? 10_000);
/** Calls per round and side, one after another on one connection. */
const CALLS = 100;
const ROUNDS = 3;

/**
 * Seeds, straight into the database, `count` orders of one unit of `product` waiting on its stock,
 * each older than the orders the bench then places.
 */
async function seedWaiting(db: Db, tenantId: string, product: { id: string; external_id: string; sku: string }, count: number): Promise<void> {
  const issue = JSON.stringify([{ type: 'INSUFFICIENT_STOCK', productExternalId: product.external_id, productSku: product.sku }]);
  await sql`
    WITH o AS (
      INSERT INTO orders (tenant_id, external_id, order_number, status, issues, has_issues, created_at)
      SELECT ${tenantId}::uuid, 'WAIT-' || n, 'WAIT-N-' || n, 'PENDING', ${issue}::jsonb, true, now() - interval '1 day' + n * interval '1 ms'
      FROM generate_series(1, ${count}::int) AS n
      RETURNING id
    )
    INSERT INTO order_items (tenant_id, order_id, position, product_external_id, product_sku, quantity, product_id)
    SELECT ${tenantId}::uuid, o.id, 0, ${product.external_id}, ${product.sku}, 1, ${product.id}::uuid FROM o`.execute(db);
}

/** Calls per second of `call`, made `CALLS` times one after another. */
async function rate(call: (n: number) => Promise<Response>): Promise<number> {
  const start = performance.now();
  for (let n = 0; n < CALLS; n++) {
    const response = await call(n);
    if (!response.ok) throw new Error(`bench call failed: ${response.status} ${await response.text()}`);
  }
  return CALLS / ((performance.now() - start) / 1000);
}

/**
 * An order intake and a cancel for a product with `WAITING` orders waiting on its stock, against
 * the same calls for a product no order waits on (same tenant, same service, alternated rounds).
 * Each cancel frees one unit, which the oldest waiting order then gets.
 */
export default async function waiting(): Promise<Measurement[]> {
  const service = await startBenchService();
  const db = service.database.db;
  const tenant = await service.tenant();
  const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
  const base = `${service.url}/api/v1/public`;
  const post = (path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers, ...(body === undefined ? { body: '{}' } : { body: JSON.stringify(body) }) });
  // Stock exactly for the orders to cancel: once they are placed, every further order of SHORT waits.
  const toCancel = CALLS * ROUNDS;
  const products = [
    { externalId: 'SHORT', sku: 'SKU-SHORT', name: 'Scarce', stock: toCancel },
    { externalId: 'PLENTY', sku: 'SKU-PLENTY', name: 'Plenty', stock: 1_000_000_000 },
  ];
  const seeded = await post('/products/batch', { products });
  if (!seeded.ok) throw new Error(`seeding the catalog failed: ${seeded.status}`);
  const order = (id: string, product: string, quantity = 1) => ({
    externalId: id,
    orderNumber: `N-${id}`,
    items: [{ productExternalId: product, productSku: `SKU-${product}`, quantity }],
  });
  for (const product of ['SHORT', 'PLENTY']) {
    for (let n = 0; n < toCancel; n++) {
      const placed = await post('/orders', order(`HOLD-${product}-${n}`, product));
      if (placed.status !== 201) throw new Error(`placing an order failed: ${placed.status}`);
    }
  }
  const short = await db.selectFrom('products').select(['id', 'external_id', 'sku']).where('tenant_id', '=', tenant.id).where('external_id', '=', 'SHORT').executeTakeFirstOrThrow();
  await seedWaiting(db, tenant.id, short, WAITING);
  await sql`ANALYZE`.execute(db);

  try {
    const best = { intake: { waiting: 0, none: 0 }, cancel: { waiting: 0, none: 0 } };
    let cancelled = 0;
    for (let round = 0; round < ROUNDS; round++) {
      best.intake.none = Math.max(best.intake.none, await rate((n) => post('/orders', order(`NEW-PLENTY-${round}-${n}`, 'PLENTY'))));
      best.intake.waiting = Math.max(best.intake.waiting, await rate((n) => post('/orders', order(`NEW-SHORT-${round}-${n}`, 'SHORT'))));
      best.cancel.none = Math.max(best.cancel.none, await rate((n) => post(`/orders/HOLD-PLENTY-${cancelled + n}/cancel`)));
      best.cancel.waiting = Math.max(best.cancel.waiting, await rate((n) => post(`/orders/HOLD-SHORT-${cancelled + n}/cancel`)));
      cancelled += CALLS;
    }
    // Each cancel of SHORT freed one unit for the oldest order waiting on it.
    const served = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('tenant_id', '=', tenant.id)
      .where('external_id', 'like', 'WAIT-%')
      .where('has_issues', '=', false)
      .executeTakeFirstOrThrow();
    if (Number(served.count) !== cancelled) throw new Error(`${cancelled} cancels served ${served.count} waiting orders`);
    const target = '≥ 50% of baseline';
    return [
      {
        name: `POST /orders of a product ${WAITING.toLocaleString('en-US')} orders wait on (baseline: none waits), 1 connection`,
        unit: 'req/s',
        service: best.intake.waiting,
        baseline: best.intake.none,
        higherIsBetter: true,
        target,
      },
      {
        name: `POST /orders/{id}/cancel freeing stock ${WAITING.toLocaleString('en-US')} orders wait on (baseline: none waits), 1 connection`,
        unit: 'req/s',
        service: best.cancel.waiting,
        baseline: best.cancel.none,
        higherIsBetter: true,
        target,
      },
    ];
  } finally {
    await service.close();
  }
}
