import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { stockOf } from '../orders/helpers';
import { floorWithOrders, signedIn } from './helpers';

/*
 * A supervisor corrects a product's stock by what is printed on it: its reference
 * (externalId), its sku or its barcode.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

describe("the supervisor's stock correction names the product by reference, sku or barcode", () => {
  it('finds the product by each, the reference first, sku and barcode case aside; refuses a code no product or several products carry', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 0);
    for (const product of [
      { externalId: 'MUG', sku: 'SKU-MUG', name: 'Blue mug', stock: 10, barcode: '4006381333931' },
      // Its sku is another product's reference: the reference wins.
      { externalId: 'SHADOW', sku: 'MUG', name: 'Shadow', stock: 10 },
      { externalId: 'CAP-RED', sku: 'CAP-R', name: 'Red cap', stock: 10, barcode: '5000000000001' },
      { externalId: 'CAP-BLUE', sku: 'CAP-B', name: 'Blue cap', stock: 10, barcode: '5000000000001' },
    ]) {
      expect((await tenant.api.post('/products', product)).status).toBe(201);
    }
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const adjust = (ref: string, body: object) => supervisor.post(`/products/${encodeURIComponent(ref)}/stock`, body);

    expect((await adjust('MUG', { stock: 11 })).body.data).toEqual({ externalId: 'MUG', sku: 'SKU-MUG', name: 'Blue mug', stock: 11 });
    expect((await adjust('SKU-MUG', { delta: 1 })).body.data).toMatchObject({ externalId: 'MUG', stock: 12 });
    expect((await adjust('sku-mug', { delta: 1 })).body.data).toMatchObject({ externalId: 'MUG', stock: 13 });
    expect((await adjust('4006381333931', { delta: -3 })).body.data).toMatchObject({ externalId: 'MUG', stock: 10 });
    expect(await stockOf(tenant, 'MUG')).toBe(10);
    expect(await stockOf(tenant, 'SHADOW')).toBe(10);

    const unknown = await adjust('NOPE', { stock: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'No product has the reference, sku or barcode NOPE' });
    const shared = await adjust('5000000000001', { stock: 1 });
    expect(shared.status).toBe(409);
    expect(shared.body.error.message).toBe('5000000000001 is on 2 products: CAP-BLUE (sku CAP-B), CAP-RED (sku CAP-R). Use its sku instead.');
    expect([await stockOf(tenant, 'CAP-RED'), await stockOf(tenant, 'CAP-BLUE')]).toEqual([10, 10]);
    expect((await adjust('CAP-R', { stock: 1 })).body.data).toMatchObject({ externalId: 'CAP-RED', stock: 1 });
  });
});
