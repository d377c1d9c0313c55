import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { upsertProduct } from '../../src/catalog/upsert';
import { ApiError } from '../../src/http/errors';
import { upsertOrder, upsertOrders, type OrderResult } from '../../src/orders/intake';
import { usingPostgres, type TestContext } from '../helpers/context';
import { useTenant } from '../helpers/setup';
import { item, order, seedProducts, warehouse } from './helpers';
import { holdTransaction, waitsForLock, type HeldTransaction } from '../helpers/wait';

/*
 * The races the product keys (src/orders/store.ts) close. With per-product keys instead of one
 * lock per tenant, these are the interleavings that must still come out right.
 */

describe('races between intake, catalog writes and cancel, under concurrent requests', () => {
  const setup = useTenant();

  const orderOf = async (externalId: string) => (await setup.tenant.api.get(`/orders/${externalId}`)).body.data;

  it('of 20 concurrent orders for a product with stock 5, exactly 5 are accepted as fully available', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'HOT', sku: 'SKU-HOT', stock: 5 }]);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => setup.tenant.api.post('/orders', order(`HOT-${i}`, [item('HOT')]))));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const clean = responses.filter((r) => !r.body.data.hasIssues);
    expect(clean).toHaveLength(5);
    expect(responses.filter((r) => r.body.data.issues.some((i: { type: string }) => i.type === 'INSUFFICIENT_STOCK'))).toHaveLength(15);
  });

  it('orders racing with the creation of their product all end PENDING', async () => {
    const n = 12;
    await Promise.all(
      Array.from({ length: n }, (_, i) => [
        setup.tenant.api.post('/orders', order(`NEW-${i}`, [item(`NEW-P${i}`), item('SHARED')])),
        setup.tenant.api.post('/products', { externalId: `NEW-P${i}`, sku: `SKU-NEW-P${i}`, name: 'x', stock: 10 }),
      ]).flat(),
    );
    await seedProducts(setup.tenant, [{ externalId: 'SHARED', sku: 'SKU-SHARED', stock: 1000 }]);
    for (let i = 0; i < n; i++) expect((await orderOf(`NEW-${i}`)).status).toBe('PENDING');
  });

  it('orders racing with a cancel that frees the stock end without a stock issue', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'FREE', sku: 'SKU-FREE', stock: 4 }]);
    await setup.tenant.api.post('/orders', order('FREE-HOLDER', [item('FREE', 4)]));
    const racing = Array.from({ length: 4 }, (_, i) => setup.tenant.api.post('/orders', order(`FREE-${i}`, [item('FREE')])));
    const cancel = setup.tenant.api.post('/orders/FREE-HOLDER/cancel');
    expect((await cancel).status).toBe(200);
    await Promise.all(racing);
    for (let i = 0; i < 4; i++) expect((await orderOf(`FREE-${i}`)).hasIssues).toBe(false);
  });

  it('an order for a product whose intake is still open waits for it, then sees its hold', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'SAME', sku: 'SKU-SAME', stock: 1 }]);
    const holder = await setup.ctx.database.db.startTransaction().execute();
    let answered = false;
    try {
      const first = await upsertOrder(holder, setup.tenant.id, order('SAME-1', [item('SAME')]));
      expect(first.order.has_issues).toBe(false);
      const second = setup.tenant.api.post('/orders', order('SAME-2', [item('SAME')])).finally(() => (answered = true));
      // PostgreSQL: the request's connection waits for the product's key. PGlite has one connection,
      // which the open transaction holds, so there every request waits and only the outcome tells.
      if (usingPostgres) {
        await aConnectionWaits(setup.ctx);
        expect(answered).toBe(false);
      }
      await holder.commit().execute();
      const response = await second;
      expect(response.status).toBe(201);
      expect(response.body.data.issues).toEqual([{ type: 'INSUFFICIENT_STOCK', productExternalId: 'SAME', productSku: 'SKU-SAME' }]);
    } finally {
      await holder.rollback().execute().catch(() => {});
    }
  });

  it.skipIf(!usingPostgres)('an order for another product of the tenant does not wait (PostgreSQL: PGlite has one connection)', async () => {
    await seedProducts(setup.tenant, [
      { externalId: 'IND-A', sku: 'SKU-IND-A', stock: 5 },
      { externalId: 'IND-B', sku: 'SKU-IND-B', stock: 5 },
    ]);
    const holder = await setup.ctx.database.db.startTransaction().execute();
    try {
      await upsertOrder(holder, setup.tenant.id, order('IND-1', [item('IND-A')]));
      // Answered while the first transaction is still open.
      const other = await setup.tenant.api.post('/orders', order('IND-2', [item('IND-B')]));
      expect(other.status).toBe(201);
      expect(other.body.data.hasIssues).toBe(false);
      await holder.commit().execute();
    } finally {
      await holder.rollback().execute().catch(() => {});
    }
  });
});

/** Resolves once a connection of this test database waits for a lock (PostgreSQL); fails if none ever does. */
async function aConnectionWaits(ctx: TestContext): Promise<void> {
  for (let i = 0; i < 200; i++) {
    // The test database's connections share one application_name (src/db), so other test files' waits are not counted.
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE NOT l.granted AND a.application_name = current_setting('application_name')`.execute(ctx.database.db);
    if (Number(rows[0]?.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no connection of the test database waited for a lock');
}

/**
 * Two transactions on PostgreSQL held open with a fixed interleaving: the first takes a product's
 * key and stays open; the second must wait for it (checked in pg_locks) and, once the first
 * commits, see what it wrote.
 */
describe.skipIf(!usingPostgres)('controlled interleavings on PostgreSQL', () => {
  const setup = useTenant();

  const statusOf = async (externalId: string) => (await setup.tenant.api.get(`/orders/${externalId}`)).body.data;
  const product = (externalId: string, sku: string, stock = 10) => ({ externalId, sku, name: `Product ${externalId}`, stock });

  /**
   * Runs `first` in a transaction held open, then starts `second` in another and checks that it
   * waits for a lock; commits the first, then the second once it is done, and answers what the
   * second answered (or fails with its error, the second rolled back). Nothing stays open.
   */
  async function secondWaitsForFirst<T>(first: (trx: HeldTransaction) => Promise<unknown>, second: (trx: HeldTransaction) => Promise<T>): Promise<T> {
    const db = setup.ctx.database.db;
    const [held, waiting] = [await holdTransaction(db), await holdTransaction(db)];
    try {
      await first(held.trx);
      const pending = second(waiting.trx);
      pending.catch(() => {}); // awaited below, once the first has committed
      await waitsForLock(db, waiting.pid);
      await held.trx.commit().execute();
      const outcome = await pending;
      await waiting.trx.commit().execute();
      return outcome;
    } finally {
      await Promise.allSettled([held.trx.rollback().execute(), waiting.trx.rollback().execute()]);
    }
  }
  const orderWrite = (externalId: string, items: ReturnType<typeof item>[]) => (trx: HeldTransaction) => upsertOrder(trx, setup.tenant.id, order(externalId, items));
  const catalogWrite = (externalId: string, sku: string, stock?: number) => (trx: HeldTransaction) => upsertProduct(trx, setup.tenant.id, product(externalId, sku, stock));
  /** `write`, whose order is expected to come out with `status` and `hasIssues`. */
  const intakeExpecting =
    (write: (trx: HeldTransaction) => Promise<{ order: { status: string; has_issues: boolean } }>, expected: { status?: string; has_issues?: boolean }) =>
    async (trx: HeldTransaction) =>
      expect((await write(trx)).order).toMatchObject(expected);

  it('two orders for the last unit: the second waits for the first and sees its hold', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'LAST', sku: 'SKU-LAST', stock: 1 }]);
    const second = await secondWaitsForFirst(intakeExpecting(orderWrite('LAST-1', [item('LAST')]), { has_issues: false }), orderWrite('LAST-2', [item('LAST')]));
    expect(second.order.issues).toEqual([{ type: 'INSUFFICIENT_STOCK', productExternalId: 'LAST', productSku: 'SKU-LAST' }]);
  });

  /** An order taken first, in a state the catalog write after it changes: the write re-checks the order. */
  it.each([
    {
      name: 'an order for a product not created yet, then the create: the create re-checks the order',
      seed: [],
      order: ['EARLY-1', [item('EARLY')]],
      before: { status: 'PENDING_VALIDATION' },
      write: ['EARLY', 'SKU-EARLY'],
      after: { status: 'PENDING' },
    },
    {
      name: 'an order waiting on an sku, then its correction: the correction re-checks the order',
      seed: [{ externalId: 'FIX', sku: 'SKU-WRONG', stock: 3 }],
      order: ['FIX-1', [item('FIX', 1, 'SKU-FIX')]],
      before: { status: 'PENDING_VALIDATION' },
      write: ['FIX', 'SKU-FIX', 3],
      after: { status: 'PENDING' },
    },
    {
      name: 'an order short of stock, then a restock: the restock re-checks the order',
      seed: [{ externalId: 'RE', sku: 'SKU-RE', stock: 0 }],
      order: ['RE-1', [item('RE', 2)]],
      before: { has_issues: true },
      write: ['RE', 'SKU-RE', 5],
      after: { hasIssues: false },
    },
  ] as const)('$name', async ({ seed, order: [externalId, items], before, write: [id, sku, stock], after }) => {
    await seedProducts(setup.tenant, [...seed]);
    await secondWaitsForFirst(intakeExpecting(orderWrite(externalId, [...items]), before), catalogWrite(id, sku, stock));
    expect(await statusOf(externalId)).toMatchObject(after);
  });

  it('an order resolving against the old sku, then an sku change: the change is refused', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'OLD', sku: 'SKU-OLD', stock: 3 }]);
    const change = secondWaitsForFirst(intakeExpecting(orderWrite('OLD-1', [item('OLD', 1, 'SKU-OLD')]), { status: 'PENDING' }), catalogWrite('OLD', 'SKU-NEW', 3));
    await expect(change).rejects.toSatisfy((error: unknown) => error instanceof ApiError && error.statusCode === 409);
    expect((await setup.tenant.api.get('/products/OLD')).body.data.sku).toBe('SKU-OLD');
  });

  /** A catalog write taken first: the order after it waits for it and resolves against what it wrote. */
  it.each([
    { name: 'a create, then an order for that product: the order waits and sees the product', seed: [], write: ['LATE', 'SKU-LATE'], order: ['LATE-1', [item('LATE')]], status: 'PENDING' },
    {
      name: 'an sku change, then an order with the old sku: the order waits and does not resolve',
      seed: [{ externalId: 'MOVE', sku: 'SKU-MOVE-OLD', stock: 3 }],
      write: ['MOVE', 'SKU-MOVE-NEW', 3],
      order: ['MOVE-1', [item('MOVE', 1, 'SKU-MOVE-OLD')]],
      status: 'PENDING_VALIDATION',
    },
  ] as const)('$name', async ({ seed, write: [id, sku, stock], order: [externalId, items], status }) => {
    await seedProducts(setup.tenant, [...seed]);
    expect((await secondWaitsForFirst(catalogWrite(id, sku, stock), orderWrite(externalId, [...items]))).order.status).toBe(status);
  });

  const accepted = (results: OrderResult[]) =>
    results.map((result) => {
      if (result instanceof ApiError) throw result;
      return result.order.has_issues ? 'short' : 'clean';
    });
  const batch = (ids: string[], externalId: string) => (trx: HeldTransaction) => upsertOrders(trx, setup.tenant.id, ids.map((id) => order(id, [item(externalId)])));

  it('a restock, then a batch for the product: the batch waits for it and counts the new stock in index order', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'UP', sku: 'SKU-UP', stock: 0 }]);
    const results = await secondWaitsForFirst(catalogWrite('UP', 'SKU-UP', 2), batch(['UP-1', 'UP-2', 'UP-3'], 'UP'));
    expect(accepted(results)).toEqual(['clean', 'clean', 'short']);
  });

  it('a batch with orders short of a product, then its restock: the restock waits and serves them', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'WAIT', sku: 'SKU-WAIT', stock: 1 }]);
    const ids = ['W-1', 'W-2', 'W-3'];
    const batched = async (trx: HeldTransaction) => expect(accepted(await batch(ids, 'WAIT')(trx))).toEqual(['clean', 'short', 'short']);
    await secondWaitsForFirst(batched, catalogWrite('WAIT', 'SKU-WAIT', 3));
    for (const id of ids) expect((await statusOf(id)).hasIssues).toBe(false);
  });

  it('a short pick frees stock for an order taken meanwhile', async () => {
    const floor = warehouse(setup.ctx, setup.tenant);
    await seedProducts(setup.tenant, [{ externalId: 'SHORT', sku: 'SKU-SHORT', stock: 2 }]);
    await setup.tenant.api.post('/orders', order('SHORT-1', [item('SHORT', 2)]));
    await floor.advance('SHORT-1', 'start-picking');
    const intake = await holdTransaction(setup.ctx.database.db);
    try {
      const a = await upsertOrder(intake.trx, setup.tenant.id, order('SHORT-2', [item('SHORT', 1)]));
      expect(a.order.has_issues).toBe(true);
      const picking = floor.post('/orders/SHORT-1/complete-picking', { lines: [{ productExternalId: 'SHORT', pickedQuantity: 1 }] });
      // The pick waits for the order's key; it then re-checks SHORT-2 (stock 1 left, nothing held).
      await aConnectionWaits(setup.ctx);
      await intake.trx.commit().execute();
      expect((await picking).status).toBe(200);
      expect((await statusOf('SHORT-2')).hasIssues).toBe(false);
    } finally {
      await intake.trx.rollback().execute().catch(() => {});
    }
  });
});
