import { afterAll, describe, expect, it } from 'vitest';
import type { ExpiringLot, PickerWave } from '../../web/console/src/api';
import { createTestContext, type TestTenant } from '../helpers/context';
import { day, floorOf, seedPlacedProducts } from '../floor/helpers';
import { item, order } from '../orders/helpers';
import { signedIn } from './helpers';

/*
 * Lots through the console: MILK at A-1 in two lots that expire the same day (SAME-A, SAME-B), one
 * that expires later (LATER) and one expired (OLD). A picker's pick names the lot taken; the pack
 * station reads which lots each item got; supervisors read the lots expiring.
 */
const ctx = await createTestContext();
afterAll(() => ctx.close());

async function milkFloor(tenant: TestTenant) {
  const floor = await floorOf(ctx, tenant, [{ code: 'A-1', aisle: 1, position: 1 }]);
  await seedPlacedProducts(tenant, [{ externalId: 'MILK', stock: 9, lotTracked: true }]);
  const slots = [
    { locationCode: 'A-1', quantity: 2, lot: 'SAME-A', expiresOn: day(5) },
    { locationCode: 'A-1', quantity: 2, lot: 'SAME-B', expiresOn: day(5) },
    { locationCode: 'A-1', quantity: 4, lot: 'LATER', expiresOn: day(20) },
    { locationCode: 'A-1', quantity: 1, lot: 'OLD', expiresOn: day(-1) },
  ];
  expect((await floor.put('/products/MILK/slots', { slots })).status).toBe(200);
}

describe('console: lots', () => {
  it('records the lot a picker took in place of the one planned when it expires as soon, refuses a later one, and the pack station lists it', async () => {
    const tenant = await ctx.tenant();
    await milkFloor(tenant);
    expect((await tenant.api.post('/orders', order('O1', [item('MILK', 1)]))).status).toBe(201);
    const picker = await signedIn(ctx, tenant, 'picker');
    const wave = (await picker.post('/picking/wave', {})).body.data as PickerWave;
    const planned = wave.stops[0]!.lines[0]!;
    expect(planned).toMatchObject({ expiresOn: day(5), quantity: 1 });
    const other = planned.lot === 'SAME-A' ? 'SAME-B' : 'SAME-A';
    const pick = { orderExternalId: 'O1', productExternalId: 'MILK', quantity: 1, locationCode: 'A-1', lot: planned.lot! };

    const refused = await picker.post('/picking/wave/picks', { ...pick, pickedLot: 'LATER' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'pickedLot', message: `expires ${day(20)}, after ${planned.lot}: take lot ${planned.lot} (expires ${day(5)})` }]);

    const taken = await picker.post('/picking/wave/picks', { ...pick, pickedLot: other });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.data.stops[0]!.lines[0]).toMatchObject({ lot: other, pickedQuantity: 1 });
    expect((await picker.post('/picking/wave/complete')).status).toBe(200);

    const packer = await signedIn(ctx, tenant, 'packer');
    const packing = await packer.get('/packing/orders/O1');
    expect(packing.body.data.items[0]!.lots).toEqual([{ lot: other, expiresOn: day(5), quantity: 1 }]);
  });

  it("lists the lots expiring within the period chosen for supervisors only, soonest first, each tenant's own", async () => {
    const tenant = await ctx.tenant();
    await milkFloor(tenant);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const within = async (days: number) => ((await supervisor.get(`/lots?expiringWithinDays=${days}`)).body.data as ExpiringLot[]).map((lot) => [lot.lot, lot.expiresOn, lot.quantity, lot.locationCodes]);
    expect(await within(7)).toEqual([
      ['OLD', day(-1), 1, ['A-1']],
      ['SAME-A', day(5), 2, ['A-1']],
      ['SAME-B', day(5), 2, ['A-1']],
    ]);
    expect((await within(30)).map(([lot]) => lot)).toEqual(['OLD', 'SAME-A', 'SAME-B', 'LATER']);
    expect((await supervisor.get('/lots?expiringWithinDays=-1')).status).toBe(400);
    for (const role of ['picker', 'packer'] as const) expect((await (await signedIn(ctx, tenant, role)).get('/lots')).status).toBe(403);
    const elsewhere = await signedIn(ctx, await ctx.tenant(), 'supervisor');
    expect((await elsewhere.get('/lots')).body.data).toEqual([]);
  });
});
