import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { upsertProductAlone } from '../../src/catalog/upsert';
import { isWriteNeedingTransaction } from '../../src/db/errors';
import { useTenant } from '../helpers/setup';
import { item, order } from '../orders/helpers';

const setup = useTenant();

const stored = async (externalId: string) => {
  const { rows } = await sql<{ sku: string; name: string; stock: number }>`
    SELECT sku, name, stock FROM products WHERE tenant_id = ${setup.tenant.id} AND external_id = ${externalId}`.execute(setup.ctx.database.db);
  return rows[0];
};
const stockEvents = async (productId: string) => {
  const { rows } = await sql<{ data: Record<string, unknown> }>`
    SELECT data FROM events WHERE tenant_id = ${setup.tenant.id} AND event = 'product.stock_updated' AND data->>'productId' = ${productId}`.execute(setup.ctx.database.db);
  return rows.map((r) => r.data);
};
const alone = (input: { externalId: string; sku: string; name: string; stock?: number; price?: number }) =>
  upsertProductAlone(setup.ctx.database.db, setup.tenant.id, input);

/**
 * A single POST /products is first tried as one autocommitted statement; what it leaves to the
 * transaction is covered through the API by upsert.test.ts and orders.test.ts.
 */
describe('a single product upsert as one statement', () => {
  it('creates a new product, and updates one whose sku stays, recording a stock change’s event', async () => {
    const created = await alone({ externalId: 'A-1', sku: 'A-SKU-1', name: 'first', stock: 4 });
    expect(created).toMatchObject({ created: true, warnings: [] });
    expect(await stored('A-1')).toEqual({ sku: 'A-SKU-1', name: 'first', stock: 4 });

    const restocked = await alone({ externalId: 'A-1', sku: 'A-SKU-1', name: 'renamed', stock: 9, price: 2.5 });
    expect(restocked).toEqual({ created: false, id: created!.id, warnings: [] });
    expect(await stored('A-1')).toEqual({ sku: 'A-SKU-1', name: 'renamed', stock: 9 });
    expect(await stockEvents(created!.id)).toEqual([
      { productId: created!.id, sku: 'A-SKU-1', previousStock: 4, newStock: 9, reason: 'INVENTORY_SYNC' },
    ]);
  });

  it('writes nothing and leaves the write to a transaction when it would change the sku', async () => {
    const created = await alone({ externalId: 'A-2', sku: 'A-SKU-2', name: 'held', stock: 4 });

    expect(await alone({ externalId: 'A-2', sku: 'A-SKU-2b', name: 'moved', stock: 1 })).toBeUndefined();
    expect(await stored('A-2')).toEqual({ sku: 'A-SKU-2', name: 'held', stock: 4 });
    expect(await stockEvents(created!.id)).toEqual([]);
  });

  it('aborts, undoing its write, when orders wait for the product it creates or restocks', async () => {
    expect((await setup.tenant.api.post('/orders', order('A-ORDER', [item('A-3', 1, 'A-SKU-3')]))).status).toBe(201);

    await expect(alone({ externalId: 'A-3', sku: 'A-SKU-3', name: 'awaited', stock: 0 })).rejects.toSatisfy(isWriteNeedingTransaction);
    expect(await stored('A-3')).toBeUndefined();

    // Through the API the same request then runs in a transaction: the order is now short of stock.
    expect((await setup.tenant.api.post('/products', { externalId: 'A-3', sku: 'A-SKU-3', name: 'awaited', stock: 0 })).status).toBe(201);
    expect((await setup.tenant.api.get('/orders/A-ORDER')).body.data).toMatchObject({ status: 'PENDING', hasIssues: true });

    await expect(alone({ externalId: 'A-3', sku: 'A-SKU-3', name: 'awaited', stock: 2 })).rejects.toSatisfy(isWriteNeedingTransaction);
    expect(await stored('A-3')).toMatchObject({ stock: 0 });
    expect((await setup.tenant.api.post('/products', { externalId: 'A-3', sku: 'A-SKU-3', name: 'awaited', stock: 2 })).status).toBe(200);
    expect((await setup.tenant.api.get('/orders/A-ORDER')).body.data).toMatchObject({ status: 'PENDING', hasIssues: false });
  });
});
