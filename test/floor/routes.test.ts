import { beforeAll, describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { sprpInstances } from '../helpers/sprp';
import { item, order, warehouse } from '../orders/helpers';
import { seedPlacedProducts, useFloor } from './helpers';

/*
 * On the test layout (aisles 3 apart, positions 1 apart, 2 from the cross aisles, depot in line
 * with aisle 1): A-01 stands at (0, 2), B-03 at (3, 4). The shortest walk to both and back goes up
 * and down aisle 1 (4), across (3), up and down aisle 2 (8) and back (3): 18.
 */
describe('floor: POST /routes', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
    ],
    codes: ['DOCK-1'],
  });

  it('walks each placed code once, shortest first by default; the others are unplaced, as sent', async () => {
    const response = await setup.floor.post('/routes', { locations: ['B-03', 'NOPE', 'A-01', 'B-03', 'DOCK-1'] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { data } = response.body;
    expect(data.policy).toBe('optimal');
    expect(data.distance).toBe(18);
    expect(data.exact).toBe(true);
    expect([...data.stops].sort((a: { locationCode: string }, b: { locationCode: string }) => a.locationCode.localeCompare(b.locationCode))).toEqual([
      { locationCode: 'A-01', aisle: 1, position: 1 },
      { locationCode: 'B-03', aisle: 2, position: 3 },
    ]);
    expect(data.unplaced).toEqual(['NOPE', 'DOCK-1']);
  });

  it('measures the walk under the policy asked for, never shorter than the optimal one', async () => {
    const optimal = (await setup.floor.post('/routes', { locations: ['B-03'] })).body.data;
    expect(optimal.distance).toBe(14);
    for (const policy of ['s-shape', 'return', 'midpoint', 'largest-gap', 'combined']) {
      const response = await setup.floor.post('/routes', { locations: ['B-03', 'A-01'], policy });
      expect(response.status).toBe(200);
      expect(response.body.data.policy).toBe(policy);
      expect(response.body.data.exact).toBe(false);
      expect(response.body.data.distance).toBeGreaterThanOrEqual(18);
    }
  });

  it('answers distance 0 and no stops when nothing is placed', async () => {
    const { data } = (await setup.floor.post('/routes', { locations: ['DOCK-1'] })).body;
    expect(data).toEqual({ policy: 'optimal', distance: 0, exact: true, stops: [], unplaced: ['DOCK-1'] });
  });

  it('refuses bad input with 400 and answers 409 without a layout', async () => {
    expect((await setup.floor.post('/routes', { locations: [] })).status).toBe(400);
    expect((await setup.floor.post('/routes', { locations: ['A-01'], policy: 'zigzag' })).status).toBe(400);
    expect((await setup.floor.post('/routes', { locations: ['bad code'] })).status).toBe(400);
    const bare = await setup.ctx.tenant(UNLIMITED);
    const response = await warehouse(setup.ctx, bare).post('/routes', { locations: ['A-01'] });
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('PUT /layout') });
  });

  it("gives a wave the same distances as a route through its locations", async () => {
    await seedPlacedProducts(setup.tenant, [
      { externalId: 'SOCK', locationCode: 'B-03' },
      { externalId: 'SHOE', locationCode: 'A-01' },
    ]);
    await setup.tenant.api.post('/orders', order('R-1', [item('SOCK'), item('SHOE')]));
    const wave = (await setup.floor.post('/waves', { orders: ['R-1'] })).body.data;
    expect(wave.distance).toBe(18);
    const sShape = (await setup.floor.post('/routes', { locations: ['A-01', 'B-03'], policy: 's-shape' })).body.data.distance;
    expect(wave.sShapeDistance).toBe(sShape);
  });

  it('documents every setup.floor route in the OpenAPI document, with a summary and its answers', async () => {
    const document = (await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/public/openapi.json' })).json();
    const prefix = '/api/v1/warehouse/tenants/{slug}';
    const expected = [
      ['put', '/layout'],
      ['get', '/layout'],
      ['put', '/locations'],
      ['get', '/locations'],
      ['post', '/routes'],
      ['put', '/slots'],
      ['get', '/slots'],
      ['get', '/slots/mismatches'],
      ['put', '/products/{externalId}/slots'],
      ['post', '/waves'],
      ['get', '/waves'],
      ['get', '/waves/{id}'],
      ['post', '/waves/{id}/picks'],
      ['post', '/waves/{id}/complete'],
      ['post', '/waves/{id}/release'],
    ];
    for (const [method, path] of expected) {
      const operation = document.paths[`${prefix}${path}`]?.[method!];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.summary).toEqual(expect.any(String));
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '404']));
    }
    expect(Object.keys(document.paths[`${prefix}/waves`].post.responses)).toEqual(expect.arrayContaining(['201', '409']));
  });
});

/*
 * Same floor: A-01 at (0, 2), B-03 at (3, 4), C-09 at (6, 10). SHOE has two slots, 2 at A-01 and 5
 * at C-09; SOCK has none and keeps its stock of 4 at its own location B-03.
 */
describe('floor: POST /routes with items', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
      { code: 'C-09', aisle: 3, position: 9 },
    ],
    codes: ['DOCK-1'],
    products: [
      { externalId: 'SHOE', stock: 7 },
      { externalId: 'SOCK', locationCode: 'B-03', stock: 4 },
      { externalId: 'HAT', stock: 9 },
      { externalId: 'CAP', locationCode: 'DOCK-1', stock: 9 },
    ],
  });
  beforeAll(async () => {
    const slots = [
      { locationCode: 'A-01', quantity: 2 },
      { locationCode: 'C-09', quantity: 5 },
    ];
    expect((await setup.floor.put('/products/SHOE/slots', { slots })).status).toBe(200);
  });

  it('takes each product from the slots of the shortest walk (here the nearer one); a product without slots from its own location, up to its stock', async () => {
    const response = await setup.floor.post('/routes', {
      items: [
        { productExternalId: 'SOCK', quantity: 3 },
        { productExternalId: 'SHOE', quantity: 2 },
        { productExternalId: 'HAT', quantity: 1 },
        { productExternalId: 'NOPE', quantity: 1 },
        { productExternalId: 'SOCK', quantity: 3 },
        { productExternalId: 'CAP', quantity: 1 },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { data } = response.body;
    expect(data.policy).toBe('optimal');
    expect(data.distance).toBe(18);
    expect([...data.stops].sort((a, b) => a.locationCode.localeCompare(b.locationCode))).toEqual([
      { locationCode: 'A-01', aisle: 1, position: 1, picks: [{ productExternalId: 'SHOE', quantity: 2 }] },
      { locationCode: 'B-03', aisle: 2, position: 3, picks: [{ productExternalId: 'SOCK', quantity: 4 }] },
    ]);
    expect(data.short).toEqual([{ productExternalId: 'SOCK', quantity: 2 }]);
    expect(data.unplaced).toEqual(['HAT', 'NOPE', 'CAP']);
  });

  it('goes on to the farther slot for what the nearer one cannot cover', async () => {
    const { data } = (await setup.floor.post('/routes', { items: [{ productExternalId: 'SHOE', quantity: 6 }], policy: 's-shape' })).body;
    expect(data.policy).toBe('s-shape');
    expect(data.stops.map((stop) => [stop.locationCode, stop.picks])).toEqual([
      ['A-01', [{ productExternalId: 'SHOE', quantity: 2 }]],
      ['C-09', [{ productExternalId: 'SHOE', quantity: 4 }]],
    ]);
    expect(data.short).toEqual([]);
    expect(data.unplaced).toEqual([]);
  });

  it('refuses a quantity of 0, fractional or negative with 400 naming it, and anything but one of locations and items', async () => {
    for (const quantity of [0, 1.5, -2]) {
      const response = await setup.floor.post('/routes', { items: [{ productExternalId: 'SHOE', quantity: 1 }, { productExternalId: 'SOCK', quantity }] });
      expect(response.status, `${quantity}`).toBe(400);
      expect(response.body.error.details?.[0]?.field).toBe('items[1].quantity');
    }
    const both = await setup.floor.post('/routes', { locations: ['A-01'], items: [{ productExternalId: 'SHOE', quantity: 1 }] });
    expect(both.status).toBe(400);
    expect(both.body.error.details?.[0]?.field).toBe('items');
    const neither = await setup.floor.post('/routes', { policy: 'optimal' });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details?.[0]?.field).toBe('locations');
    expect((await setup.floor.post('/routes', { items: [] })).status).toBe(400);
  });
});

/*
 * Heßler & Irnich's largest two-block class: 50 aisles of 180 cells, 30 articles at about 29 cells
 * each. The search does not prove it within its allowance: the answer is the best walk it found.
 */
describe('floor: POST /routes with items past the search allowance', () => {
  const setup = useFloor();
  const instance = sprpInstances(2).find(({ name }) => name === 'unit_F10_m50_C180_a30_0.txt')!;

  beforeAll(async () => {
    expect((await setup.floor.put('/layout', instance.layout)).status).toBe(200);
    const locations = new Map(instance.needs.flatMap((need) => need.slots.map(({ place }) => [place.code, place] as const)));
    expect((await setup.floor.put('/locations', { locations: [...locations.values()] })).status).toBe(200);
    for (const need of instance.needs) {
      const stock = need.slots.reduce((sum, slot) => sum + slot.quantity, 0);
      expect((await setup.tenant.api.post('/products', { externalId: need.item, sku: need.item, name: need.item, stock })).status).toBe(201);
      const slots = need.slots.map(({ place, quantity }) => ({ locationCode: place.code, quantity }));
      expect((await setup.floor.put(`/products/${need.item}/slots`, { slots })).status).toBe(200);
    }
  }, 120_000);

  it('answers 200 with the best walk found, exact false, covering every item and never shorter than the published optimum', async () => {
    const response = await setup.floor.post('/routes', { items: instance.needs.map((need) => ({ productExternalId: need.item, quantity: need.quantity })) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { data } = response.body;
    expect(data.exact).toBe(false);
    expect(data.short).toEqual([]);
    expect(data.distance).toBeGreaterThanOrEqual(instance.optimum);
    const picked = new Map<string, number>();
    for (const stop of data.stops) for (const pick of stop.picks ?? []) picked.set(pick.productExternalId, (picked.get(pick.productExternalId) ?? 0) + pick.quantity);
    expect(Object.fromEntries(picked)).toEqual(Object.fromEntries(instance.needs.map((need) => [need.item, need.quantity])));
  }, 60_000);
});
