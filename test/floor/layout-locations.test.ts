import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { warehouse } from '../orders/helpers';
import { LAYOUT, STORED_LAYOUT } from './helpers';

describe('floor: layout and placed locations', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  async function freshFloor(): Promise<{ tenant: TestTenant; api: ReturnType<typeof warehouse> }> {
    const tenant = await ctx.tenant(UNLIMITED);
    return { tenant, api: warehouse(ctx, tenant) };
  }

  it('stores the layout and returns it; GET before any is 404', async () => {
    const { api } = await freshFloor();
    expect((await api.get('/layout')).status).toBe(404);
    const put = await api.put('/layout', LAYOUT);
    expect(put.status).toBe(200);
    // No middle cross aisles: answered as none.
    expect(put.body.data).toEqual(STORED_LAYOUT);
    expect((await api.get('/layout')).body.data).toEqual(STORED_LAYOUT);
    const changed = { ...LAYOUT, aisleSpacing: 2.5, depotAisle: 3 };
    expect((await api.put('/layout', changed)).status).toBe(200);
    expect((await api.get('/layout')).body.data).toEqual({ ...changed, crossAisles: [] });
  });

  it.each([
    [{ ...LAYOUT, depotAisle: 5 }, 'depotAisle'],
    [{ ...LAYOUT, aisles: 0 }, 'aisles'],
    [{ ...LAYOUT, positionSpacing: 0 }, 'positionSpacing'],
    [{ ...LAYOUT, crossAisleOffset: -1 }, 'crossAisleOffset'],
    [{ ...LAYOUT, aisles: 2.5 }, 'aisles'],
    [{ ...LAYOUT, aisles: undefined }, 'aisles'],
  ])('refuses an unusable layout with 400 naming the field (%o)', async (layout, field) => {
    const { api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    const response = await api.put('/layout', layout);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await api.get('/layout')).body.data).toEqual(STORED_LAYOUT);
  });

  it('names every unusable field of a layout in one answer', async () => {
    const { api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    const response = await api.put('/layout', {
      ...LAYOUT,
      aisles: 0,
      aisleSpacing: -3,
      crossAisleOffset: -1,
      depotAisle: 0,
      crossAisles: [{ afterPosition: LAYOUT.positionsPerAisle, width: 0 }, { afterPosition: 2, width: 1 }, { afterPosition: 2, width: 1 }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details).toEqual([
      { field: 'aisles', message: 'aisles must be a whole number from 1 to 1000' },
      { field: 'aisleSpacing', message: 'aisleSpacing must be a number above 0' },
      { field: 'crossAisleOffset', message: 'crossAisleOffset must be a number of 0 or more' },
      { field: 'depotAisle', message: 'depotAisle must be an aisle of the layout, 1 to aisles' },
      { field: 'crossAisles[0].afterPosition', message: `afterPosition must be a whole number from 1 to ${LAYOUT.positionsPerAisle - 1}` },
      { field: 'crossAisles[0].width', message: 'width must be a number above 0' },
      { field: 'crossAisles[2].afterPosition', message: 'afterPosition 2 has a cross aisle already' },
    ]);
    expect(response.body.error.message).toBe(`Invalid layout: ${response.body.error.details.map((d: { message: string }) => d.message).join('; ')}`);
    expect((await api.get('/layout')).body.data).toEqual(STORED_LAYOUT);
  });

  it('takes codes without a place and locations with one; GET lists both', async () => {
    const { api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    const response = await api.put('/locations', {
      codes: ['DOCK-1', 'A-01', 'DOCK-1'],
      locations: [
        { code: 'B-07', aisle: 2, position: 7, level: 3 },
        { code: 'A-01', aisle: 1, position: 1 },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const expected = {
      codes: ['A-01', 'B-07', 'DOCK-1'],
      locations: [
        { code: 'A-01', aisle: 1, position: 1, level: null },
        { code: 'B-07', aisle: 2, position: 7, level: 3 },
      ],
    };
    expect(response.body.data).toEqual(expected);
    expect((await api.get('/locations')).body.data).toEqual(expected);
    // What GET answers can be sent back as it is.
    expect((await api.put('/locations', expected)).body.data).toEqual(expected);
  });

  it('still takes {codes} alone, even with no layout: those codes have no place', async () => {
    const { api } = await freshFloor();
    const response = await api.put('/locations', { codes: ['A-01', 'B-02'] });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ codes: ['A-01', 'B-02'], locations: [] });
  });

  it('refuses a place off the layout with 400 naming the field, and changes nothing', async () => {
    const { api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    await api.put('/locations', { codes: ['KEEP'] });
    const locations = [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'A-02', aisle: 1, position: 2 },
      { code: 'A-03', aisle: 1, position: 3 },
      { code: 'Z-01', aisle: 9, position: 1 },
      { code: 'A-99', aisle: 1, position: 11 },
    ];
    const response = await api.put('/locations', { locations });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { field: 'locations[3].aisle', message: expect.stringContaining('1 to 4') },
      { field: 'locations[4].position', message: expect.stringContaining('1 to 10') },
    ]);
    const twice = await api.put('/locations', { locations: [locations[0], { ...locations[1], code: 'A-01' }] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details[0]?.field).toBe('locations[1].code');
    const zero = await api.put('/locations', { locations: [{ code: 'A-00', aisle: 0, position: 1 }] });
    expect(zero.status).toBe(400);
    expect(zero.body.error.details[0]?.field).toBe('locations[0].aisle');
    expect((await api.get('/locations')).body.data).toEqual({ codes: ['KEEP'], locations: [] });
  });

  it('places 50,000 locations in one request', async () => {
    const { api } = await freshFloor();
    await api.put('/layout', { ...LAYOUT, aisles: 100, positionsPerAisle: 500 });
    const locations = Array.from({ length: 50_000 }, (_, i) => ({ code: `LOC-${i}`, aisle: 1 + (i % 100), position: 1 + Math.floor(i / 100), level: 1 }));
    const response = await api.put('/locations', { locations });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    expect(response.body.data.locations).toHaveLength(50_000);
    expect((await api.get('/locations')).body.data.locations.find((l: { code: string }) => l.code === 'LOC-12345')).toEqual({
      code: 'LOC-12345',
      aisle: 46,
      position: 124,
      level: 1,
    });
  });

  it('answers 409 to places while no layout is stored', async () => {
    const { api } = await freshFloor();
    const response = await api.put('/locations', { locations: [{ code: 'A-01', aisle: 1, position: 1 }] });
    expect(response.status).toBe(409);
    expect(response.body.error.message).toContain('PUT /layout');
  });

  it('refuses (409) a layout that would leave placed locations off the floor', async () => {
    const { api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    await api.put('/locations', { locations: [{ code: 'D-10', aisle: 4, position: 10 }] });
    const smaller = await api.put('/layout', { ...LAYOUT, aisles: 3 });
    expect(smaller.status).toBe(409);
    expect(smaller.body.error.message).toContain('D-10');
    expect((await api.get('/layout')).body.data).toEqual(STORED_LAYOUT);
  });

  it('keeps the unknown-location warning of product upserts working with placed codes', async () => {
    const { tenant, api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    await api.put('/locations', { locations: [{ code: 'A-01', aisle: 1, position: 1 }], codes: ['DOCK-1'] });
    const known = await tenant.api.post('/products', { externalId: 'P1', sku: 'S1', name: 'x', locationCode: 'A-01' });
    expect(known.body.warnings ?? []).toEqual([]);
    const dock = await tenant.api.post('/products', { externalId: 'P2', sku: 'S2', name: 'x', locationCode: 'DOCK-1' });
    expect(dock.body.warnings ?? []).toEqual([]);
    const unknown = await tenant.api.post('/products', { externalId: 'P3', sku: 'S3', name: 'x', locationCode: 'Q-9' });
    expect(unknown.body.warnings).toHaveLength(1);
  });

  it('serializes 50 concurrent replacements: each answers 200 and the final set is one of those sent', async () => {
    const { api } = await freshFloor();
    await api.put('/layout', LAYOUT);
    const sets = Array.from({ length: 50 }, (_, i) =>
      Array.from({ length: 20 }, (_, j) => ({ code: `L${(i * 7 + j) % 60}`, aisle: 1 + ((i + j) % 4), position: 1 + (j % 10) })),
    );
    const responses = await Promise.all(sets.map((locations) => api.put('/locations', { locations })));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const final = (await api.get('/locations')).body.data.locations;
    const asSent = sets.map((set) =>
      [...set].sort((a, b) => (a.code < b.code ? -1 : 1)).map((location) => ({ ...location, level: null })),
    );
    expect(asSent).toContainEqual(final);
  });
});
