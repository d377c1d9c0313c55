import { describe, expect, it } from 'vitest';
import type { Wave } from '../../src/floor/schemas';
import { UNLIMITED } from '../helpers/context';
import { warehouse } from '../orders/helpers';
import { clearPool, day, LAYOUT, sShapeWaveOf, useFloor } from './helpers';

/*
 * MILK at A-01 in four lots: EARLY (in 2 days), NEXT (in 5), LATER (in 20) and OLD (expired
 * yesterday); LATE (in 30 days) is at B-03 only. A first wave plans EARLY's 2 units; the next wave
 * then plans NEXT, and its picker finds EARLY on the shelf and scans it.
 */
describe('floor: a pick taken from another lot (pickedLot)', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
    ],
    products: [
      { externalId: 'MILK', stock: 100, lotTracked: true },
      { externalId: 'SOAP', stock: 100 },
    ],
  });
  const SLOTS = [
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 2, lot: 'EARLY', expiresOn: day(2) },
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 4, lot: 'NEXT', expiresOn: day(5) },
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 4, lot: 'LATER', expiresOn: day(20) },
    { productExternalId: 'MILK', locationCode: 'A-01', quantity: 4, lot: 'OLD', expiresOn: day(-1) },
    { productExternalId: 'MILK', locationCode: 'B-03', quantity: 9, lot: 'LATE', expiresOn: day(30) },
    { productExternalId: 'SOAP', locationCode: 'B-03', quantity: 9 },
  ];

  /** A wave planned after another that holds EARLY: it plans NEXT at A-01. */
  async function waveAfterEarly(quantity: number): Promise<{ first: Wave; firstIds: string[]; wave: Wave; ids: string[] }> {
    await clearPool(setup);
    expect((await setup.floor.put('/slots', { slots: SLOTS })).status).toBe(200);
    const { wave: first, ids: firstIds } = await sShapeWaveOf(setup, [['MILK', 2]]);
    expect(first.stops[0]!.lines[0]!.lot).toBe('EARLY');
    const { wave, ids } = await sShapeWaveOf(setup, [['MILK', quantity]]);
    expect(wave.stops.map((stop) => [stop.locationCode, stop.lines[0]!.lot, stop.lines[0]!.quantity])).toEqual([['A-01', 'NEXT', quantity]]);
    return { first, firstIds, wave, ids };
  }
  const pickOf = (ids: string[], quantity: number, pickedLot?: string) => ({ orderExternalId: ids[0], productExternalId: 'MILK', quantity, locationCode: 'A-01', lot: 'NEXT', ...(pickedLot ? { pickedLot } : {}) });
  const lotsLeft = async () =>
    Object.fromEntries((await setup.floor.get('/slots?productExternalId=MILK')).body.data
      .map((slot) => [`${slot.lot}@${slot.locationCode}`, slot.quantity]));

  it('records a lot that expires no later, at a slot of the stop, as the part picked: completing lowers it, the order and the recall name it', async () => {
    const { wave, ids } = await waveAfterEarly(2);
    const picked = await setup.floor.post(`/waves/${wave.id}/picks`, pickOf(ids, 2, 'EARLY'));
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    expect(picked.body.data.stops[0]!.lines[0]!).toMatchObject({ lot: 'EARLY', expiresOn: day(2), pickedQuantity: 2 });
    // Sent again (an answer lost on the way), it records the same.
    expect((await setup.floor.post(`/waves/${wave.id}/picks`, pickOf(ids, 2, 'EARLY'))).status).toBe(200);
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    expect(await lotsLeft()).toMatchObject({ 'EARLY@A-01': 0, 'NEXT@A-01': 4 });
    expect((await setup.tenant.api.get(`/orders/${ids[0]}`)).body.data.items[0]!.lots).toEqual([{ lot: 'EARLY', expiresOn: day(2), quantity: 2 }]);
    const recall = (await setup.floor.get('/lots/MILK/EARLY/orders')).body.data;
    expect(recall.map((order: { orderExternalId: string; quantity: number }) => [order.orderExternalId, order.quantity])).toEqual([[ids[0], 2]]);
  });

  it('records the lot the part names as before when pickedLot is that lot', async () => {
    const { wave, ids } = await waveAfterEarly(1);
    const picked = await setup.floor.post(`/waves/${wave.id}/picks`, pickOf(ids, 1, 'NEXT'));
    expect(picked.status).toBe(200);
    expect(picked.body.data.stops[0]!.lines[0]!).toMatchObject({ lot: 'NEXT', pickedQuantity: 1 });
  });

  it.each([
    ['a lot elsewhere', 'LATE', 'is not a lot of the product at A-01'],
    ['an unknown lot', 'NOPE', 'is not a lot of the product at A-01'],
    ['a lot that expires later', 'LATER', `expires ${day(20)}, after NEXT`],
    ['an expired lot', 'OLD', `expires ${day(-1)}, before ${day(0)}, the first expiry a line may take`],
  ])('refuses %s (400 naming pickedLot and the lot expected), recording nothing', async (_, pickedLot, why) => {
    const { wave, ids } = await waveAfterEarly(1);
    const refused = await setup.floor.post(`/waves/${wave.id}/picks`, pickOf(ids, 1, pickedLot));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'pickedLot', message: `${why}: take lot NEXT (expires ${day(5)})` }]);
    expect((await setup.floor.get(`/waves/${wave.id}`)).body.data.stops[0]!.lines[0]!).toMatchObject({ lot: 'NEXT', pickedQuantity: null });
  });

  it('refuses a lot whose slot holds fewer units than the pick beyond those other waves recorded as picked', async () => {
    const { first, firstIds, wave, ids } = await waveAfterEarly(1);
    expect((await setup.floor.post(`/waves/${first.id}/picks`, { orderExternalId: firstIds[0], productExternalId: 'MILK', quantity: 2 })).status).toBe(200);
    const refused = await setup.floor.post(`/waves/${wave.id}/picks`, pickOf(ids, 1, 'EARLY'));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0]).toMatchObject({ field: 'pickedLot', message: `holds 0 units at A-01 not yet picked, fewer than 1: take lot NEXT (expires ${day(5)})` });
    expect((await setup.floor.get(`/waves/${wave.id}`)).body.data.stops[0]!.lines[0]!).toMatchObject({ lot: 'NEXT', pickedQuantity: null });
  });

  it("refuses the lot of the line's other part at the same location: its units are recorded there", async () => {
    await clearPool(setup);
    const slots = [
      { productExternalId: 'MILK', locationCode: 'A-01', quantity: 1, lot: 'S1', expiresOn: day(5) },
      { productExternalId: 'MILK', locationCode: 'A-01', quantity: 1, lot: 'S2', expiresOn: day(5) },
    ];
    expect((await setup.floor.put('/slots', { slots })).status).toBe(200);
    const { wave, ids } = await sShapeWaveOf(setup, [['MILK', 2]]);
    expect(wave.stops.flatMap((stop) => stop.lines.map((line) => line.lot)).sort()).toEqual(['S1', 'S2']);
    const refused = await setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: ids[0], productExternalId: 'MILK', quantity: 1, locationCode: 'A-01', lot: 'S1', pickedLot: 'S2' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'pickedLot', message: `is the lot of another part of this line at A-01 (record its units on that part): take lot S1 (expires ${day(5)})` }]);
  });

  it('ignores pickedLot for a part without a lot', async () => {
    await clearPool(setup);
    expect((await setup.floor.put('/slots', { slots: SLOTS })).status).toBe(200);
    const { wave, ids } = await sShapeWaveOf(setup, [['SOAP', 1]]);
    const picked = await setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: ids[0], productExternalId: 'SOAP', quantity: 1, pickedLot: 'ANY' });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    expect(picked.body.data.stops[0]!.lines[0]!).toMatchObject({ lot: null, pickedQuantity: 1 });
  });

  it("never records a pick on another tenant's wave", async () => {
    const { wave, ids } = await waveAfterEarly(1);
    const other = await setup.ctx.tenant(UNLIMITED);
    const otherFloor = warehouse(setup.ctx, other);
    expect((await otherFloor.put('/layout', LAYOUT)).status).toBe(200);
    expect((await otherFloor.post(`/waves/${wave.id}/picks`, pickOf(ids, 1, 'EARLY'))).status).toBe(404);
    expect((await setup.floor.get(`/waves/${wave.id}`)).body.data.stops[0]!.lines[0]!).toMatchObject({ lot: 'NEXT', pickedQuantity: null });
  });
});
