import { describe, expect, it } from 'vitest';
import { stockOf } from '../orders/helpers';
import { day, useFloor } from './helpers';

/*
 * Replenishment by lot. MILK is kept by lot: a face at A-01 (min 3, max 10), reserve at R-09 and
 * A task takes from the reserve lot that expires first, never one a line may not take, and
 * moves its units into the face's slot of that lot.
 */
describe('floor: replenishment by lot (first expiry, first out)', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'R-09', aisle: 4, position: 9 },
      { code: 'R-10', aisle: 4, position: 10 },
    ],
    products: [{ externalId: 'MILK', stock: 100, lotTracked: true }, { externalId: 'TEA', stock: 30 }],
  });

  async function setSlots(product: string, slots: object[]) {
    for (const open of (await setup.floor.get('/replenishments?status=OPEN')).body.data) await setup.floor.post(`/replenishments/${open.id}/cancel`);
    const written = await setup.floor.put(`/products/${product}/slots`, { slots });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
  }
  const openTasks = async () => (await setup.floor.get('/replenishments?status=OPEN')).body.data;
  /** MILK's slots as [locationCode, lot, role, quantity, min, max, expiresOn]. */
  const milk = async () =>
    (await setup.floor.get('/slots?productExternalId=MILK')).body.data.map((slot: Record<string, unknown>) => [
      slot.locationCode, slot.lot, slot.role, slot.quantity, slot.min, slot.max, slot.expiresOn,
    ]);

  it('takes from the reserve lot that expires first (not the fullest), leaving expired lots; completing fills the face slot of that lot', async () => {
    await setup.floor.put('/settings', { minShelfLifeDays: 0 });
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 2, lot: 'L-FACE', expiresOn: day(20), min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 50, role: 'reserve', lot: 'L-LATE', expiresOn: day(40) },
      { locationCode: 'R-10', quantity: 30, role: 'reserve', lot: 'L-OLD', expiresOn: day(-1) },
      { locationCode: 'R-10', quantity: 4, role: 'reserve', lot: 'L-SOON', expiresOn: day(5) },
      { locationCode: 'R-09', quantity: 9, role: 'reserve' },
    ]);
    const [task, ...others] = await openTasks();
    expect(others).toEqual([]);
    // SOON expires first of the takeable lots; the task asks no more than its slot holds.
    expect(task).toMatchObject({ fromLocationCode: 'R-10', toLocationCode: 'A-01', lot: 'L-SOON', expiresOn: day(5), quantity: 4, reason: 'MIN' });
    const done = await setup.floor.post(`/replenishments/${task!.id}/complete`, { quantity: 4 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data).toMatchObject({ status: 'DONE', lot: 'L-SOON', movedQuantity: 4 });
    // The face gets a slot of the lot, a pick slot with the face's bounds; the stock is unchanged.
    expect(await milk()).toEqual([
      ['A-01', 'L-FACE', 'pick', 2, 3, 10, day(20)],
      ['A-01', 'L-SOON', 'pick', 4, 3, 10, day(5)],
      ['R-09', null, 'reserve', 9, null, null, null],
      ['R-09', 'L-LATE', 'reserve', 50, null, null, day(40)],
      ['R-10', 'L-OLD', 'reserve', 30, null, null, day(-1)],
      ['R-10', 'L-SOON', 'reserve', 0, null, null, day(5)],
    ]);
    expect(await stockOf(setup.tenant, 'MILK')).toBe(100);
    // The face holds 6 over its lots, above its min 3: no new task.
    expect(await openTasks()).toEqual([]);
  });

  it('counts what a face holds over all its lots against its min', async () => {
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 2, lot: 'L-A', expiresOn: day(20), min: 3, max: 10 },
      { locationCode: 'A-01', quantity: 2, lot: 'L-B', expiresOn: day(25), min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 50, role: 'reserve', lot: 'L-LATE', expiresOn: day(40) },
    ]);
    expect(await openTasks()).toEqual([]);
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 1, lot: 'L-A', expiresOn: day(20), min: 3, max: 10 },
      { locationCode: 'A-01', quantity: 2, lot: 'L-B', expiresOn: day(25), min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 50, role: 'reserve', lot: 'L-LATE', expiresOn: day(40) },
    ]);
    expect(await openTasks()).toMatchObject([{ toLocationCode: 'A-01', lot: 'L-LATE', quantity: 7 }]);
  });

  it('breaks ties of expiry by the fullest slot; undated lots and units without a lot come after dated lots', async () => {
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 0, lot: 'L-FACE', min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 5, role: 'reserve', lot: 'L-THIN', expiresOn: day(9) },
      { locationCode: 'R-10', quantity: 8, role: 'reserve', lot: 'L-FULL', expiresOn: day(9) },
      { locationCode: 'R-09', quantity: 90, role: 'reserve', lot: 'L-UNDATED' },
      { locationCode: 'R-10', quantity: 90, role: 'reserve' },
    ]);
    expect(await openTasks()).toMatchObject([{ fromLocationCode: 'R-10', lot: 'L-FULL', quantity: 8 }]);
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 0, lot: 'L-FACE', min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 20, role: 'reserve', lot: 'L-UNDATED' },
      { locationCode: 'R-10', quantity: 30, role: 'reserve' },
    ]);
    expect(await openTasks()).toMatchObject([{ fromLocationCode: 'R-10', lot: null, expiresOn: null, quantity: 10 }]);
  });

  it('never moves a lot a line may not take: none is asked for, and a task whose lot became so is refused (409)', async () => {
    await setup.floor.put('/settings', { minShelfLifeDays: 0 });
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 0, lot: 'L-FACE', min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 50, role: 'reserve', lot: 'L-OLD', expiresOn: day(-1) },
    ]);
    expect(await openTasks()).toEqual([]);
    await setSlots('MILK', [
      { locationCode: 'A-01', quantity: 0, lot: 'L-FACE', min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 50, role: 'reserve', lot: 'L-SOON', expiresOn: day(2) },
    ]);
    const [task] = await openTasks();
    expect(task).toMatchObject({ lot: 'L-SOON' });
    await setup.floor.put('/settings', { minShelfLifeDays: 5 });
    const refused = await setup.floor.post(`/replenishments/${task!.id}/complete`, { quantity: 10 });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.message).toContain('L-SOON');
    expect((await setup.floor.get(`/replenishments/${task!.id}`)).body.data.status).toBe('OPEN');
    expect((await milk()).map((slot: unknown[]) => slot[3])).toEqual([0, 50]);
    await setup.floor.put('/settings', { minShelfLifeDays: 0 });
  });

  it('works for a product without lots as before: its tasks name no lot', async () => {
    const written = await setup.floor.put('/products/TEA/slots', {
      slots: [
        { locationCode: 'A-01', quantity: 1, min: 2, max: 10 },
        { locationCode: 'R-09', quantity: 5, role: 'reserve' },
        { locationCode: 'R-10', quantity: 29, role: 'reserve' },
      ],
    });
    expect(written.status).toBe(200);
    const task = (await openTasks()).find((open: { productExternalId: string }) => open.productExternalId === 'TEA');
    expect(task).toMatchObject({ fromLocationCode: 'R-10', lot: null, expiresOn: null, quantity: 9 });
    expect((await setup.floor.post(`/replenishments/${task!.id}/complete`, { quantity: 9 })).status).toBe(200);
    expect((await setup.floor.get('/slots?productExternalId=TEA')).body.data.map((slot: { quantity: number }) => slot.quantity)).toEqual([10, 5, 20]);
  });
});
