import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { ConsoleClient, signedIn } from '../console/helpers';
import { item, order, warehouse } from '../orders/helpers';
import { completeWaveOf, useFloor } from './helpers';

/*
 * BUSY is what every wave picks, and stands at D-10, the far corner from the depot (aisle 1);
 * QUIET stands at A-01 by the depot and no wave picks it. SLOTTED is kept at a slot (B-05) and
 * never moves. The proposal exchanges BUSY and QUIET.
 */
const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'B-05', aisle: 2, position: 5 },
  { code: 'C-02', aisle: 3, position: 2 },
  { code: 'D-10', aisle: 4, position: 10 },
];
const PRODUCTS = [
  { externalId: 'BUSY', locationCode: 'D-10' },
  { externalId: 'QUIET', locationCode: 'A-01' },
  { externalId: 'MIDDLE', locationCode: 'C-02' },
  { externalId: 'SLOTTED', locationCode: 'C-02' },
];

describe('floor: slotting proposals', () => {
  const setup = useFloor({ locations: LOCATIONS, products: PRODUCTS });

  let orders = 0;
  /** A wave of one order per list of lines, every line picked in full, completed. */
  async function completedWave(...lines: [string, number][][]) {
    const ids: string[] = [];
    for (const items of lines) {
      const id = `SL-${++orders}`;
      expect((await setup.tenant.api.post('/orders', order(id, items.map(([product, quantity]) => item(product, quantity))))).status).toBe(201);
      ids.push(id);
    }
    await completeWaveOf(setup.floor, ids);
  }
  const locationOf = async (externalId: string) => (await setup.tenant.api.get(`/products/${externalId}`)).body.data.locationCode;
  const routeLength = async (locations: string[]) => (await setup.floor.post('/routes', { locations })).body.data.distance;

  it('replays the orders planned into carts again, proposes the exchange that shortens them, and applies it once', async () => {
    expect((await setup.floor.put('/slots', { slots: [{ productExternalId: 'SLOTTED', locationCode: 'B-05', quantity: 50 }] })).status).toBe(200);
    await completedWave([['BUSY', 1]], [['BUSY', 2], ['SLOTTED', 1]]);
    await completedWave([['BUSY', 1], ['MIDDLE', 1]]);
    await completedWave([['SLOTTED', 2]]);

    const made = await setup.floor.post('/slotting/proposals', {});
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const proposal = made.body.data;
    expect(proposal.waves).toBe(3);
    // Waves of 2, 1 and 1 orders: carts of 1 order (the median), up to 4 units (the fullest wave).
    expect(proposal.basis).toEqual({
      orders: 4,
      maxOrders: 1,
      maxItems: 4,
      summary: "The period's 4 orders, in the order they were picked, planned into carts of at most 1 order and 4 units again for each placement, each cart walked by its exact route",
    });
    expect(proposal.moves).toEqual([
      { productExternalId: 'BUSY', sku: 'SKU-BUSY', name: 'Product BUSY', from: 'D-10', to: 'A-01', picks: 3 },
      { productExternalId: 'QUIET', sku: 'SKU-QUIET', name: 'Product QUIET', from: 'A-01', to: 'D-10', picks: 0 },
    ]);
    // Each order on a cart of its own, walked as it stands and with BUSY at A-01: exact routes, as POST /routes walks them.
    const before = (await routeLength(['D-10'])) + (await routeLength(['D-10', 'B-05'])) + (await routeLength(['D-10', 'C-02'])) + (await routeLength(['B-05']));
    const after = (await routeLength(['A-01'])) + (await routeLength(['A-01', 'B-05'])) + (await routeLength(['A-01', 'C-02'])) + (await routeLength(['B-05']));
    expect(proposal.walkingBefore).toBeCloseTo(before, 9);
    expect(proposal.walkingAfter).toBeCloseTo(after, 9);
    expect(proposal.saving).toBeCloseTo(before - after, 9);
    expect(proposal.savingPercent).toBeCloseTo(Math.round((10_000 * (before - after)) / before) / 100, 9);
    // One exchange: the curve is the proposal itself.
    expect(proposal.savingByMoves).toEqual([{ moves: 2, walking: proposal.walkingAfter, savingPercent: proposal.savingPercent }]);
    expect(proposal.applied).toBeNull();
    // Nothing moves until it is applied.
    expect(await locationOf('BUSY')).toBe('D-10');
    expect((await setup.floor.get(`/slotting/proposals/${proposal.id}`)).body.data).toEqual(proposal);

    const events = async () => (await setup.ctx.database.db.selectFrom('events').select('id').where('tenant_id', '=', setup.tenant.id).execute()).length;
    const eventsBefore = await events();
    const applied = await setup.floor.post(`/slotting/proposals/${proposal.id}/apply`);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.data.applied).toEqual({ moved: 2, skipped: [] });
    expect(applied.body.data.appliedAt).not.toBeNull();
    expect([await locationOf('BUSY'), await locationOf('QUIET'), await locationOf('MIDDLE')]).toEqual(['A-01', 'D-10', 'C-02']);
    expect((await setup.floor.get('/slots?productExternalId=SLOTTED')).body.data.map((slot: { locationCode: string }) => slot.locationCode)).toEqual(['B-05']);
    expect(await events()).toBe(eventsBefore);

    // Applying again changes nothing and answers the same.
    const updatedAt = (await setup.tenant.api.get('/products/BUSY')).body.data.updatedAt;
    const again = await setup.floor.post(`/slotting/proposals/${proposal.id}/apply`);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(applied.body.data);
    expect((await setup.tenant.api.get('/products/BUSY')).body.data.updatedAt).toBe(updatedAt);

    // Where the products stand now, the same waves walk what the proposal said: nothing more to propose.
    const next = (await setup.floor.post('/slotting/proposals', {})).body.data;
    expect(next.walkingBefore).toBeCloseTo(after, 9);
    expect(next.moves).toEqual([]);
    expect(next.walkingAfter).toBe(next.walkingBefore);
    expect(next.savingByMoves).toEqual([]);
  });

  it('skips and reports a move whose product changed since the proposal, and moves the rest', async () => {
    // QUIET, now at D-10, becomes the busiest (BUSY's orders are 3).
    for (let wave = 0; wave < 4; wave++) await completedWave([['QUIET', 1]]);
    const proposal = (await setup.floor.post('/slotting/proposals', {})).body.data;
    expect(proposal.moves.find((move) => move.productExternalId === 'QUIET')).toMatchObject({ from: 'D-10', to: 'A-01', picks: 4 });
    const other = proposal.moves.find((move) => move.productExternalId !== 'QUIET')!;
    expect(other).toBeDefined();
    // Meanwhile the integrator moves another product of the proposal.
    const id = other.productExternalId;
    expect((await setup.tenant.api.post('/products', { externalId: id, sku: `SKU-${id}`, name: `Product ${id}`, stock: 100, locationCode: 'B-05' })).status).toBe(200);
    const applied = (await setup.floor.post(`/slotting/proposals/${proposal.id}/apply`)).body.data.applied!;
    expect(applied.skipped).toEqual([{ productExternalId: other.productExternalId, reason: 'the product changed since the proposal' }]);
    expect(applied.moved).toBe(proposal.moves.length - 1);
    expect(await locationOf(other.productExternalId)).toBe('B-05');
    expect(await locationOf('QUIET')).toBe('A-01');
  });
});

/*
 * FAR is what half the orders pick, at D-10; the other half pick FIXED, kept at a slot at D-09
 * beside it, so it never moves; QUIET stands at A-01 by the depot. The waves as they were made
 * paired a FAR order with a FIXED one: over those carts FAR by the depot saves nothing (every cart
 * still walks to D-09, and now into aisle 1 too). Planned again for each placement, the FAR orders
 * share carts, and FAR by the depot saves their walk to the far corner.
 */
describe('floor: slotting proposals, carts planned again for each placement', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-05', aisle: 2, position: 5 },
      { code: 'D-09', aisle: 4, position: 9 },
      { code: 'D-10', aisle: 4, position: 10 },
    ],
    products: [
      { externalId: 'FAR', locationCode: 'D-10' },
      { externalId: 'QUIET', locationCode: 'A-01' },
      { externalId: 'FIXED', locationCode: 'B-05' },
    ],
  });
  const routeLength = async (locations: string[]) => (await setup.floor.post('/routes', { locations })).body.data.distance;

  it("judges the move by the orders planned into carts for each placement, not by the carts made for today's", async () => {
    expect((await setup.floor.put('/slots', { slots: [{ productExternalId: 'FIXED', locationCode: 'D-09', quantity: 50 }] })).status).toBe(200);
    for (let wave = 1; wave <= 4; wave++) {
      for (const product of ['FAR', 'FIXED']) expect((await setup.tenant.api.post('/orders', order(`RP-${wave}-${product}`, [item(product, 1)]))).status).toBe(201);
      await completeWaveOf(setup.floor, [`RP-${wave}-FAR`, `RP-${wave}-FIXED`]);
    }
    // Over the carts as they were made, the move walks more, not less.
    expect(4 * (await routeLength(['A-01', 'D-09']))).toBeGreaterThanOrEqual(4 * (await routeLength(['D-10', 'D-09'])));

    const proposal = (await setup.floor.post('/slotting/proposals', {})).body.data;
    expect(proposal.basis).toMatchObject({ orders: 8, maxOrders: 2, maxItems: 2 });
    expect(proposal.moves.map(({ productExternalId, from, to, picks }: { productExternalId: string; from: string; to: string; picks: number }) => ({ productExternalId, from, to, picks }))).toEqual([
      { productExternalId: 'FAR', from: 'D-10', to: 'A-01', picks: 4 },
      { productExternalId: 'QUIET', from: 'A-01', to: 'D-10', picks: 0 },
    ]);
    // Planned again, two carts of two FAR orders and two of two FIXED orders, before and after.
    const before = 2 * (await routeLength(['D-10'])) + 2 * (await routeLength(['D-09']));
    const after = 2 * (await routeLength(['A-01'])) + 2 * (await routeLength(['D-09']));
    expect(proposal.walkingBefore).toBeCloseTo(before, 9);
    expect(proposal.walkingAfter).toBeCloseTo(after, 9);
    expect(proposal.savingPercent).toBeGreaterThan(40);
    expect(proposal.savingByMoves.at(-1)).toEqual({ moves: 2, walking: proposal.walkingAfter, savingPercent: proposal.savingPercent });
  });
});

describe('floor: slotting proposals, errors', () => {
  const setup = useFloor({ locations: LOCATIONS, products: PRODUCTS });

  it('refuses a period that runs backwards or spans more than a year, and maxMoves out of range, with 400 naming the field; nothing is kept', async () => {
    const count = async () => (await setup.ctx.database.db.selectFrom('slotting_proposals').select('id').where('tenant_id', '=', setup.tenant.id).execute()).length;
    for (const [body, field] of [
      [{ period: { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' } }, 'period.to'],
      [{ period: { from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }, 'period.to'],
      [{ period: { from: 'yesterday', to: '2026-01-01T00:00:00Z' } }, 'period.from'],
      [{ maxMoves: 0 }, 'maxMoves'],
      [{ maxMoves: 1.5 }, 'maxMoves'],
    ] as const) {
      const response = await setup.floor.post('/slotting/proposals', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    expect(await count()).toBe(0);
  });

  it('answers 404 for a proposal it does not know, and 409 without a layout', async () => {
    const unknown = '0193a2c4-7f10-7c3e-9a41-5b2d8e6f1a20';
    expect((await setup.floor.get(`/slotting/proposals/${unknown}`)).status).toBe(404);
    expect((await setup.floor.post(`/slotting/proposals/${unknown}/apply`)).status).toBe(404);
    const bare = await setup.ctx.tenant(UNLIMITED);
    expect((await warehouse(setup.ctx, bare).post('/slotting/proposals', {})).status).toBe(409);
  });
});

describe('floor: slotting proposals, security', () => {
  const setup = useFloor({ locations: LOCATIONS, products: PRODUCTS });

  it('needs the admin token', async () => {
    const base = `/api/v1/warehouse/tenants/${setup.tenant.slug}/slotting/proposals`;
    const id = '0193a2c4-7f10-7c3e-9a41-5b2d8e6f1a20';
    for (const [method, url] of [
      ['POST', base],
      ['GET', `${base}/${id}`],
      ['POST', `${base}/${id}/apply`],
    ] as const) {
      expect((await setup.ctx.app.inject({ method, url, payload: method === 'POST' ? {} : undefined })).statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("keeps each tenant's proposals its own: another tenant can neither read nor apply one", async () => {
    const proposal = (await setup.floor.post('/slotting/proposals', {})).body.data;
    const other = await setup.ctx.tenant(UNLIMITED);
    const otherFloor = warehouse(setup.ctx, other);
    expect((await otherFloor.get(`/slotting/proposals/${proposal.id}`)).status).toBe(404);
    expect((await otherFloor.post(`/slotting/proposals/${proposal.id}/apply`)).status).toBe(404);
    expect((await setup.floor.get(`/slotting/proposals/${proposal.id}`)).body.data.appliedAt).toBeNull();
  });

  it('in the console, refuses pickers and packers with 403 and answers 401 without a session; a supervisor proposes for their own warehouse', async () => {
    const proposal = (await setup.floor.post('/slotting/proposals', {})).body.data;
    const paths = ['/slotting/proposals', `/slotting/proposals/${proposal.id}/apply`];
    for (const role of ['picker', 'packer'] as const) {
      const client = await signedIn(setup.ctx, setup.tenant, role);
      for (const path of paths) {
        const answer = await client.post(path, {});
        expect(answer.status, `${role} ${path}`).toBe(403);
        expect(answer.body.error.code).toBe('FORBIDDEN');
      }
    }
    const anonymous = new ConsoleClient(setup.ctx, setup.tenant, { id: '', username: '', role: 'supervisor' });
    for (const path of paths) expect((await anonymous.post(path, {})).status, path).toBe(401);
    // Another warehouse's supervisor cannot apply this warehouse's proposal.
    const other = await setup.ctx.tenant(UNLIMITED);
    expect((await (await signedIn(setup.ctx, other, 'supervisor')).post(paths[1]!, {})).status).toBe(404);
    expect((await setup.floor.get(`/slotting/proposals/${proposal.id}`)).body.data.appliedAt).toBeNull();
  });
});

