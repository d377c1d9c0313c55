import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { item, order, warehouse } from '../orders/helpers';
import { signedIn } from '../console/helpers';
import { clearPool, useFloor } from './helpers';

const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'A-09', aisle: 1, position: 9 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'D-10', aisle: 4, position: 10 },
];
const PRODUCTS = [
  { externalId: 'NEAR', locationCode: 'A-01' },
  { externalId: 'MID', locationCode: 'A-09' },
  { externalId: 'SIDE', locationCode: 'B-03' },
  { externalId: 'FAR', locationCode: 'D-10' },
];

describe('floor: the plan of carts (GET /waves/plan) and waves taken from it', () => {
  const setup = useFloor({ locations: LOCATIONS, products: PRODUCTS });

  let orders = 0;
  async function placeOrder(items: Record<string, number>, extra: Record<string, unknown> = {}): Promise<string> {
    const externalId = `PL-${++orders}`;
    const response = await setup.tenant.api.post('/orders', order(externalId, Object.entries(items).map(([id, quantity]) => item(id, quantity)), extra));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return externalId;
  }
  /** The plan; `query` sets the limits (`maxOrders=2&maxItems=5`). */
  async function planOf(query = '') {
    const response = await setup.floor.get(`/waves/plan?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  }
  const externalIds = (cart: { orders: { externalId: string }[] }) => cart.orders.map((o) => o.externalId);
  it('plans every pool order once, within the limits; POST /waves then takes the first cart, and the plan is made again without it', async () => {
    const placed = [
      await placeOrder({ NEAR: 2 }),
      await placeOrder({ FAR: 1 }, { priority: 'high', dueDate: '2030-01-01T00:00:00Z' }),
      await placeOrder({ SIDE: 3, NEAR: 1 }),
      await placeOrder({ FAR: 2, MID: 1 }),
      await placeOrder({ MID: 1 }),
    ];
    const plan = await planOf('maxOrders=2&maxItems=5');
    expect(plan.poolSize).toBe(5);
    expect(plan.carts.flatMap(externalIds).sort()).toEqual([...placed].sort());
    for (const cart of plan.carts) {
      expect(cart.orders.length).toBeLessThanOrEqual(2);
      expect(cart.units).toBe(cart.orders.reduce((sum, o) => sum + o.units, 0));
      expect(cart.units).toBeLessThanOrEqual(5);
      expect(cart.distance).toBeGreaterThan(0);
    }
    expect(plan.distance).toBeCloseTo(plan.carts.reduce((sum, cart) => sum + cart.distance, 0), 9);
    expect(plan.carts.flatMap((cart) => cart.orders).find((o) => o.externalId === placed[1])).toEqual({
      externalId: placed[1],
      orderNumber: `N-${placed[1]}`,
      priority: 'high',
      dueDate: '2030-01-01T00:00:00.000Z',
      units: 1,
    });

    const wave = await setup.floor.post('/waves', { maxOrders: 2, maxItems: 5 });
    expect(wave.status, JSON.stringify(wave.body)).toBe(201);
    expect(wave.body.data.orders.map((o: { externalId: string }) => o.externalId)).toEqual(externalIds(plan.carts[0]!));
    // Only a cart left the pool: the plan is kept, the next cart is the one planned second.
    const kept = await planOf('maxOrders=2&maxItems=5');
    expect(kept.carts).toEqual(plan.carts.slice(1));
    expect(kept.greedyDistance).toBeNull();
    // The taken cart left the pool, a new order joined it, a cancelled one left it.
    const arrived = await placeOrder({ SIDE: 1 });
    const cancelled = placed.find((id) => !externalIds(plan.carts[0]!).includes(id))!;
    expect((await setup.tenant.api.post(`/orders/${cancelled}/cancel`)).status).toBe(200);
    const next = await planOf('maxOrders=2&maxItems=5');
    const expected = placed.filter((id) => id !== cancelled && !externalIds(plan.carts[0]!).includes(id));
    expect(next.carts.flatMap(externalIds).sort()).toEqual([...expected, arrived].sort());
    expect(next.poolSize).toBe(expected.length + 1);
  });

  it('uses the limits of POST /waves by default (8 orders, 40 units), and an empty pool plans no cart', async () => {
    await clearPool(setup);
    expect(await planOf()).toEqual({ carts: [], distance: 0, greedyDistance: 0, urgencyCost: 0, poolSize: 0, held: [] });
    for (let i = 0; i < 9; i++) await placeOrder({ NEAR: 1 });
    await placeOrder({ MID: 35 });
    const plan = await planOf();
    expect(plan).toEqual(await planOf('maxOrders=8&maxItems=40'));
    expect(plan.carts.every((cart) => cart.orders.length <= 8 && cart.units <= 40)).toBe(true);
    expect(plan.carts.length).toBeGreaterThan(1);
  });

  it('puts an urgent order in the first cart, however new and far it is, and the wave takes it', async () => {
    await clearPool(setup);
    for (let i = 0; i < 4; i++) await placeOrder({ NEAR: 1 }, { dueDate: '2030-01-01T00:00:00Z' });
    const urgent = await placeOrder({ FAR: 1 }, { priority: 'urgent' });
    const plan = await planOf('maxOrders=3');
    expect(externalIds(plan.carts[0]!)).toContain(urgent);
    const wave = await setup.floor.post('/waves', { maxOrders: 3 });
    expect(wave.body.data.orders.map((o: { externalId: string }) => o.externalId)).toContain(urgent);
  });

  it('says what putting urgency first costs in walking: here an urgent order across the floor rides with the other urgent one', async () => {
    await clearPool(setup);
    const first = await placeOrder({ SIDE: 1 }, { priority: 'urgent' });
    await placeOrder({ SIDE: 1 }, { priority: 'low' });
    const far = await placeOrder({ FAR: 1 }, { priority: 'urgent' });
    const plan = await planOf('maxOrders=2');
    expect(externalIds(plan.carts[0]!).sort()).toEqual([first, far].sort());
    // Where only walking decided, the two orders at B-03 would share a cart and the far one go alone.
    const walk = async (locations: string[]) => (await setup.floor.post('/routes', { locations })).body.data.distance as number;
    const [both, side, alone] = [await walk(['B-03', 'D-10']), await walk(['B-03']), await walk(['D-10'])];
    expect(plan.distance).toBeCloseTo(both + side, 9);
    expect(both + side).toBeGreaterThan(side + alone);
    expect(plan.urgencyCost).toBeCloseTo(both + side - (side + alone), 9);
    // Equally urgent orders cost nothing.
    await clearPool(setup);
    await placeOrder({ SIDE: 1 });
    await placeOrder({ FAR: 1 });
    expect((await planOf('maxOrders=2')).urgencyCost).toBe(0);
  });

  it('refuses limits out of range with 400 naming the field, and answers 409 without a layout as POST /waves does', async () => {
    for (const [query, field] of [
      ['maxItems=0', 'maxItems'],
      ['maxItems=many', 'maxItems'],
      ['maxOrders=101', 'maxOrders'],
    ] as const) {
      const response = await setup.floor.get(`/waves/plan?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(response.body.error.details), query).toContain(field);
    }
    const bare = warehouse(setup.ctx, await setup.ctx.tenant(UNLIMITED));
    const plan = await bare.get('/waves/plan');
    const wave = await bare.post('/waves', {});
    expect(plan.status).toBe(409);
    expect(plan.body.error).toEqual(wave.body.error);
  });

  it("needs the admin token (401), answers 404 for an unknown tenant and never plans another tenant's orders", async () => {
    await clearPool(setup);
    const mine = await placeOrder({ NEAR: 1 });
    const url = `/api/v1/warehouse/tenants/${setup.tenant.slug}/waves/plan`;
    expect((await setup.ctx.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    expect((await setup.ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${setup.tenant.key}` } })).statusCode).toBe(401);
    expect((await setup.ctx.admin('GET', '/api/v1/warehouse/tenants/no-such-tenant/waves/plan')).status).toBe(404);
    const other = warehouse(setup.ctx, await setup.ctx.tenant(UNLIMITED));
    expect((await other.put('/layout', { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1 })).status).toBe(200);
    expect((await other.get('/waves/plan')).body.data).toEqual({ carts: [], distance: 0, greedyDistance: 0, urgencyCost: 0, poolSize: 0, held: [] });
    expect((await planOf()).carts.flatMap(externalIds)).toEqual([mine]);
  });

  it('shows the supervisor the same plan in the console; a picker is refused with 403, no session with 401', async () => {
    await clearPool(setup);
    await placeOrder({ NEAR: 1 });
    await placeOrder({ FAR: 2 });
    const supervisor = await signedIn(setup.ctx, setup.tenant, 'supervisor');
    const shown = await supervisor.get('/waves/plan');
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body.data).toEqual(await planOf());
    expect((await supervisor.get('/waves/plan?maxItems=0')).status).toBe(400);
    const picker = await signedIn(setup.ctx, setup.tenant, 'picker');
    expect((await picker.get('/waves/plan')).status).toBe(403);
    expect((await setup.ctx.app.inject({ method: 'GET', url: '/console/api/waves/plan' })).statusCode).toBe(401);
  });
});
