import { describe, expect, it } from 'vitest';
import type { Wave } from '../../src/floor/schemas';
import { eventsOf, stockOf } from '../orders/helpers';
import { clearPool, sShapeWaveOf, useFloor } from './helpers';

/*
 * BOOT stands at two slots: 2 at A-01 (nearest the depot) and 5 at C-09. BELT has no slots and
 * keeps its stock at B-03. GLOVE's own location is B-03, but its one slot (1) is at A-01. Waves are
 * walked S-shape, aisle 1 first, so stops come in the order A-01, B-03, C-09.
 */
describe('floor: waves over slots', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
      { code: 'C-09', aisle: 3, position: 9 },
    ],
    products: [
      { externalId: 'BOOT', stock: 100 },
      { externalId: 'BELT', locationCode: 'B-03', stock: 100 },
      { externalId: 'GLOVE', locationCode: 'B-03', stock: 100 },
    ],
  });

  /** Puts the slots back (BOOT: 2 at A-01, 5 at C-09; GLOVE: 1 at A-01) and makes an S-shape wave of new orders with the given lines. */
  async function waveOf(...lines: [string, number][][]): Promise<{ wave: Wave; ids: string[] }> {
    const slots = [
      { productExternalId: 'BOOT', locationCode: 'A-01', quantity: 2 },
      { productExternalId: 'BOOT', locationCode: 'C-09', quantity: 5 },
      { productExternalId: 'GLOVE', locationCode: 'A-01', quantity: 1 },
    ];
    expect((await setup.floor.put('/slots', { slots })).status).toBe(200);
    return sShapeWaveOf(setup, ...lines);
  }

  const slotsOf = async (product: string) =>
    (await setup.floor.get(`/slots?productExternalId=${product}`)).body.data.map((slot) => [slot.locationCode, slot.quantity]);

  it('plans a line the nearer slot cannot cover at two stops, each part with what to take there and where the rest is', async () => {
    const { wave, ids } = await waveOf([['BOOT', 4]]);
    expect(wave.stops.map((stop) => [stop.seq, stop.locationCode, stop.lines.map((line) => [line.orderExternalId, line.quantity, line.orderedQuantity, line.next])])).toEqual([
      [1, 'A-01', [[ids[0], 2, 4, { locationCode: 'C-09', quantity: 2 }]]],
      [2, 'C-09', [[ids[0], 2, 4, null]]],
    ]);
    expect(wave.unplaced).toEqual([]);
    await setup.floor.post(`/waves/${wave.id}/release`);
  });

  it('shares a product among the orders of a wave tote by tote, nearer stops first', async () => {
    const { wave, ids } = await waveOf([['BOOT', 1]], [['BOOT', 3]]);
    expect(wave.stops.map((stop) => [stop.locationCode, stop.lines.map((line) => [line.orderExternalId, line.quantity])])).toEqual([
      ['A-01', [[ids[0], 1], [ids[1], 1]]],
      ['C-09', [[ids[1], 2]]],
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);
  });

  it("plans what the slots cannot cover at the product's own location, for the picker to look there", async () => {
    const { wave, ids } = await waveOf([['GLOVE', 3]]);
    expect(wave.stops.map((stop) => [stop.locationCode, stop.lines.map((line) => [line.orderExternalId, line.productExternalId, line.quantity, line.next])])).toEqual([
      ['A-01', [[ids[0], 'GLOVE', 1, { locationCode: 'B-03', quantity: 2 }]]],
      ['B-03', [[ids[0], 'GLOVE', 2, null]]],
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);
  });

  it('plans the carts of the pool over the places a wave takes from: the nearest slots that hold a line; an order its faces cannot cover is held', async () => {
    await clearPool(setup);
    const routeLength = async (locations: string[]) => (await setup.floor.post('/routes', { locations })).body.data.distance;
    // GLOVE 1: its slot at A-01 holds it (its own location B-03 is not walked to).
    await waveOf([['GLOVE', 1]]).then(({ wave }) => setup.floor.post(`/waves/${wave.id}/release`));
    let plan = (await setup.floor.get('/waves/plan')).body.data;
    expect(plan.carts.map((cart: { distance: number }) => cart.distance)).toEqual([await routeLength(['A-01'])]);
    await clearPool(setup);
    // BOOT 4: 2 at A-01, 2 at C-09.
    await waveOf([['BOOT', 4]]).then(({ wave }) => setup.floor.post(`/waves/${wave.id}/release`));
    plan = (await setup.floor.get('/waves/plan')).body.data;
    expect(plan.carts.map((cart: { distance: number }) => cart.distance)).toEqual([await routeLength(['A-01', 'C-09'])]);
    expect(plan.held).toEqual([]);
    await clearPool(setup);
    // GLOVE 3: its one face holds 1; the order is on no cart, held for want of 2.
    const { ids } = await waveOf([['GLOVE', 3]]);
    await setup.floor.post(`/waves/${(await setup.floor.get('/waves?status=PICKING')).body.data[0]!.id}/release`);
    plan = (await setup.floor.get('/waves/plan')).body.data;
    expect(plan.carts).toEqual([]);
    expect(plan.held).toMatchObject([{ externalId: ids[0], short: [{ productExternalId: 'GLOVE', needed: 3, available: 1 }] }]);
    await clearPool(setup);
  });

  it('records each part by its locationCode, and completing lowers the slots picked from and the stock, with the events as ever', async () => {
    const { wave, ids } = await waveOf([['BOOT', 4], ['BELT', 1]]);
    const [id] = ids as [string];
    const pick = (body: object) => setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: id, ...body });
    expect((await pick({ productExternalId: 'BOOT', quantity: 2, locationCode: 'A-01' })).status).toBe(200);
    expect((await pick({ productExternalId: 'BOOT', quantity: 1, locationCode: 'C-09', reason: 'one torn' })).status).toBe(200);
    // A line planned at one stop needs no locationCode.
    expect((await pick({ productExternalId: 'BELT', quantity: 1 })).status).toBe(200);
    const shown = (await setup.floor.get(`/waves/${wave.id}`)).body.data;
    expect(shown.stops.flatMap((stop) => stop.lines.map((line) => [stop.locationCode, line.productExternalId, line.pickedQuantity]))).toEqual([
      ['A-01', 'BOOT', 2],
      ['B-03', 'BELT', 1],
      ['C-09', 'BOOT', 1],
    ]);

    const eventsBefore = (await eventsOf(setup.ctx, setup.tenant)).length;
    const done = await setup.floor.post(`/waves/${wave.id}/complete`);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    // The short pick at C-09 said it held no more than the one picked (no other slot held the other).
    expect(await slotsOf('BOOT')).toEqual([
      ['A-01', 0],
      ['C-09', 0],
    ]);
    expect(await stockOf(setup.tenant, 'BOOT')).toBe(97);
    expect(await stockOf(setup.tenant, 'BELT')).toBe(99);
    const events = (await eventsOf(setup.ctx, setup.tenant)).slice(eventsBefore);
    expect(events.map((e) => e.event)).toEqual(['order.status_changed', 'product.stock_updated', 'product.stock_updated', 'order.items_adjusted']);
    expect(events[1]!.data).toMatchObject({ previousStock: 100, newStock: 97 });
    expect(events[3]!.data.items).toEqual([{ productExternalId: 'BOOT', productSku: 'SKU-BOOT', previousQuantity: 4, quantity: 3 }]);
    expect((await setup.tenant.api.get(`/orders/${id}`)).body.data.status).toBe('PICKED');
    // The wave keeps what was ordered, though the order's item dropped to what was picked.
    const completed = (await setup.floor.get(`/waves/${wave.id}`)).body.data;
    expect(completed.stops.flatMap((stop) => stop.lines.map((line) => [stop.locationCode, line.quantity, line.orderedQuantity, line.pickedQuantity]))).toEqual([
      ['A-01', 2, 4, 2],
      ['B-03', 1, 1, 1],
      ['C-09', 2, 4, 1],
    ]);
  });

  it('completes a wave while its slots are replaced: both answer 200, the slots one of the two orders of events', async () => {
    for (let run = 0; run < 3; run++) {
      const { wave, ids } = await waveOf([['BOOT', 4]]);
      for (const locationCode of ['A-01', 'C-09']) {
        expect((await setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: ids[0], productExternalId: 'BOOT', quantity: 2, locationCode })).status).toBe(200);
      }
      const replacement = [
        { locationCode: 'A-01', quantity: 10 },
        { locationCode: 'C-09', quantity: 20 },
      ];
      const [done, replaced] = await Promise.all([setup.floor.post(`/waves/${wave.id}/complete`), setup.floor.put('/products/BOOT/slots', { slots: replacement })]);
      expect([done.status, replaced.status]).toEqual([200, 200]);
      // Replaced after the completion, or completed (taking 2 at each) after the replacement.
      expect([
        [
          ['A-01', 10],
          ['C-09', 20],
        ],
        [
          ['A-01', 8],
          ['C-09', 18],
        ],
      ]).toContainEqual(await slotsOf('BOOT'));
    }
  });

  it('refuses a pick without the locationCode a split line needs, or more than planned at a stop, with 400 naming the field and changing nothing', async () => {
    const { wave, ids } = await waveOf([['BOOT', 4]]);
    const pick = (body: object) => setup.floor.post(`/waves/${wave.id}/picks`, { orderExternalId: ids[0], productExternalId: 'BOOT', ...body });
    const unnamed = await pick({ quantity: 2 });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error.details).toEqual([{ field: 'locationCode', message: expect.stringContaining('A-01, C-09') }]);
    const tooMany = await pick({ quantity: 3, locationCode: 'A-01' });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details).toEqual([{ field: 'quantity', message: 'must be at most the 2 planned at A-01' }]);
    const elsewhere = await pick({ quantity: 1, locationCode: 'B-03' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details?.[0]?.field).toBe('locationCode');
    const shown = (await setup.floor.get(`/waves/${wave.id}`)).body.data;
    expect(shown.stops.flatMap((stop) => stop.lines.map((line) => line.pickedQuantity))).toEqual([null, null]);

    // Completing names each part still unrecorded.
    expect((await pick({ quantity: 2, locationCode: 'A-01' })).status).toBe(200);
    const missing = await setup.floor.post(`/waves/${wave.id}/complete`);
    expect(missing.status).toBe(409);
    expect(missing.body.error.details).toEqual([{ field: 'stops[1].lines[0]', message: expect.stringContaining('at C-09') }]);
    expect(await slotsOf('BOOT')).toEqual([
      ['A-01', 2],
      ['C-09', 5],
    ]);
    await setup.floor.post(`/waves/${wave.id}/release`);
  });
});
