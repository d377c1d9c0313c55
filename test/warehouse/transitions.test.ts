import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant } from '../helpers/setup';
import { eventsOf, item, order, seedProducts, stockOf, warehouse } from '../orders/helpers';

describe('warehouse API: order transitions and stock', () => {
  const setup = useTenant({
    products: [
      { externalId: 'P1', sku: 'SKU-P1', stock: 50 },
      { externalId: 'P2', sku: 'SKU-P2', stock: 50 },
    ],
  });
  let floor: ReturnType<typeof warehouse>;
  beforeAll(() => {
    floor = warehouse(setup.ctx, setup.tenant);
  });

  const statusEvents = async (externalId: string) =>
    (await eventsOf(setup.ctx, setup.tenant, 'order.status_changed')).filter((e) => e.data.externalId === externalId).map((e) => e.data);

  it('moves an order PENDING → IN_PICKING → PICKED → PACKED → DISPATCHED, one order.status_changed each', async () => {
    await setup.tenant.api.post('/orders', order('W-1', [item('P1', 2)]));
    const steps = [
      ['start-picking', 'PENDING', 'IN_PICKING'],
      ['complete-picking', 'IN_PICKING', 'PICKED'],
      ['pack', 'PICKED', 'PACKED'],
      ['dispatch', 'PACKED', 'DISPATCHED'],
    ] as const;
    for (const [step, previousStatus, status] of steps) {
      const response = await floor.post(`/orders/W-1/${step}`, step === 'dispatch' ? { carrier: 'UPS', trackingNumber: '1Z999' } : undefined);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.data.status).toBe(status);
      const last = (await statusEvents('W-1')).at(-1);
      // A dispatched order's event says where it went (additive to the spec's payload).
      const shipment = status === 'DISPATCHED' ? { carrier: 'UPS', trackingNumber: '1Z999' } : {};
      expect(last).toEqual({ externalId: 'W-1', orderNumber: 'N-W-1', previousStatus, status, updatedAt: response.body.data.updatedAt, ...shipment });
    }
    const { data } = (await setup.tenant.api.get('/orders/W-1')).body;
    expect(data).toMatchObject({ status: 'DISPATCHED', carrier: 'UPS', trackingNumber: '1Z999', pickedAt: expect.any(String), dispatchedAt: expect.any(String) });
    expect(await statusEvents('W-1')).toHaveLength(4);
  });

  it.each([
    ['start-picking', 'PICKED', ['start-picking', 'complete-picking']],
    ['complete-picking', 'PENDING', []],
    ['pack', 'IN_PICKING', ['start-picking']],
    ['dispatch', 'PICKED', ['start-picking', 'complete-picking']],
    ['start-picking', 'DISPATCHED', ['start-picking', 'complete-picking', 'pack', 'dispatch']],
  ] as const)('refuses %s from %s with 409 CONFLICT and changes nothing', async (step, status, before) => {
    const id = `BAD-${step}-${status}`;
    await setup.tenant.api.post('/orders', order(id, [item('P2')]));
    await floor.advance(id, ...before);
    const events = (await eventsOf(setup.ctx, setup.tenant)).length;
    const stock = await stockOf(setup.tenant, 'P2');
    const response = await floor.post(`/orders/${id}/${step}`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect((await setup.tenant.api.get(`/orders/${id}`)).body.data.status).toBe(status);
    expect((await eventsOf(setup.ctx, setup.tenant)).length).toBe(events);
    expect(await stockOf(setup.tenant, 'P2')).toBe(stock);
  });

  it('will not start picking a PENDING_VALIDATION or CANCELLED order (409)', async () => {
    await setup.tenant.api.post('/orders', order('BAD-PV', [item('NOWHERE')]));
    expect((await floor.post('/orders/BAD-PV/start-picking')).status).toBe(409);
    await setup.tenant.api.post('/orders/BAD-PV/cancel');
    expect((await floor.post('/orders/BAD-PV/start-picking')).status).toBe(409);
  });

  it('answers 404 for an unknown order or tenant and 401 without the admin token', async () => {
    expect((await floor.post('/orders/NOPE/start-picking')).status).toBe(404);
    expect((await setup.ctx.admin('POST', '/api/v1/warehouse/tenants/no-such-tenant/orders/W-1/pack')).status).toBe(404);
    const anonymous = await setup.ctx.app.inject({ method: 'POST', url: `/api/v1/warehouse/tenants/${setup.tenant.slug}/orders/W-1/pack` });
    expect(anonymous.statusCode).toBe(401);
    const withApiKey = await setup.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/warehouse/tenants/${setup.tenant.slug}/orders/W-1/pack`,
      headers: { authorization: `Bearer ${setup.tenant.key}` },
    });
    expect(withApiKey.statusCode).toBe(401);
  });

  it('complete-picking lowers stock by what was picked (product.stock_updated ORDER_PICKED)', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'PK', sku: 'SKU-PK', stock: 10 }]);
    await setup.tenant.api.post('/orders', order('PICK-1', [item('PK', 4)]));
    await floor.advance('PICK-1', 'start-picking', 'complete-picking');
    expect(await stockOf(setup.tenant, 'PK')).toBe(6);
    const updated = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).at(-1);
    expect(updated?.data).toEqual({ productId: expect.any(String), sku: 'SKU-PK', previousStock: 10, newStock: 6, reason: 'ORDER_PICKED' });
  });

  it('a short pick adjusts the order items (order.items_adjusted) and frees the rest for waiting orders', async () => {
    await seedProducts(setup.tenant, [
      { externalId: 'SH', sku: 'SKU-SH', stock: 5 },
      { externalId: 'OK', sku: 'SKU-OK', stock: 5 },
    ]);
    await setup.tenant.api.post('/orders', order('SHORT-1', [item('SH', 5), item('OK', 2)]));
    const waiting = await setup.tenant.api.post('/orders', order('SHORT-2', [item('SH', 1)]));
    expect(waiting.body.data.hasIssues).toBe(true);
    await floor.advance('SHORT-1', 'start-picking');
    const response = await floor.post('/orders/SHORT-1/complete-picking', { lines: [{ productExternalId: 'SH', pickedQuantity: 3 }] });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      status: 'PICKED',
      items: [
        { productExternalId: 'SH', quantity: 3 },
        { productExternalId: 'OK', quantity: 2 },
      ],
    });
    expect(await stockOf(setup.tenant, 'SH')).toBe(2);
    expect(await stockOf(setup.tenant, 'OK')).toBe(3);
    const adjusted = await eventsOf(setup.ctx, setup.tenant, 'order.items_adjusted');
    expect(adjusted.map((e) => e.data)).toEqual([
      {
        externalId: 'SHORT-1',
        orderNumber: 'N-SHORT-1',
        status: 'PICKED',
        items: [{ productExternalId: 'SH', productSku: 'SKU-SH', previousQuantity: 5, quantity: 3 }],
        reason: 'SHORT_PICK',
      },
    ]);
    expect((await setup.tenant.api.get('/orders/SHORT-2')).body.data.hasIssues).toBe(false);
  });

  it('refuses picked lines that are not in the order or exceed the ordered quantity (400), changing nothing', async () => {
    await setup.tenant.api.post('/orders', order('LINES-1', [item('P1', 2)]));
    await floor.advance('LINES-1', 'start-picking');
    for (const lines of [[{ productExternalId: 'P2', pickedQuantity: 1 }], [{ productExternalId: 'P1', pickedQuantity: 3 }], [{ productExternalId: 'P1', pickedQuantity: -1 }], [{ productExternalId: 'P1', pickedQuantity: 1.5 }]]) {
      const response = await floor.post('/orders/LINES-1/complete-picking', { lines });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await setup.tenant.api.get('/orders/LINES-1')).body.data.status).toBe('IN_PICKING');
  });

  it('never takes stock below 0 through picking', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'ZERO', sku: 'SKU-ZERO', stock: 1 }]);
    await setup.tenant.api.post('/orders', order('NEG-1', [item('ZERO', 3)]));
    await floor.advance('NEG-1', 'start-picking', 'complete-picking');
    expect(await stockOf(setup.tenant, 'ZERO')).toBe(0);
  });

  describe('POST /products/{externalId}/stock', () => {
    it('sets or adjusts stock with product.stock_updated MANUAL_ADJUSTMENT', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'ADJ', sku: 'SKU-ADJ', stock: 5 }]);
      const set = await floor.post('/products/ADJ/stock', { stock: 8 });
      expect(set.status).toBe(200);
      expect(set.body.data).toMatchObject({ externalId: 'ADJ', sku: 'SKU-ADJ', previousStock: 5, stock: 8 });
      const delta = await floor.post('/products/ADJ/stock', { delta: -3 });
      expect(delta.body.data).toMatchObject({ previousStock: 8, stock: 5 });
      const events = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).filter((e) => e.data.sku === 'SKU-ADJ');
      expect(events.map((e) => e.data)).toEqual([
        { productId: set.body.data.productId, sku: 'SKU-ADJ', previousStock: 5, newStock: 8, reason: 'MANUAL_ADJUSTMENT' },
        { productId: set.body.data.productId, sku: 'SKU-ADJ', previousStock: 8, newStock: 5, reason: 'MANUAL_ADJUSTMENT' },
      ]);
    });

    it('refuses a delta below 0 (409), a negative stock or both/neither fields (400), an unknown product (404)', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'ADJ2', sku: 'SKU-ADJ2', stock: 2 }]);
      expect((await floor.post('/products/ADJ2/stock', { delta: -3 })).status).toBe(409);
      expect((await floor.post('/products/ADJ2/stock', { stock: -1 })).status).toBe(400);
      expect((await floor.post('/products/ADJ2/stock', { stock: 1, delta: 1 })).status).toBe(400);
      expect((await floor.post('/products/ADJ2/stock', {})).status).toBe(400);
      expect((await floor.post('/products/NOPE/stock', { stock: 1 })).status).toBe(404);
      expect(await stockOf(setup.tenant, 'ADJ2')).toBe(2);
    });

    it('bounds stock to 1,000,000,000: a larger stock or delta is a 400 naming it, a delta beyond it a 409', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'ADJ3', sku: 'SKU-ADJ3', stock: 2 }]);
      for (const [body, field] of [
        [{ stock: 1_000_000_001 }, 'stock'],
        [{ delta: 1.8e19 }, 'delta'],
        [{ delta: -1_000_000_001 }, 'delta'],
      ] as const) {
        const response = await floor.post('/products/ADJ3/stock', body);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
      }
      const beyond = await floor.post('/products/ADJ3/stock', { delta: 999_999_999 });
      expect(beyond.status).toBe(409);
      expect(await stockOf(setup.tenant, 'ADJ3')).toBe(2);
      expect((await floor.post('/products/ADJ3/stock', { delta: 999_999_998 })).body.data.stock).toBe(1_000_000_000);
    });
  });

  it('PUT /locations sets the known location codes; products with other codes get a warning', async () => {
    const response = await floor.put('/locations', { codes: ['A-01', 'B-02', 'A-01'] });
    expect(response.status).toBe(200);
    expect(response.body.data.codes).toEqual(['A-01', 'B-02']);
    expect((await floor.get('/locations')).body.data.codes).toEqual(['A-01', 'B-02']);
    expect((await floor.put('/locations', { codes: ['bad code'] })).status).toBe(400);
    const known = await setup.tenant.api.post('/products', { externalId: 'LOC-1', sku: 'SKU-LOC-1', name: 'x', locationCode: 'A-01' });
    expect(known.body.warnings ?? []).toEqual([]);
    const unknown = await setup.tenant.api.post('/products', { externalId: 'LOC-2', sku: 'SKU-LOC-2', name: 'x', locationCode: 'Z-99' });
    expect(unknown.body.warnings).toHaveLength(1);
  });

  it('of 20 concurrent start-picking calls on one order exactly one wins, with one event', async () => {
    await setup.tenant.api.post('/orders', order('RACE-1', [item('P1')]));
    const responses = await Promise.all(Array.from({ length: 20 }, () => floor.post('/orders/RACE-1/start-picking')));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await statusEvents('RACE-1')).toHaveLength(1);
  });
});
