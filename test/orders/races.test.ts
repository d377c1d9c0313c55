import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertProduct } from '../../src/catalog/upsert';
import { ApiError } from '../../src/http/errors';
import { upsertOrder, upsertOrders, type OrderResult } from '../../src/orders/intake';
import { createTestContext, usingPostgres, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { item, order, seedProducts, warehouse } from './helpers';
import { holdTransaction, waitsForLock } from '../helpers/wait';

/*
 * The races the product keys (src/orders/store.ts) close. With per-product keys instead of one
 * lock per tenant, these are the interleavings that must still come out right.
 */


describe('races between intake, catalog writes and cancel, under concurrent requests', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant(UNLIMITED);
  });
  afterAll(() => ctx.close());

  const orderOf = async (externalId: string) => (await tenant.api.get(`/orders/${externalId}`)).body.data;

  it('of 20 concurrent orders for a product with stock 5, exactly 5 are accepted as fully available', async () => {
    await seedProducts(tenant, [{ externalId: 'HOT', sku: 'SKU-HOT', stock: 5 }]);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => tenant.api.post('/orders', order(`HOT-${i}`, [item('HOT')]))));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const clean = responses.filter((r) => !r.body.data.hasIssues);
    expect(clean).toHaveLength(5);
    expect(responses.filter((r) => r.body.data.issues.some((i: { type: string }) => i.type === 'INSUFFICIENT_STOCK'))).toHaveLength(15);
  });

  it('orders racing with the creation of their product all end PENDING', async () => {
    const n = 12;
    await Promise.all(
      Array.from({ length: n }, (_, i) => [
        tenant.api.post('/orders', order(`NEW-${i}`, [item(`NEW-P${i}`), item('SHARED')])),
        tenant.api.post('/products', { externalId: `NEW-P${i}`, sku: `SKU-NEW-P${i}`, name: 'x', stock: 10 }),
      ]).flat(),
    );
    await seedProducts(tenant, [{ externalId: 'SHARED', sku: 'SKU-SHARED', stock: 1000 }]);
    for (let i = 0; i < n; i++) expect((await orderOf(`NEW-${i}`)).status).toBe('PENDING');
  });

  it('orders racing with a cancel that frees the stock end without a stock issue', async () => {
    await seedProducts(tenant, [{ externalId: 'FREE', sku: 'SKU-FREE', stock: 4 }]);
    await tenant.api.post('/orders', order('FREE-HOLDER', [item('FREE', 4)]));
    const racing = Array.from({ length: 4 }, (_, i) => tenant.api.post('/orders', order(`FREE-${i}`, [item('FREE')])));
    const cancel = tenant.api.post('/orders/FREE-HOLDER/cancel');
    expect((await cancel).status).toBe(200);
    await Promise.all(racing);
    for (let i = 0; i < 4; i++) expect((await orderOf(`FREE-${i}`)).hasIssues).toBe(false);
  });

  it('an order for a product whose intake is still open waits for it, then sees its hold', async () => {
    await seedProducts(tenant, [{ externalId: 'SAME', sku: 'SKU-SAME', stock: 1 }]);
    const holder = await ctx.database.db.startTransaction().execute();
    let answered = false;
    try {
      const first = await upsertOrder(holder, tenant.id, order('SAME-1', [item('SAME')]));
      expect(first.order.has_issues).toBe(false);
      const second = tenant.api.post('/orders', order('SAME-2', [item('SAME')])).finally(() => (answered = true));
      // PostgreSQL: the request's connection waits for the product's key. PGlite has one connection,
      // which the open transaction holds, so there every request waits and only the outcome tells.
      if (usingPostgres) {
        await aConnectionWaits(ctx);
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
    await seedProducts(tenant, [
      { externalId: 'IND-A', sku: 'SKU-IND-A', stock: 5 },
      { externalId: 'IND-B', sku: 'SKU-IND-B', stock: 5 },
    ]);
    const holder = await ctx.database.db.startTransaction().execute();
    try {
      await upsertOrder(holder, tenant.id, order('IND-1', [item('IND-A')]));
      // Answered while the first transaction is still open.
      const other = await tenant.api.post('/orders', order('IND-2', [item('IND-B')]));
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
  let ctx: TestContext;
  let tenant: TestTenant;
  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant(UNLIMITED);
  });
  afterAll(() => ctx.close());



  const statusOf = async (externalId: string) => (await tenant.api.get(`/orders/${externalId}`)).body.data;
  const product = (externalId: string, sku: string, stock = 10) => ({ externalId, sku, name: `Product ${externalId}`, stock });

  it('two orders for the last unit: the second waits for the first and sees its hold', async () => {
    await seedProducts(tenant, [{ externalId: 'LAST', sku: 'SKU-LAST', stock: 1 }]);
    const first = await holdTransaction(ctx.database.db);
    const second = await holdTransaction(ctx.database.db);
    try {
      const a = await upsertOrder(first.trx, tenant.id, order('LAST-1', [item('LAST')]));
      expect(a.order.has_issues).toBe(false);
      const pending = upsertOrder(second.trx, tenant.id, order('LAST-2', [item('LAST')]));
      await waitsForLock(ctx.database.db, second.pid);
      await first.trx.commit().execute();
      const b = await pending;
      expect(b.order.issues).toEqual([{ type: 'INSUFFICIENT_STOCK', productExternalId: 'LAST', productSku: 'SKU-LAST' }]);
      await second.trx.commit().execute();
    } finally {
      await Promise.allSettled([first.trx.rollback().execute(), second.trx.rollback().execute()]);
    }
  });

  it('an order for a product not created yet, then the create: the create re-checks the order', async () => {
    const intake = await holdTransaction(ctx.database.db);
    const catalog = await holdTransaction(ctx.database.db);
    try {
      const a = await upsertOrder(intake.trx, tenant.id, order('EARLY-1', [item('EARLY')]));
      expect(a.order.status).toBe('PENDING_VALIDATION');
      const created = upsertProduct(catalog.trx, tenant.id, product('EARLY', 'SKU-EARLY'));
      await waitsForLock(ctx.database.db, catalog.pid);
      await intake.trx.commit().execute();
      await created;
      await catalog.trx.commit().execute();
      expect((await statusOf('EARLY-1')).status).toBe('PENDING');
    } finally {
      await Promise.allSettled([intake.trx.rollback().execute(), catalog.trx.rollback().execute()]);
    }
  });

  it('a create, then an order for that product: the order waits and sees the product', async () => {
    const catalog = await holdTransaction(ctx.database.db);
    const intake = await holdTransaction(ctx.database.db);
    try {
      await upsertProduct(catalog.trx, tenant.id, product('LATE', 'SKU-LATE'));
      const pending = upsertOrder(intake.trx, tenant.id, order('LATE-1', [item('LATE')]));
      await waitsForLock(ctx.database.db, intake.pid);
      await catalog.trx.commit().execute();
      expect((await pending).order.status).toBe('PENDING');
      await intake.trx.commit().execute();
    } finally {
      await Promise.allSettled([intake.trx.rollback().execute(), catalog.trx.rollback().execute()]);
    }
  });

  it('an order waiting on an sku, then its correction: the correction re-checks the order', async () => {
    await seedProducts(tenant, [{ externalId: 'FIX', sku: 'SKU-WRONG', stock: 3 }]);
    const intake = await holdTransaction(ctx.database.db);
    const catalog = await holdTransaction(ctx.database.db);
    try {
      const a = await upsertOrder(intake.trx, tenant.id, order('FIX-1', [item('FIX', 1, 'SKU-FIX')]));
      expect(a.order.status).toBe('PENDING_VALIDATION');
      const corrected = upsertProduct(catalog.trx, tenant.id, product('FIX', 'SKU-FIX', 3));
      await waitsForLock(ctx.database.db, catalog.pid);
      await intake.trx.commit().execute();
      await corrected;
      await catalog.trx.commit().execute();
      expect((await statusOf('FIX-1')).status).toBe('PENDING');
    } finally {
      await Promise.allSettled([intake.trx.rollback().execute(), catalog.trx.rollback().execute()]);
    }
  });

  it('an order short of stock, then a restock: the restock re-checks the order', async () => {
    await seedProducts(tenant, [{ externalId: 'RE', sku: 'SKU-RE', stock: 0 }]);
    const intake = await holdTransaction(ctx.database.db);
    const catalog = await holdTransaction(ctx.database.db);
    try {
      const a = await upsertOrder(intake.trx, tenant.id, order('RE-1', [item('RE', 2)]));
      expect(a.order.has_issues).toBe(true);
      const restocked = upsertProduct(catalog.trx, tenant.id, product('RE', 'SKU-RE', 5));
      await waitsForLock(ctx.database.db, catalog.pid);
      await intake.trx.commit().execute();
      await restocked;
      await catalog.trx.commit().execute();
      expect((await statusOf('RE-1')).hasIssues).toBe(false);
    } finally {
      await Promise.allSettled([intake.trx.rollback().execute(), catalog.trx.rollback().execute()]);
    }
  });

  it('an order resolving against the old sku, then an sku change: the change is refused', async () => {
    await seedProducts(tenant, [{ externalId: 'OLD', sku: 'SKU-OLD', stock: 3 }]);
    const intake = await holdTransaction(ctx.database.db);
    const catalog = await holdTransaction(ctx.database.db);
    try {
      const a = await upsertOrder(intake.trx, tenant.id, order('OLD-1', [item('OLD', 1, 'SKU-OLD')]));
      expect(a.order.status).toBe('PENDING');
      const changed = upsertProduct(catalog.trx, tenant.id, product('OLD', 'SKU-NEW', 3));
      await waitsForLock(ctx.database.db, catalog.pid);
      await intake.trx.commit().execute();
      await expect(changed).rejects.toSatisfy((error: unknown) => error instanceof ApiError && error.statusCode === 409);
      await catalog.trx.rollback().execute();
      expect((await tenant.api.get('/products/OLD')).body.data.sku).toBe('SKU-OLD');
    } finally {
      await Promise.allSettled([intake.trx.rollback().execute(), catalog.trx.rollback().execute()]);
    }
  });

  it('an sku change, then an order with the old sku: the order waits and does not resolve', async () => {
    await seedProducts(tenant, [{ externalId: 'MOVE', sku: 'SKU-MOVE-OLD', stock: 3 }]);
    const catalog = await holdTransaction(ctx.database.db);
    const intake = await holdTransaction(ctx.database.db);
    try {
      await upsertProduct(catalog.trx, tenant.id, product('MOVE', 'SKU-MOVE-NEW', 3));
      const pending = upsertOrder(intake.trx, tenant.id, order('MOVE-1', [item('MOVE', 1, 'SKU-MOVE-OLD')]));
      await waitsForLock(ctx.database.db, intake.pid);
      await catalog.trx.commit().execute();
      expect((await pending).order.status).toBe('PENDING_VALIDATION');
      await intake.trx.commit().execute();
    } finally {
      await Promise.allSettled([intake.trx.rollback().execute(), catalog.trx.rollback().execute()]);
    }
  });

  const accepted = (results: OrderResult[]) =>
    results.map((result) => {
      if (result instanceof ApiError) throw result;
      return result.order.has_issues ? 'short' : 'clean';
    });

  it('a restock, then a batch for the product: the batch waits for it and counts the new stock in index order', async () => {
    await seedProducts(tenant, [{ externalId: 'UP', sku: 'SKU-UP', stock: 0 }]);
    const catalog = await holdTransaction(ctx.database.db);
    const intake = await holdTransaction(ctx.database.db);
    try {
      await upsertProduct(catalog.trx, tenant.id, product('UP', 'SKU-UP', 2));
      const pending = upsertOrders(intake.trx, tenant.id, ['UP-1', 'UP-2', 'UP-3'].map((id) => order(id, [item('UP')])));
      await waitsForLock(ctx.database.db, intake.pid);
      await catalog.trx.commit().execute();
      expect(accepted(await pending)).toEqual(['clean', 'clean', 'short']);
      await intake.trx.commit().execute();
    } finally {
      await Promise.allSettled([catalog.trx.rollback().execute(), intake.trx.rollback().execute()]);
    }
  });

  it('a batch with orders short of a product, then its restock: the restock waits and serves them', async () => {
    await seedProducts(tenant, [{ externalId: 'WAIT', sku: 'SKU-WAIT', stock: 1 }]);
    const intake = await holdTransaction(ctx.database.db);
    const catalog = await holdTransaction(ctx.database.db);
    try {
      const results = await upsertOrders(intake.trx, tenant.id, ['W-1', 'W-2', 'W-3'].map((id) => order(id, [item('WAIT')])));
      expect(accepted(results)).toEqual(['clean', 'short', 'short']);
      const restock = upsertProduct(catalog.trx, tenant.id, product('WAIT', 'SKU-WAIT', 3));
      await waitsForLock(ctx.database.db, catalog.pid);
      await intake.trx.commit().execute();
      await restock;
      await catalog.trx.commit().execute();
      for (const id of ['W-1', 'W-2', 'W-3']) expect((await tenant.api.get(`/orders/${id}`)).body.data.hasIssues).toBe(false);
    } finally {
      await Promise.allSettled([catalog.trx.rollback().execute(), intake.trx.rollback().execute()]);
    }
  });

  it('a short pick frees stock for an order taken meanwhile', async () => {
    const floor = warehouse(ctx, tenant);
    await seedProducts(tenant, [{ externalId: 'SHORT', sku: 'SKU-SHORT', stock: 2 }]);
    await tenant.api.post('/orders', order('SHORT-1', [item('SHORT', 2)]));
    await floor.advance('SHORT-1', 'start-picking');
    const intake = await holdTransaction(ctx.database.db);
    try {
      const a = await upsertOrder(intake.trx, tenant.id, order('SHORT-2', [item('SHORT', 1)]));
      expect(a.order.has_issues).toBe(true);
      const picking = floor.post('/orders/SHORT-1/complete-picking', { lines: [{ productExternalId: 'SHORT', pickedQuantity: 1 }] });
      // The pick waits for the order's key; it then re-checks SHORT-2 (stock 1 left, nothing held).
      await aConnectionWaits(ctx);
      await intake.trx.commit().execute();
      expect((await picking).status).toBe(200);
      expect((await statusOf('SHORT-2')).hasIssues).toBe(false);
    } finally {
      await intake.trx.rollback().execute().catch(() => {});
    }
  });
});
