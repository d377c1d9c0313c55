import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { eventsOf, item, order, stockOf, warehouse } from '../orders/helpers';
import { clearPool, seedPlacedProducts, useFloor } from './helpers';

const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'A-05', aisle: 1, position: 5 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'C-08', aisle: 3, position: 8 },
];

const PRODUCTS = [
  { externalId: 'SHOE', locationCode: 'A-01', barcode: '4006381333931' },
  { externalId: 'HAT', locationCode: 'A-01' },
  { externalId: 'SOCK', locationCode: 'B-03' },
  { externalId: 'COAT', locationCode: 'C-08' },
  { externalId: 'LOOSE' },
  { externalId: 'DOCKED', locationCode: 'DOCK-1' },
  { externalId: 'LOST', locationCode: 'Q-99' },
];

interface WaveLine {
  orderExternalId: string;
  tote: number;
  productExternalId: string;
  quantity: number;
  pickedQuantity: number | null;
}
interface Wave {
  id: string;
  status: string;
  policy: string;
  distance: number;
  sShapeDistance: number;
  orders: { externalId: string; orderNumber: string; tote: number }[];
  stops: { seq: number; locationCode: string; aisle: number; position: number; lines: WaveLine[] }[];
  unplaced: WaveLine[];
}

const linesOf = (wave: Wave) => [...wave.stops.flatMap((stop) => stop.lines), ...wave.unplaced];

describe('floor: waves', () => {
  const setup = useFloor({ locations: LOCATIONS, codes: ['DOCK-1'], products: PRODUCTS });

  let orders = 0;
  /** A new PENDING order of the given items (productExternalId → quantity). */
  async function placeOrder(items: Record<string, number>, extra: Record<string, unknown> = {}): Promise<string> {
    const externalId = `W-${++orders}`;
    const response = await setup.tenant.api.post('/orders', order(externalId, Object.entries(items).map(([id, quantity]) => item(id, quantity)), extra));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return externalId;
  }
  const statusOf = async (externalId: string) => (await setup.tenant.api.get(`/orders/${externalId}`)).body.data.status;
  const pick = (wave: string, orderExternalId: string, productExternalId: string, quantity: number, reason?: string) =>
    setup.floor.post(`/waves/${wave}/picks`, { orderExternalId, productExternalId, quantity, ...(reason ? { reason } : {}) });

  it('makes a wave of the named orders: totes in order, stops by location in walking order, unplaced lines last', async () => {
    const first = await placeOrder({ SHOE: 2, SOCK: 1, LOOSE: 1 });
    const second = await placeOrder({ HAT: 1, SHOE: 1, COAT: 3, DOCKED: 1, LOST: 2 });
    const response = await setup.floor.post('/waves', { orders: [first, second] });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const wave: Wave = response.body.data;
    expect(wave).toMatchObject({ status: 'PICKING', policy: 'optimal', distance: expect.any(Number), sShapeDistance: expect.any(Number), createdAt: expect.any(String) });
    expect(wave.orders).toEqual([
      { externalId: first, orderNumber: `N-${first}`, tote: 1 },
      { externalId: second, orderNumber: `N-${second}`, tote: 2 },
    ]);
    expect(wave.stops.map((stop) => stop.seq)).toEqual([1, 2, 3]);
    expect(wave.stops.map((stop) => [stop.locationCode, stop.aisle, stop.position]).sort()).toEqual([
      ['A-01', 1, 1],
      ['B-03', 2, 3],
      ['C-08', 3, 8],
    ]);
    const a01 = wave.stops.find((stop) => stop.locationCode === 'A-01')!;
    // Both products of A-01, by tote.
    expect(a01.lines.map((line) => [line.orderExternalId, line.tote, line.productExternalId])).toEqual([
      [first, 1, 'SHOE'],
      [second, 2, 'HAT'],
      [second, 2, 'SHOE'],
    ]);
    expect(a01.lines[0]).toEqual({
      orderExternalId: first,
      tote: 1,
      productExternalId: 'SHOE',
      productSku: 'SKU-SHOE',
      barcode: '4006381333931',
      packagings: [],
      name: 'Product SHOE',
      quantity: 2,
      orderedQuantity: 2,
      lot: null,
      expiresOn: null,
      next: null,
      pickedQuantity: null,
      reason: null,
    });
    // No location code, a code without a place, an unknown code: all still picked, after the route.
    expect(wave.unplaced.map((line) => [line.orderExternalId, line.productExternalId])).toEqual([
      [first, 'LOOSE'],
      [second, 'DOCKED'],
      [second, 'LOST'],
    ]);
    expect(await statusOf(first)).toBe('IN_PICKING');
    const moved = (await eventsOf(setup.ctx, setup.tenant, 'order.status_changed')).filter((e) => [first, second].includes(e.data.externalId!));
    expect(moved.map((e) => [e.data.externalId, e.data.previousStatus, e.data.status])).toEqual([
      [first, 'PENDING', 'IN_PICKING'],
      [second, 'PENDING', 'IN_PICKING'],
    ]);
    expect((await setup.floor.get(`/waves/${wave.id}`)).body.data).toEqual(wave);
  });

  it('picks (one short), then completes: orders PICKED, stock drops by what was picked, the short line adjusts its order', async () => {
    await clearPool(setup);
    const first = await placeOrder({ SHOE: 2, SOCK: 1 });
    const second = await placeOrder({ SHOE: 1, LOOSE: 4 });
    const wave: Wave = (await setup.floor.post('/waves', { orders: [first, second], policy: 's-shape' })).body.data;
    expect(wave.policy).toBe('s-shape');
    expect(wave.distance).toBe(wave.sShapeDistance);
    const stock = { SHOE: await stockOf(setup.tenant, 'SHOE'), SOCK: await stockOf(setup.tenant, 'SOCK'), LOOSE: await stockOf(setup.tenant, 'LOOSE') };
    const eventsBefore = (await eventsOf(setup.ctx, setup.tenant)).length;

    expect((await pick(wave.id, first, 'SHOE', 2)).status).toBe(200);
    expect((await pick(wave.id, first, 'SOCK', 0, 'not found')).status).toBe(200);
    expect((await pick(wave.id, second, 'SHOE', 1)).status).toBe(200);
    const missing = await setup.floor.post(`/waves/${wave.id}/complete`);
    expect(missing.status).toBe(409);
    expect(missing.body.error.code).toBe('PICKS_MISSING');
    expect(missing.body.error.details).toEqual([{ field: 'unplaced[0]', message: expect.stringContaining(`order ${second}, product LOOSE`) }]);
    expect(await statusOf(first)).toBe('IN_PICKING');

    const last = await pick(wave.id, second, 'LOOSE', 3, 'one torn');
    expect(last.status).toBe(200);
    expect(linesOf(last.body.data).map((line: WaveLine) => line.pickedQuantity).sort()).toEqual([0, 1, 2, 3]);
    // Repeatable: the last recorded quantity counts.
    expect((await pick(wave.id, second, 'LOOSE', 4)).status).toBe(200);
    const completed = await setup.floor.post(`/waves/${wave.id}/complete`);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body.data.status).toBe('COMPLETED');
    expect(await statusOf(first)).toBe('PICKED');
    expect(await statusOf(second)).toBe('PICKED');
    expect(await stockOf(setup.tenant, 'SHOE')).toBe(stock.SHOE - 3);
    expect(await stockOf(setup.tenant, 'SOCK')).toBe(stock.SOCK);
    expect(await stockOf(setup.tenant, 'LOOSE')).toBe(stock.LOOSE - 4);
    expect((await setup.tenant.api.get(`/orders/${first}`)).body.data.items).toEqual([
      { productExternalId: 'SHOE', productSku: 'SKU-SHOE', quantity: 2 },
      { productExternalId: 'SOCK', productSku: 'SKU-SOCK', quantity: 0 },
    ]);

    const events = (await eventsOf(setup.ctx, setup.tenant)).slice(eventsBefore);
    const stockEvents = events.filter((e) => e.event === 'product.stock_updated').map((e) => [e.data.sku, e.data.previousStock, e.data.newStock, e.data.reason]);
    expect(stockEvents).toEqual([
      ['SKU-SHOE', stock.SHOE, stock.SHOE - 2, 'ORDER_PICKED'],
      ['SKU-SHOE', stock.SHOE - 2, stock.SHOE - 3, 'ORDER_PICKED'],
      ['SKU-LOOSE', stock.LOOSE, stock.LOOSE - 4, 'ORDER_PICKED'],
    ]);
    expect(events.filter((e) => e.event === 'order.items_adjusted').map((e) => e.data)).toEqual([
      {
        externalId: first,
        orderNumber: `N-${first}`,
        status: 'PICKED',
        items: [{ productExternalId: 'SOCK', productSku: 'SKU-SOCK', previousQuantity: 1, quantity: 0 }],
        reason: 'SHORT_PICK',
      },
    ]);
    expect(events.filter((e) => e.event === 'order.status_changed').map((e) => [e.data.externalId, e.data.status])).toEqual([
      [first, 'PICKED'],
      [second, 'PICKED'],
    ]);
    // The wave keeps what was ordered and what was picked.
    const shown: Wave = (await setup.floor.get(`/waves/${wave.id}`)).body.data;
    expect(linesOf(shown).find((line) => line.productExternalId === 'SOCK')).toMatchObject({ quantity: 1, pickedQuantity: 0 });
    // A finished wave changes no more.
    for (const path of ['complete', 'release']) expect((await setup.floor.post(`/waves/${wave.id}/${path}`)).status).toBe(409);
    expect((await pick(wave.id, first, 'SHOE', 1)).status).toBe(409);
  });

  it('a short pick in a wave frees stock for an order waiting on it, as complete-picking does', async () => {
    await clearPool(setup);
    await seedPlacedProducts(setup.tenant, [{ externalId: 'RARE', locationCode: 'B-03', stock: 2 }]);
    const holder = await placeOrder({ RARE: 2 });
    const waiting = await placeOrder({ RARE: 1 });
    expect((await setup.tenant.api.get(`/orders/${waiting}`)).body.data.hasIssues).toBe(true);
    const wave: Wave = (await setup.floor.post('/waves', { orders: [holder] })).body.data;
    await pick(wave.id, holder, 'RARE', 1, 'one broken');
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    expect(await stockOf(setup.tenant, 'RARE')).toBe(1);
    const resolved = (await setup.tenant.api.get(`/orders/${waiting}`)).body.data;
    expect(resolved).toMatchObject({ status: 'PENDING', hasIssues: false });
  });

  it('a wave completed while complete-picking runs on one of its orders: the order is picked once', async () => {
    await clearPool(setup);
    const racing = await placeOrder({ COAT: 2 });
    const other = await placeOrder({ SOCK: 1 });
    const wave: Wave = (await setup.floor.post('/waves', { orders: [racing, other] })).body.data;
    await pick(wave.id, racing, 'COAT', 2);
    await pick(wave.id, other, 'SOCK', 1);
    const coat = await stockOf(setup.tenant, 'COAT');
    const [byWave, alone] = await Promise.all([setup.floor.post(`/waves/${wave.id}/complete`), setup.floor.post(`/orders/${racing}/complete-picking`)]);
    // Whichever comes second finds the order PICKED: complete-picking answers 409; the wave skips
    // it (200), or answers 409 when it read the order just before, and completes when asked again.
    expect([200, 409]).toContain(byWave.status);
    expect([200, 409]).toContain(alone.status);
    expect([byWave.status, alone.status]).not.toEqual([409, 409]);
    if (byWave.status === 409) expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    expect(await stockOf(setup.tenant, 'COAT')).toBe(coat - 2);
    expect([await statusOf(racing), await statusOf(other)]).toEqual(['PICKED', 'PICKED']);
    const picked = (await eventsOf(setup.ctx, setup.tenant, 'order.status_changed')).filter((e) => e.data.externalId === racing && e.data.status === 'PICKED');
    expect(picked).toHaveLength(1);
  });

  it('refuses bad picks: more than ordered (400), an unknown line or wave (404), changing nothing', async () => {
    await clearPool(setup);
    const id = await placeOrder({ COAT: 2 });
    const wave: Wave = (await setup.floor.post('/waves', { orders: [id] })).body.data;
    const tooMany = await pick(wave.id, id, 'COAT', 3);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details).toEqual([{ field: 'quantity', message: 'must be at most the ordered 2' }]);
    expect((await pick(wave.id, id, 'SHOE', 1)).status).toBe(404);
    expect((await pick(wave.id, 'NO-SUCH-ORDER', 'COAT', 1)).status).toBe(404);
    expect((await pick('00000000-0000-4000-8000-000000000000', id, 'COAT', 1)).status).toBe(404);
    expect((await setup.floor.get('/waves/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await setup.floor.post('/waves/00000000-0000-4000-8000-000000000000/complete')).status).toBe(404);
    expect((await setup.floor.get('/waves/not-a-uuid')).status).toBe(400);
    expect((await setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: id, productExternalId: 'COAT', quantity: -1 })).status).toBe(400);
    expect(linesOf((await setup.floor.get(`/waves/${wave.id}`)).body.data).map((line) => line.pickedQuantity)).toEqual([null]);
  });

  it('release sends the orders not picked back to PENDING, keeps stock, and the orders can join another wave', async () => {
    await clearPool(setup);
    const a = await placeOrder({ SOCK: 1 });
    const b = await placeOrder({ COAT: 1 });
    const wave: Wave = (await setup.floor.post('/waves', { orders: [a, b] })).body.data;
    await pick(wave.id, a, 'SOCK', 1);
    const stock = await stockOf(setup.tenant, 'SOCK');
    const released = await setup.floor.post(`/waves/${wave.id}/release`);
    expect(released.status).toBe(200);
    expect(released.body.data.status).toBe('RELEASED');
    expect([await statusOf(a), await statusOf(b)]).toEqual(['PENDING', 'PENDING']);
    expect(await stockOf(setup.tenant, 'SOCK')).toBe(stock);
    const back = (await eventsOf(setup.ctx, setup.tenant, 'order.status_changed')).filter((e) => [a, b].includes(e.data.externalId!)).slice(-2);
    expect(back.map((e) => [e.data.previousStatus, e.data.status])).toEqual([
      ['IN_PICKING', 'PENDING'],
      ['IN_PICKING', 'PENDING'],
    ]);
    expect((await setup.floor.post(`/waves/${wave.id}/release`)).status).toBe(409);
    const again = await setup.floor.post('/waves', { orders: [b, a] });
    expect(again.status).toBe(201);
    expect(again.body.data.orders.map((o: { tote: number }) => o.tote)).toEqual([1, 2]);
  });

  it('an order completed with complete-picking while in a wave leaves it: picks for it 409, the wave completes without it', async () => {
    await clearPool(setup);
    const inside = await placeOrder({ SOCK: 1 });
    const outside = await placeOrder({ COAT: 2 });
    const wave: Wave = (await setup.floor.post('/waves', { orders: [inside, outside] })).body.data;
    const coat = await stockOf(setup.tenant, 'COAT');
    await setup.floor.advance(outside, 'complete-picking');
    expect(await stockOf(setup.tenant, 'COAT')).toBe(coat - 2);
    const late = await pick(wave.id, outside, 'COAT', 2);
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('PICKED');
    await pick(wave.id, inside, 'SOCK', 1);
    const completed = await setup.floor.post(`/waves/${wave.id}/complete`);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(await stockOf(setup.tenant, 'COAT')).toBe(coat - 2);
    expect([await statusOf(inside), await statusOf(outside)]).toEqual(['PICKED', 'PICKED']);

    // And on release it stays where the warehouse put it.
    const c = await placeOrder({ SOCK: 1 });
    const d = await placeOrder({ COAT: 1 });
    const second: Wave = (await setup.floor.post('/waves', { orders: [c, d] })).body.data;
    await setup.floor.advance(d, 'complete-picking', 'pack');
    expect((await setup.floor.post(`/waves/${second.id}/release`)).status).toBe(200);
    expect([await statusOf(c), await statusOf(d)]).toEqual(['PENDING', 'PACKED']);
  });

  it('refuses named orders that cannot join: not PENDING or with issues (409), unknown (404), named twice (400)', async () => {
    await clearPool(setup);
    const picking = await placeOrder({ SOCK: 1 });
    await setup.floor.advance(picking, 'start-picking');
    const short = await placeOrder({ SOCK: 100_000 });
    const fine = await placeOrder({ COAT: 1 });
    const unresolved = 'W-UNRESOLVED';
    await setup.tenant.api.post('/orders', order(unresolved, [item('NOT-IN-CATALOG')]));
    const eventsBefore = (await eventsOf(setup.ctx, setup.tenant)).length;
    for (const named of [[fine, picking], [short], [unresolved]]) {
      const response = await setup.floor.post('/waves', { orders: named });
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
    }
    const unknown = await setup.floor.post('/waves', { orders: [fine, 'NOPE'] });
    expect(unknown.status).toBe(404);
    const twice = await setup.floor.post('/waves', { orders: [fine, fine] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details[0]?.field).toBe('orders[1]');
    expect(await statusOf(fine)).toBe('PENDING');
    expect((await eventsOf(setup.ctx, setup.tenant)).length).toBe(eventsBefore);
    expect((await setup.floor.post('/waves', { maxOrders: 0 })).status).toBe(400);
    expect((await setup.floor.post('/waves', { policy: 'zigzag' })).status).toBe(400);
  });

  it('chooses the most urgent PENDING orders without issues: priority, then due date, then age', async () => {
    await clearPool(setup);
    const low = await placeOrder({ SOCK: 1 }, { priority: 'low' });
    const none = await placeOrder({ SOCK: 1 });
    const highLate = await placeOrder({ SOCK: 1 }, { priority: 'high', dueDate: '2030-01-02T00:00:00Z' });
    const highSoon = await placeOrder({ SOCK: 1 }, { priority: 'high', dueDate: '2030-01-01T00:00:00Z' });
    const highNoDate = await placeOrder({ SOCK: 1 }, { priority: 'high' });
    const urgent = await placeOrder({ SOCK: 1 }, { priority: 'urgent' });
    await placeOrder({ SOCK: 100_000 }, { priority: 'urgent' });
    const chosen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await setup.floor.post('/waves', { maxOrders: 1 });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      chosen.push(...response.body.data.orders.map((o: { externalId: string }) => o.externalId));
    }
    expect(chosen).toEqual([urgent, highSoon, highLate, highNoDate, none, low]);
    const nothing = await setup.floor.post('/waves', {});
    expect(nothing.status).toBe(409);
    expect(nothing.body.error.code).toBe('NOTHING_TO_PICK');
  });

  it('keeps a chosen wave within maxOrders and maxItems', async () => {
    await clearPool(setup);
    for (let i = 0; i < 6; i++) await placeOrder({ SOCK: 3 });
    const response = await setup.floor.post('/waves', { maxOrders: 5, maxItems: 10 });
    expect(response.status).toBe(201);
    const wave: Wave = response.body.data;
    expect(wave.orders.length).toBeGreaterThan(0);
    expect(wave.orders.length).toBeLessThanOrEqual(3);
    expect(linesOf(wave).reduce((sum, line) => sum + line.quantity, 0)).toBeLessThanOrEqual(10);
    const defaults = await setup.floor.post('/waves');
    expect(defaults.status).toBe(201);
  });

  it('lists waves by status, oldest first, a page at a time', async () => {
    await clearPool(setup);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await setup.floor.post('/waves', { orders: [await placeOrder({ COAT: 1 })] })).body.data.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const after: string = cursor ? `&cursor=${cursor}` : '';
      const page = await setup.floor.get(`/waves?status=PICKING&limit=2${after}`);
      expect(page.status).toBe(200);
      expect(page.body.pagination.total).toBe(3);
      seen.push(...page.body.data.map((wave: Wave) => wave.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const released = (await setup.floor.get('/waves?status=RELEASED&limit=100')).body.data as Wave[];
    expect(released.every((wave) => wave.status === 'RELEASED')).toBe(true);
    expect(released.length).toBeGreaterThan(0);
    expect((await setup.floor.get('/waves?cursor=bogus')).status).toBe(400);
    expect((await setup.floor.get('/waves?status=DONE')).status).toBe(400);
  });

  it("needs a layout (409), answers 404 for an unknown setup.tenant, and never shows or changes another setup.tenant's wave", async () => {
    const bare = await setup.ctx.tenant(UNLIMITED);
    const other = warehouse(setup.ctx, bare);
    const response = await other.post('/waves', {});
    expect(response.status).toBe(409);
    expect(response.body.error.message).toContain('PUT /layout');
    const id = await placeOrder({ COAT: 1 });
    const wave: Wave = (await setup.floor.post('/waves', { orders: [id] })).body.data;
    expect((await other.get(`/waves/${wave.id}`)).status).toBe(404);
    expect((await other.post(`/waves/${wave.id}/picks`, { orderExternalId: id, productExternalId: 'COAT', quantity: 1 })).status).toBe(404);
    expect((await other.post(`/waves/${wave.id}/release`)).status).toBe(404);
    expect((await other.get('/waves')).body.pagination.total).toBe(0);
    expect((await setup.floor.get(`/waves/${wave.id}`)).body.data.status).toBe('PICKING');
    expect((await setup.ctx.admin('POST', '/api/v1/warehouse/tenants/no-such-setup.tenant/waves', {})).status).toBe(404);
  });
});
