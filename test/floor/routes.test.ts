import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
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
