import { describe, expect, it } from 'vitest';
import { eventsOf, item, order, stockOf } from '../orders/helpers';
import { day, useFloor } from './helpers';

/*
 * Counts by lot. MILK is kept by lot: at A-01 lots EARLY (5) and LATER (3); TEA has no lots and
 * 4 units at A-01. A count of A-01 counts each lot of MILK, and TEA, on its own line.
 */
describe('floor: counts by lot', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
    ],
    products: [{ externalId: 'MILK', stock: 18, lotTracked: true }, { externalId: 'TEA', stock: 4 }],
  });

  async function freshFloor() {
    for (const open of (await setup.floor.get('/counts?status=OPEN')).body.data) await setup.floor.post(`/counts/${open.id}/cancel`);
    const written = await setup.floor.put('/slots', {
      slots: [
        { productExternalId: 'MILK', locationCode: 'A-01', quantity: 5, lot: 'EARLY', expiresOn: day(3) },
        { productExternalId: 'MILK', locationCode: 'A-01', quantity: 3, lot: 'LATER', expiresOn: day(9) },
        { productExternalId: 'MILK', locationCode: 'B-03', quantity: 10, lot: 'LATER', expiresOn: day(9) },
        { productExternalId: 'TEA', locationCode: 'A-01', quantity: 4 },
      ],
    });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    for (const [product, stock] of [['MILK', 18], ['TEA', 4]] as const) {
      expect((await setup.tenant.api.post('/products', { externalId: product, sku: `SKU-${product}`, name: product, stock, lotTracked: product === 'MILK' })).status).toBe(200);
    }
    const made = await setup.floor.post('/counts', { locationCodes: ['A-01'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.data[0]!.id as string;
  }
  /** The slots at A-01 as [product, lot, quantity, role, expiresOn]. */
  const slotsAtA01 = async () =>
    (await setup.floor.get('/slots')).body.data
      .filter((slot: { locationCode: string }) => slot.locationCode === 'A-01')
      .map((slot: Record<string, unknown>) => [slot.productExternalId, slot.lot, slot.quantity, slot.role, slot.expiresOn]);

  it('sets each lot slot to what was counted (0 when not listed), makes a slot for a lot found there, and moves the stock once per product by the sum', async () => {
    const id = await freshFloor();
    const eventsBefore = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).length;
    const finished = await setup.floor.post(`/counts/${id}/finish`, {
      lines: [
        { productExternalId: 'MILK', lot: 'EARLY', quantity: 4 },
        { productExternalId: 'MILK', lot: 'NEW', expiresOn: day(20), quantity: 2 },
        { productExternalId: 'TEA', quantity: 4 },
      ],
    });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.data.lines).toEqual([
      { productExternalId: 'MILK', sku: 'SKU-MILK', lot: 'EARLY', recordedQuantity: 5, countedQuantity: 4, difference: -1 },
      { productExternalId: 'MILK', sku: 'SKU-MILK', lot: 'LATER', recordedQuantity: 3, countedQuantity: 0, difference: -3 },
      { productExternalId: 'MILK', sku: 'SKU-MILK', lot: 'NEW', recordedQuantity: 0, countedQuantity: 2, difference: 2 },
      { productExternalId: 'TEA', sku: 'SKU-TEA', lot: null, recordedQuantity: 4, countedQuantity: 4, difference: 0 },
    ]);
    expect(await slotsAtA01()).toEqual([
      ['MILK', 'EARLY', 4, 'pick', day(3)],
      ['MILK', 'LATER', 0, 'pick', day(9)],
      ['MILK', 'NEW', 2, 'pick', day(20)],
      ['TEA', null, 4, 'pick', null],
    ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)));
    expect([await stockOf(setup.tenant, 'MILK'), await stockOf(setup.tenant, 'TEA')]).toEqual([16, 4]);
    const events = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).slice(eventsBefore);
    expect(events.map((event) => [event.data.sku, event.data.previousStock, event.data.newStock, event.data.reason])).toEqual([['SKU-MILK', 18, 16, 'MANUAL_ADJUSTMENT']]);
  });

  it('records per lot what the records say: the lot slot less the units a PICKING wave recorded as picked from that lot', async () => {
    const id = await freshFloor();
    expect((await setup.tenant.api.post('/orders', order('LOT-1', [item('MILK', 2)]))).status).toBe(201);
    const wave = await setup.floor.post('/waves', { orders: ['LOT-1'] });
    expect(wave.status, JSON.stringify(wave.body)).toBe(201);
    // First expiry, first out: both from EARLY at A-01.
    const picked = await setup.floor.post(`/waves/${wave.body.data.id}/picks`, { orderExternalId: 'LOT-1', productExternalId: 'MILK', quantity: 2, locationCode: 'A-01' });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    const finished = await setup.floor.post(`/counts/${id}/finish`, {
      lines: [
        { productExternalId: 'MILK', lot: 'EARLY', quantity: 3 },
        { productExternalId: 'MILK', lot: 'LATER', quantity: 3 },
        { productExternalId: 'TEA', quantity: 4 },
      ],
    });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.data.lines.map((line: Record<string, unknown>) => [line.lot, line.recordedQuantity, line.countedQuantity])).toEqual([
      ['EARLY', 3, 3],
      ['LATER', 3, 3],
      [null, 4, 4],
    ]);
    expect((await setup.floor.post(`/waves/${wave.body.data.id}/complete`)).status).toBe(200);
    expect((await slotsAtA01()).map((slot: unknown[]) => slot[2])).toEqual([3, 3, 4]);
    expect(await stockOf(setup.tenant, 'MILK')).toBe(16);
  });

  it.each([
    [[{ productExternalId: 'MILK', lot: 'EARLY', quantity: 1 }, { productExternalId: 'MILK', lot: 'EARLY', quantity: 2 }], 'lines[1].lot'],
    [[{ productExternalId: 'TEA', quantity: 1 }, { productExternalId: 'TEA', quantity: 2 }], 'lines[1].productExternalId'],
    [[{ productExternalId: 'TEA', lot: 'T-1', quantity: 1 }], 'lines[0].lot'],
    [[{ productExternalId: 'MILK', expiresOn: day(5), quantity: 1 }], 'lines[0].expiresOn'],
    [[{ productExternalId: 'MILK', lot: 'NEW', expiresOn: '2027-02-30', quantity: 1 }], 'lines[0].expiresOn'],
    [[{ productExternalId: 'MILK', lot: '', quantity: 1 }], 'lines[0].lot'],
  ])('refuses %j with 400 naming %s, and changes nothing', async (lines, field) => {
    const id = await freshFloor();
    const before = await slotsAtA01();
    const refused = await setup.floor.post(`/counts/${id}/finish`, { lines });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(refused.body.error.details)).toContain(field);
    expect((await setup.floor.get(`/counts/${id}`)).body.data.status).toBe('OPEN');
    expect(await slotsAtA01()).toEqual(before);
  });
});
