import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createOrderAlone, upsertOrder } from '../../src/orders/intake';
import { usingPostgres } from '../helpers/context';
import { useTenant } from '../helpers/setup';
import { holdTransaction } from '../helpers/wait';
import { eventsOf, item, order, seedProducts } from './helpers';

const setup = useTenant({
  products: [
    { externalId: 'AL-1', sku: 'SKU-AL-1', stock: 5 },
    { externalId: 'AL-2', sku: 'SKU-AL-2', stock: 2 },
  ],
});

const alone = (input: ReturnType<typeof order>) => createOrderAlone(setup.ctx.database.db, setup.tenant.id, input);
const ordersNamed = async (externalId: string) => {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM orders WHERE tenant_id = ${setup.tenant.id} AND external_id = ${externalId}`.execute(setup.ctx.database.db);
  return rows[0]!.n;
};

/**
 * A new POST /orders is first tried as one autocommitted statement; what it leaves to the
 * transaction (its answers) is covered through the API by intake.test.ts and races.test.ts.
 */
describe('a new order as one statement', () => {
  it('creates a PENDING order without issues or events, its lines resolved, counting what the orders before it hold', async () => {
    const created = await alone(order('AL-A', [item('AL-1', 2), item('AL-2', 2)], { notes: 'first', priority: 'high' }));
    expect(created).toMatchObject({ action: 'created', itemsCount: 2, warnings: [], events: [], order: { status: 'PENDING', issues: [], has_issues: false } });
    const { data } = (await setup.tenant.api.get('/orders/AL-A')).body;
    expect(data).toMatchObject({ status: 'PENDING', notes: 'first', priority: 'high', items: [{ productExternalId: 'AL-1', quantity: 2 }, { productExternalId: 'AL-2', quantity: 2 }] });
    const { rows } = await sql<{ product_id: string | null }>`
      SELECT product_id FROM order_items WHERE tenant_id = ${setup.tenant.id} AND order_id = ${created!.order.id} ORDER BY position`.execute(setup.ctx.database.db);
    const products = await Promise.all(['AL-1', 'AL-2'].map(async (id) => (await setup.tenant.api.get(`/products/${id}`)).body.data.id));
    expect(rows.map((row) => row.product_id)).toEqual(products);

    // 3 of AL-1 left: exactly that is still taken alone, one more is not.
    expect(await alone(order('AL-B', [item('AL-1', 3)]))).toMatchObject({ order: { status: 'PENDING' } });
    expect(await alone(order('AL-C', [item('AL-1', 1)]))).toBeUndefined();
    expect(await ordersNamed('AL-C')).toBe(0);
    expect(await eventsOf(setup.ctx, setup.tenant)).toEqual([]);
  });

  it.each([
    ['a product not in the catalog', order('AL-U', [item('AL-1'), item('AL-NONE')])],
    ['another sku than the product’s', order('AL-S', [item('AL-1', 1, 'SKU-OTHER')])],
    ['more than the stock', order('AL-Q', [item('AL-2', 3)])],
    ['the same product twice', order('AL-R', [item('AL-1'), item('AL-1')])],
  ])('leaves an order with %s to the transaction, writing nothing', async (_name, input) => {
    expect(await alone(input)).toBeUndefined();
    expect(await ordersNamed(input.externalId)).toBe(0);
  });

  it('leaves an update, and an orderNumber another order holds, to the transaction', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'AL-3', sku: 'SKU-AL-3', stock: 10 }]);
    expect(await alone(order('AL-E', [item('AL-3')]))).toMatchObject({ action: 'created' });
    expect(await alone(order('AL-E', [item('AL-3', 2)]))).toBeUndefined();
    expect(await alone(order('AL-F', [item('AL-3')], { orderNumber: 'N-AL-E' }))).toBeUndefined();
    expect(await ordersNamed('AL-F')).toBe(0);
    expect((await setup.tenant.api.get('/orders/AL-E')).body.data.items).toEqual([expect.objectContaining({ quantity: 1 })]);
  });

  it.skipIf(!usingPostgres)('waits for the keys of an intake still open, then sees its hold (PostgreSQL: PGlite has one connection)', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'AL-LAST', sku: 'SKU-AL-LAST', stock: 1 }]);
    const held = await holdTransaction(setup.ctx.database.db);
    try {
      await upsertOrder(held.trx, setup.tenant.id, order('AL-L1', [item('AL-LAST')]));
      const second = alone(order('AL-L2', [item('AL-LAST')]));
      second.catch(() => {}); // awaited below, once the first has committed
      await aStatementWaits('advisory');
      await held.trx.commit().execute();
      // Its statement started before the first committed: only a read after the keys sees the hold.
      expect(await second).toBeUndefined();
      expect(await ordersNamed('AL-L2')).toBe(0);
    } finally {
      await held.trx.rollback().execute().catch(() => {});
    }
  });

  it.skipIf(!usingPostgres)('waits for an intake still writing the same externalId, then writes nothing (PostgreSQL: PGlite has one connection)', async () => {
    await seedProducts(setup.tenant, [
      { externalId: 'AL-W1', sku: 'SKU-AL-W1', stock: 5 },
      { externalId: 'AL-W2', sku: 'SKU-AL-W2', stock: 5 },
    ]);
    const held = await holdTransaction(setup.ctx.database.db);
    try {
      await upsertOrder(held.trx, setup.tenant.id, order('AL-W', [item('AL-W1')]));
      // Other products: only the order's own key is in the way.
      const second = alone(order('AL-W', [item('AL-W2')], { orderNumber: 'N-AL-W-OTHER' }));
      second.catch(() => {}); // awaited below, once the first has committed
      await aStatementWaits('transactionid');
      await held.trx.commit().execute();
      expect(await second).toBeUndefined();
      expect(await ordersNamed('AL-W')).toBe(1);
      expect((await setup.tenant.api.get('/orders/AL-W')).body.data.items).toEqual([expect.objectContaining({ productExternalId: 'AL-W1' })]);
    } finally {
      await held.trx.rollback().execute().catch(() => {});
    }
  });
});

/** Resolves once a connection of this test database waits for a lock of that type; fails if none ever does. */
async function aStatementWaits(locktype: 'advisory' | 'transactionid'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    // The test database's connections share one application_name (src/db): other test files' waits are not counted.
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = ${locktype} AND NOT l.granted AND a.application_name = current_setting('application_name')`.execute(setup.ctx.database.db);
    if (Number(rows[0]?.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no statement waited for a lock of type ${locktype}`);
}
