/// <reference lib="dom" />
import { afterAll, describe, expect, it } from 'vitest';
import type { PickerWave } from '../../web/console/src/api';
import { nextVisit, shortPickGoesOn } from '../../web/console/src/picking';
import { createTestContext } from '../helpers/context';
import { floorOf, seedPlacedProducts } from '../floor/helpers';
import { item, order } from '../orders/helpers';
import { signedIn } from './helpers';

/*
 * A picker's short pick on the console: the service plans the missing units where the stock is,
 * as a stop of the picker's route, and the screen says where the line goes on. JAR has faces at
 * A-1 (2) and D-9 (10); MUG stands at B-5.
 */
const ctx = await createTestContext();
afterAll(() => ctx.close());

async function pickerWithWave() {
  const tenant = await ctx.tenant();
  const floor = await floorOf(ctx, tenant, [
    { code: 'A-1', aisle: 1, position: 1 },
    { code: 'B-5', aisle: 2, position: 5 },
    { code: 'D-9', aisle: 4, position: 9 },
  ]);
  await seedPlacedProducts(tenant, [{ externalId: 'JAR', stock: 12 }, { externalId: 'MUG', locationCode: 'B-5', stock: 5 }]);
  expect((await floor.put('/products/JAR/slots', { slots: [{ locationCode: 'A-1', quantity: 2 }, { locationCode: 'D-9', quantity: 10 }] })).status).toBe(200);
  expect((await tenant.api.post('/orders', order('O1', [item('JAR', 2), item('MUG', 1)]))).status).toBe(201);
  const picker = await signedIn(ctx, tenant, 'picker');
  const started = await picker.post('/picking/wave', {});
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return { picker, floor, wave: started.body.data as PickerWave };
}

describe('console: a short pick finds the stock', () => {
  it('plans the missing units at the next face as a stop of the route, which the screen shows next, and says where the line goes on', async () => {
    const { picker, wave } = await pickerWithWave();
    expect(wave.stops.map((stop) => stop.locationCode)).toEqual(['B-5', 'A-1']);
    expect((await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'MUG', quantity: 1, locationCode: 'B-5' })).status).toBe(200);
    const pick = { orderExternalId: 'O1', productExternalId: 'JAR', quantity: 1, locationCode: 'A-1', reason: 'not_found' as const };
    const answered = await picker.post('/picking/wave/picks', pick);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const after = answered.body.data as PickerWave;
    expect(after.stops.map((stop) => [stop.locationCode, stop.lines.map((line) => `${line.productExternalId} ${line.quantity}`)])).toEqual([
      ['B-5', ['MUG 1']],
      ['A-1', ['JAR 2']],
      ['D-9', ['JAR 1']],
    ]);
    expect(after.progress).toMatchObject({ stopsDone: 2, stopsTotal: 3 });
    expect(nextVisit(after)?.locationCode).toBe('D-9');
    expect(shortPickGoesOn(after, pick)).toEqual({ line: expect.objectContaining({ productExternalId: 'JAR', pickedQuantity: 1 }), next: { locationCode: 'D-9', quantity: 1 } });
  });

  it('says nothing of a pick in full, nor of a short pick no slot can make up', async () => {
    const { picker, floor, wave } = await pickerWithWave();
    expect((await floor.put('/products/JAR/slots', { slots: [{ locationCode: 'A-1', quantity: 2 }, { locationCode: 'D-9', quantity: 0 }] })).status).toBe(200);
    const mug = { orderExternalId: 'O1', productExternalId: 'MUG', quantity: 1, locationCode: 'B-5' };
    expect(shortPickGoesOn((await picker.post('/picking/wave/picks', mug)).body.data, mug)).toBeNull();
    const short = { orderExternalId: 'O1', productExternalId: 'JAR', quantity: 0, locationCode: 'A-1', reason: 'damaged' as const };
    const answered = (await picker.post('/picking/wave/picks', short)).body.data as PickerWave;
    expect(answered.stops.map((stop) => stop.locationCode)).toEqual(wave.stops.map((stop) => stop.locationCode));
    expect(shortPickGoesOn(answered, short)).toBeNull();
  });
});
