import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertProductAlone } from '../../src/catalog/upsert';
import { isWriteNeedingTransaction } from '../../src/db/errors';
import { createTestContext, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { item, order } from '../orders/helpers';

let ctx: TestContext;
let tenant: TestTenant;

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await ctx.tenant(UNLIMITED);
});
afterAll(() => ctx.close());

const stored = async (externalId: string) => {
  const { rows } = await sql<{ sku: string; name: string; stock: number }>`
    SELECT sku, name, stock FROM products WHERE tenant_id = ${tenant.id} AND external_id = ${externalId}`.execute(ctx.database.db);
  return rows[0];
};
const alone = (input: { externalId: string; sku: string; name: string; stock?: number; price?: number }) =>
  upsertProductAlone(ctx.database.db, tenant.id, input);

/**
 * A single POST /products is first tried as one autocommitted statement; what it leaves to the
 * transaction is covered through the API by upsert.test.ts and orders.test.ts.
 */
describe('a single product upsert as one statement', () => {
  it('creates a new product, and updates one when neither its sku nor its stock moves', async () => {
    const created = await alone({ externalId: 'A-1', sku: 'A-SKU-1', name: 'first', stock: 4 });
    expect(created).toMatchObject({ created: true, warnings: [] });
    expect(await stored('A-1')).toEqual({ sku: 'A-SKU-1', name: 'first', stock: 4 });

    const renamed = await alone({ externalId: 'A-1', sku: 'A-SKU-1', name: 'renamed', stock: 4, price: 2.5 });
    expect(renamed).toEqual({ created: false, id: created!.id, warnings: [] });
    expect(await stored('A-1')).toEqual({ sku: 'A-SKU-1', name: 'renamed', stock: 4 });
  });

  it('writes nothing and leaves the write to a transaction when it would move the stock or the sku', async () => {
    await alone({ externalId: 'A-2', sku: 'A-SKU-2', name: 'held', stock: 4 });

    expect(await alone({ externalId: 'A-2', sku: 'A-SKU-2', name: 'restocked', stock: 9 })).toBeUndefined();
    expect(await alone({ externalId: 'A-2', sku: 'A-SKU-2b', name: 'moved', stock: 4 })).toBeUndefined();
    expect(await stored('A-2')).toEqual({ sku: 'A-SKU-2', name: 'held', stock: 4 });
  });

  it('aborts, undoing its insert, when orders wait for the product it creates', async () => {
    expect((await tenant.api.post('/orders', order('A-ORDER', [item('A-3', 1, 'A-SKU-3')]))).status).toBe(201);

    const attempt = alone({ externalId: 'A-3', sku: 'A-SKU-3', name: 'awaited', stock: 2 });
    await expect(attempt).rejects.toSatisfy(isWriteNeedingTransaction);
    expect(await stored('A-3')).toBeUndefined();

    // Through the API the same request then runs in a transaction, which resolves the order.
    expect((await tenant.api.post('/products', { externalId: 'A-3', sku: 'A-SKU-3', name: 'awaited', stock: 2 })).status).toBe(201);
    expect((await tenant.api.get('/orders/A-ORDER')).body.data.status).toBe('PENDING');
  });
});
