import { describe, expect, it } from 'vitest';
import type { Wave } from '../../src/floor/schemas';
import { clearPool, day, expectAdminTokenNeeded, sShapeWaveOf, useFloor } from './helpers';

/*
 * MILK is kept by lot: OLD (expired yesterday) and SOON (in 3 days) at A-01 by the depot, FIRST
 * (tomorrow) at C-09 at the far end, LATE (in 30 days) at B-03. First expiry, first out sends the
 * picker to C-09 for FIRST before the nearer SOON, and never takes OLD.
 */
describe('floor: lots, first expiry first out', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
      { code: 'C-09', aisle: 3, position: 9 },
    ],
    products: [{ externalId: 'MILK', stock: 100, lotTracked: true }],
  });
  const SLOTS = [
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 5, lot: 'OLD', expiresOn: day(-1) },
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 2, lot: 'SOON', expiresOn: day(3) },
    { productExternalId: 'MILK', locationCode: 'C-09', quantity: 3, lot: 'FIRST', expiresOn: day(1) },
    { productExternalId: 'MILK', locationCode: 'B-03', quantity: 10, lot: 'LATE', expiresOn: day(30) },
  ];

  async function waveOf(slots: object[], ...lines: [string, number][][]): Promise<{ wave: Wave; ids: string[] }> {
    await clearPool(setup);
    expect((await setup.floor.put('/slots', { slots })).status).toBe(200);
    return sShapeWaveOf(setup, ...lines);
  }
  const partsOf = (wave: Wave) => wave.stops.flatMap((stop) => stop.lines.map((line) => [stop.locationCode, line.lot, line.expiresOn, line.quantity]));
  const lotsLeft = async () =>
    Object.fromEntries((await setup.floor.get('/slots?productExternalId=MILK')).body.data.map((slot) => [slot.lot, slot.quantity]));

  it('a wave takes the lot that expires first, however far, then the next; never an expired lot; completing lowers those lots', async () => {
    await setup.floor.put('/settings', { minShelfLifeDays: 0 });
    const { wave, ids } = await waveOf(SLOTS, [['MILK', 4]]);
    expect(partsOf(wave)).toEqual([
      ['A-01', 'SOON', day(3), 1],
      ['C-09', 'FIRST', day(1), 3],
    ]);
    for (const stop of wave.stops) {
      for (const line of stop.lines) {
        const picked = await setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: ids[0], productExternalId: 'MILK', quantity: line.quantity, locationCode: stop.locationCode });
        expect(picked.status, JSON.stringify(picked.body)).toBe(200);
      }
    }
    expect((await setup.tenant.api.get(`/orders/${ids[0]}`)).body.data.items[0]!.lots).toBeUndefined();
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    expect(await lotsLeft()).toEqual({ OLD: 5, SOON: 1, FIRST: 0, LATE: 10 });
    // The public order says which lots its item got, once picked.
    const order = (await setup.tenant.api.get(`/orders/${ids[0]}`)).body.data;
    expect(order.items[0]!.lots).toEqual([
      { lot: 'FIRST', expiresOn: day(1), quantity: 3 },
      { lot: 'SOON', expiresOn: day(3), quantity: 1 },
    ]);
  });

  it('leaves the lots expiring within minShelfLifeDays', async () => {
    expect((await setup.floor.put('/settings', { minShelfLifeDays: 2 })).status).toBe(200);
    const { wave } = await waveOf(SLOTS, [['MILK', 3]]);
    expect(partsOf(wave)).toEqual([
      ['A-01', 'SOON', day(3), 2],
      ['B-03', 'LATE', day(30), 1],
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);
    await setup.floor.put('/settings', { minShelfLifeDays: 0 });
  });

  it('shares the first lots among the orders of a wave, the first tote first', async () => {
    const { wave, ids } = await waveOf(SLOTS, [['MILK', 2]], [['MILK', 2]]);
    const parts = wave.stops.flatMap((stop) => stop.lines.map((line) => [line.orderExternalId, line.lot, line.quantity]));
    expect(parts.sort()).toEqual([
      [ids[0], 'FIRST', 2],
      [ids[1], 'FIRST', 1],
      [ids[1], 'SOON', 1],
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);
  });

  it('a route for items names the lot and its expiry at each stop, and leaves expired lots', async () => {
    await clearPool(setup);
    await setup.floor.put('/slots', { slots: SLOTS });
    const { data } = (await setup.floor.post('/routes', { items: [{ productExternalId: 'MILK', quantity: 16 }], policy: 'optimal' })).body;
    expect(data.stops.map((stop: { locationCode: string; lot?: string; expiresOn?: string | null; picks?: { quantity: number }[] }) => [stop.locationCode, stop.lot, stop.expiresOn, stop.picks![0]!.quantity]).sort()).toEqual([
      ['A-01', 'SOON', day(3), 2],
      ['B-03', 'LATE', day(30), 10],
      ['C-09', 'FIRST', day(1), 3],
    ]);
    expect(data.short).toEqual([{ productExternalId: 'MILK', quantity: 1 }]);
  });

  it('a short pick plans the missing units at the lot that expires next', async () => {
    const { wave, ids } = await waveOf(SLOTS, [['MILK', 2]]);
    expect(partsOf(wave)).toEqual([['C-09', 'FIRST', day(1), 2]]);
    const short = await setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: ids[0], productExternalId: 'MILK', quantity: 0, locationCode: 'C-09' });
    expect(short.status, JSON.stringify(short.body)).toBe(200);
    const now = (await setup.floor.get(`/waves/${wave.id}`)).body.data;
    // FIRST held none; SOON (in 3 days) comes before LATE (in 30), though LATE is on the way back.
    expect(partsOf(now)).toEqual([
      ['C-09', 'FIRST', day(1), 2],
      ['A-01', 'SOON', day(3), 2],
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);
  });

  it('a pick names the lot when the line has parts of two lots at one location (400 naming lot without it)', async () => {
    const slots = [
      { productExternalId: 'MILK', locationCode: 'A-01', quantity: 1, lot: 'L1', expiresOn: day(5) },
      { productExternalId: 'MILK', locationCode: 'A-01', quantity: 1, lot: 'L2', expiresOn: day(6) },
    ];
    const { wave, ids } = await waveOf(slots, [['MILK', 2]]);
    expect(partsOf(wave)).toEqual([
      ['A-01', 'L1', day(5), 1],
      ['A-01', 'L2', day(6), 1],
    ]);
    const pick = { orderExternalId: ids[0], productExternalId: 'MILK', quantity: 1, locationCode: 'A-01' };
    const refused = await setup.floor.post(`/waves/${wave.id}/picks`, pick);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toEqual(['lot']);
    for (const lot of ['L1', 'L2']) expect((await setup.floor.post(`/waves/${wave.id}/picks`, { ...pick, lot })).status).toBe(200);
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    expect(await lotsLeft()).toEqual({ L1: 0, L2: 0 });
  });

  it('a pick without lot records the part without a lot when the line also has a lot part at that location', async () => {
    const slots = [
      { productExternalId: 'MILK', locationCode: 'A-01', quantity: 1, lot: 'L1', expiresOn: day(5) },
      { productExternalId: 'MILK', locationCode: 'A-01', quantity: 1 },
    ];
    const { wave, ids } = await waveOf(slots, [['MILK', 2]]);
    expect(partsOf(wave)).toEqual([
      ['A-01', 'L1', day(5), 1],
      ['A-01', null, null, 1],
    ]);
    const pick = { orderExternalId: ids[0], productExternalId: 'MILK', quantity: 1, locationCode: 'A-01' };
    expect((await setup.floor.post(`/waves/${wave.id}/picks`, pick)).status).toBe(200);
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(409);
    expect((await setup.floor.post(`/waves/${wave.id}/picks`, { ...pick, lot: 'L1' })).status).toBe(200);
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    const left = (await setup.floor.get('/slots?productExternalId=MILK')).body.data.map((slot: { lot: string | null; quantity: number }) => [slot.lot, slot.quantity]);
    expect(left).toEqual(expect.arrayContaining([['L1', 0], [null, 0]]));
  });

  it("answers docs/floor.md §16's worked example (today there is 2027-03-10: its dates are days from today here)", async () => {
    await clearPool(setup);
    await setup.floor.put('/settings', { minShelfLifeDays: 0 });
    const milk = SLOTS.map(({ productExternalId: _, ...slot }) => slot);
    expect((await setup.floor.put('/products/MILK/slots', { slots: milk })).status).toBe(200);

    const route = await setup.floor.post('/routes', { items: [{ productExternalId: 'MILK', quantity: 4 }] });
    expect(route.status, JSON.stringify(route.body)).toBe(200);
    expect(route.body.data).toEqual({
      policy: 'optimal',
      distance: 36,
      exact: true,
      stops: [
        { locationCode: 'C-09', aisle: 3, position: 9, lot: 'FIRST', expiresOn: day(1), picks: [{ productExternalId: 'MILK', quantity: 3 }] },
        { locationCode: 'A-01', aisle: 1, position: 1, lot: 'SOON', expiresOn: day(3), picks: [{ productExternalId: 'MILK', quantity: 1 }] },
      ],
      short: [],
      unplaced: [],
    });

    const { wave } = await sShapeWaveOf(setup, [['MILK', 4]]);
    expect(wave.distance).toBe(38);
    expect(wave.stops.map(({ seq, locationCode, lines }) => ({ seq, locationCode, lines: lines.map(({ productExternalId, quantity, lot, expiresOn }) => ({ productExternalId, quantity, lot, expiresOn })) }))).toEqual([
      { seq: 1, locationCode: 'A-01', lines: [{ productExternalId: 'MILK', quantity: 1, lot: 'SOON', expiresOn: day(3) }] },
      { seq: 2, locationCode: 'C-09', lines: [{ productExternalId: 'MILK', quantity: 3, lot: 'FIRST', expiresOn: day(1) }] },
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);

    const refused = await setup.floor.put('/products/MILK/slots', { slots: [{ locationCode: 'A-01', quantity: 1, expiresOn: day(3) }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'slots[0].expiresOn', message: 'is for a lot: send the lot it is the expiry of' }]);
  });
});

describe('floor: lots, reads', () => {
  const setup = useFloor({ locations: [{ code: 'A-01', aisle: 1, position: 1 }, { code: 'B-03', aisle: 2, position: 3 }], products: [{ externalId: 'MILK', stock: 100, lotTracked: true }, { externalId: 'EGGS', stock: 100, lotTracked: true }] });
  const SLOTS = [
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 4, lot: 'M1', expiresOn: day(2) },
    { productExternalId: 'MILK', locationCode: 'B-03', quantity: 1, lot: 'M1', expiresOn: day(2) },
    { productExternalId: 'MILK', locationCode: 'B-03', quantity: 6, lot: 'M2', expiresOn: day(20) },
    { productExternalId: 'EGGS', locationCode: 'A-01', quantity: 3, lot: 'E0', expiresOn: day(-2) },
    { productExternalId: 'EGGS', locationCode: 'B-03', quantity: 3 },
  ];

  it('lists the lots expiring within a period, expired ones first, page by page', async () => {
    expect((await setup.floor.put('/slots', { slots: SLOTS })).status).toBe(200);
    const first = await setup.floor.get('/lots?expiringWithinDays=7&limit=1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.pagination).toMatchObject({ hasMore: true, total: 2 });
    const second = await setup.floor.get(`/lots?expiringWithinDays=7&limit=1&cursor=${first.body.pagination.nextCursor}`);
    expect([...first.body.data, ...second.body.data]).toEqual([
      { productExternalId: 'EGGS', sku: 'SKU-EGGS', lot: 'E0', expiresOn: day(-2), quantity: 3, locationCodes: ['A-01'] },
      { productExternalId: 'MILK', sku: 'SKU-MILK', lot: 'M1', expiresOn: day(2), quantity: 5, locationCodes: ['A-01', 'B-03'] },
    ]);
    expect((await setup.floor.get('/lots?expiringWithinDays=30')).body.data.map((lot: { lot: string }) => lot.lot)).toEqual(['E0', 'M1', 'M2']);
  });

  it('answers which orders got a lot of a product (a recall), once their wave completed', async () => {
    await clearPool(setup);
    expect((await setup.floor.put('/slots', { slots: SLOTS })).status).toBe(200);
    const { wave, ids } = await sShapeWaveOf(setup, [['MILK', 3]], [['MILK', 4]]);
    expect((await setup.floor.get('/lots/MILK/M1/orders')).body.data).toEqual([]);
    for (const stop of wave.stops) {
      for (const line of stop.lines) {
        const pick = { orderExternalId: line.orderExternalId, productExternalId: 'MILK', quantity: line.quantity, locationCode: stop.locationCode, lot: line.lot ?? undefined };
        expect((await setup.floor.post(`/waves/${wave.id}/picks`, pick)).status).toBe(200);
      }
    }
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    const got = async (lot: string) => (await setup.floor.get(`/lots/MILK/${lot}/orders`)).body.data.map((order: { orderExternalId: string; quantity: number }) => [order.orderExternalId, order.quantity]).sort();
    expect(await got('M1')).toEqual([[ids[0], 3], [ids[1], 2]].sort());
    expect(await got('M2')).toEqual([[ids[1], 2]]);
    const page = await setup.floor.get('/lots/MILK/M1/orders?limit=1');
    expect(page.body.pagination).toMatchObject({ hasMore: true, total: 2 });
  });

  it('refuses a negative period, a cursor it did not make, and an unknown product', async () => {
    const negative = await setup.floor.get('/lots?expiringWithinDays=-1');
    expect(negative.status).toBe(400);
    expect(negative.body.error.details.map((detail: { field: string }) => detail.field)).toContain('expiringWithinDays');
    expect((await setup.floor.get('/lots?expiringWithinDays=3&cursor=nonsense')).status).toBe(400);
    expect((await setup.floor.get('/lots/MILK/M1/orders?cursor=nonsense')).status).toBe(400);
    expect((await setup.floor.get('/lots/NOPE/M1/orders')).status).toBe(404);
  });

  it('needs the admin token', async () => {
    const base = `/api/v1/warehouse/tenants/${setup.tenant.slug}`;
    await expectAdminTokenNeeded(setup.ctx, setup.tenant, [
      ['GET', `${base}/lots?expiringWithinDays=3`, undefined],
      ['GET', `${base}/lots/MILK/M1/orders`, undefined],
    ]);
  });
});

/*
 * An ERP may set lotTracked false on a product whose slots hold lots: the catalog write is never
 * refused for the floor's state. The units at those slots are still of their lots, so the slots keep
 * them and first expiry, first out still applies until the slots are rewritten; no new lot is taken.
 */
describe('floor: lots of a product set not lot-tracked', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'C-09', aisle: 3, position: 9 },
    ],
    products: [{ externalId: 'MILK', stock: 100, lotTracked: true }],
  });

  it('accepts the upsert, keeps the lots and FEFO until the slots are rewritten, and refuses a new lot', async () => {
    const slots = [
      { locationCode: 'A-01', quantity: 5, lot: 'NEAR', expiresOn: day(20) },
      { locationCode: 'C-09', quantity: 5, lot: 'FAR', expiresOn: day(2) },
    ];
    expect((await setup.floor.put('/products/MILK/slots', { slots })).status).toBe(200);
    const upsert = await setup.tenant.api.post('/products', { externalId: 'MILK', sku: 'SKU-MILK', name: 'Product MILK', lotTracked: false });
    expect(upsert.status, JSON.stringify(upsert.body)).toBe(200);
    expect((await setup.tenant.api.get('/products/MILK')).body.data.lotTracked).toBe(false);

    const held = (await setup.floor.get('/slots?productExternalId=MILK')).body.data.map((slot: { locationCode: string; lot: string | null }) => [slot.locationCode, slot.lot]);
    expect(held).toEqual([['A-01', 'NEAR'], ['C-09', 'FAR']]);
    // FEFO still sends the picker to the far lot that expires first, not the near one.
    const route = (await setup.floor.post('/routes', { items: [{ productExternalId: 'MILK', quantity: 2 }], policy: 'optimal' })).body.data;
    expect(route.stops.map((stop: { locationCode: string; lot?: string }) => [stop.locationCode, stop.lot])).toEqual([['C-09', 'FAR']]);

    const newLot = await setup.floor.put('/products/MILK/slots', { slots: [...slots, { locationCode: 'A-01', quantity: 1, lot: 'NEW', expiresOn: day(40) }] });
    expect(newLot.status).toBe(400);
    expect(newLot.body.error.details.map((detail: { field: string }) => detail.field)).toEqual(['slots[0].lot', 'slots[1].lot', 'slots[2].lot']);

    // Rewritten without lots, the slots are taken as any product's: the nearest.
    expect((await setup.floor.put('/products/MILK/slots', { slots: [{ locationCode: 'A-01', quantity: 5 }, { locationCode: 'C-09', quantity: 5 }] })).status).toBe(200);
    const after = (await setup.floor.post('/routes', { items: [{ productExternalId: 'MILK', quantity: 2 }], policy: 'optimal' })).body.data;
    expect(after.stops.map((stop: { locationCode: string; lot?: string }) => [stop.locationCode, stop.lot])).toEqual([['A-01', undefined]]);
  });
});
