import { describe, expect, it } from 'vitest';
import { useTenant } from '../helpers/setup';
import { item, order } from '../orders/helpers';

const setup = useTenant();

const placeOrder = (externalId: string, productExternalId: string, productSku: string) =>
  setup.tenant.api.post('/orders', order(externalId, [item(productExternalId, 1, productSku)]));

describe('catalog writes and open orders: an sku referenced by an open order stays', () => {
  it('refuses a sku change of a product in an open order: 409 CONFLICT single, per-item CONFLICT in a batch', async () => {
    await setup.tenant.api.post('/products', { externalId: 'IN-ORDER', sku: 'IO-1', name: 'held', stock: 5 });
    expect((await placeOrder('O-1', 'IN-ORDER', 'IO-1')).status).toBe(201);

    const single = await setup.tenant.api.post('/products', { externalId: 'IN-ORDER', sku: 'IO-2', name: 'held' });
    expect(single.status).toBe(409);
    expect(single.body.error.code).toBe('CONFLICT');

    const batch = await setup.tenant.api.post('/products/batch', {
      products: [
        { externalId: 'IN-ORDER', sku: 'IO-2', name: 'held' },
        { externalId: 'FREE', sku: 'FREE-1', name: 'free' },
      ],
    });
    expect(batch.body.data).toMatchObject({ successCount: 1, errorCount: 1 });
    expect(batch.body.errors).toEqual([expect.objectContaining({ index: 0, externalId: 'IN-ORDER', code: 'CONFLICT' })]);

    // Other fields still change, and the sku is free again once the order is cancelled.
    expect((await setup.tenant.api.post('/products', { externalId: 'IN-ORDER', sku: 'IO-1', name: 'renamed', stock: 2 })).status).toBe(200);
    expect((await setup.tenant.api.post('/orders/O-1/cancel')).status).toBe(200);
    expect((await setup.tenant.api.post('/products', { externalId: 'IN-ORDER', sku: 'IO-2', name: 'renamed' })).status).toBe(200);
  });

  it('bounds stock to 1,000,000,000: a larger one is a 400 naming it, single or in a batch, and nothing is written', async () => {
    const single = await setup.tenant.api.post('/products', { externalId: 'HUGE', sku: 'HUGE-1', name: 'huge', stock: 1.8e19 });
    expect(single.status).toBe(400);
    expect(single.body.error.details.map((d: { field: string }) => d.field)).toEqual(['stock']);
    const batch = await setup.tenant.api.post('/products/batch', {
      products: [
        { externalId: 'HUGE', sku: 'HUGE-1', name: 'huge', stock: 1_000_000_001 },
        { externalId: 'FULL', sku: 'FULL-1', name: 'full', stock: 1_000_000_000 },
      ],
    });
    expect(batch.body.data).toMatchObject({ successCount: 1, errorCount: 1 });
    expect(batch.body.errors).toEqual([expect.objectContaining({ index: 0, code: 'VALIDATION_ERROR' })]);
    expect((await setup.tenant.api.get('/products/HUGE')).status).toBe(404);
    expect((await setup.tenant.api.get('/products/FULL')).body.data.stock).toBe(1_000_000_000);
  });

  it('resolves a waiting order when its product is created, by single upsert or batch', async () => {
    await placeOrder('O-2', 'LATE-1', 'L-1');
    await placeOrder('O-3', 'LATE-2', 'L-2');
    expect((await setup.tenant.api.get('/orders/O-2')).body.data.status).toBe('PENDING_VALIDATION');

    await setup.tenant.api.post('/products', { externalId: 'LATE-1', sku: 'L-1', name: 'late', stock: 3 });
    await setup.tenant.api.post('/products/batch', { products: [{ externalId: 'LATE-2', sku: 'L-2', name: 'late', stock: 3 }] });
    expect((await setup.tenant.api.get('/orders/O-2')).body.data.status).toBe('PENDING');
    expect((await setup.tenant.api.get('/orders/O-3')).body.data.status).toBe('PENDING');
  });

  it('a batch restock satisfies orders short of stock, whether the batch also creates products or not', async () => {
    const stocked = (stock: number, ...names: string[]) => names.map((n) => ({ externalId: n, sku: `${n}-SKU`, name: n, stock }));
    await setup.tenant.api.post('/products/batch', { products: stocked(0, 'SHORT-1', 'SHORT-2') });
    await placeOrder('O-4', 'SHORT-1', 'SHORT-1-SKU');
    await placeOrder('O-5', 'SHORT-2', 'SHORT-2-SKU');
    for (const id of ['O-4', 'O-5']) expect((await setup.tenant.api.get(`/orders/${id}`)).body.data).toMatchObject({ status: 'PENDING', hasIssues: true });

    // Only an update: the keys are taken by a statement of their own.
    expect((await setup.tenant.api.post('/products/batch', { products: stocked(5, 'SHORT-1') })).body.data.updatedCount).toBe(1);
    // An update and a new product: the insert statement takes the keys of both.
    expect((await setup.tenant.api.post('/products/batch', { products: [...stocked(5, 'SHORT-2'), ...stocked(1, 'FRESH-1')] })).body.data).toMatchObject({
      createdCount: 1,
      updatedCount: 1,
    });
    for (const id of ['O-4', 'O-5']) expect((await setup.tenant.api.get(`/orders/${id}`)).body.data).toMatchObject({ status: 'PENDING', hasIssues: false });
  });
});
