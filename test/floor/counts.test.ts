import { describe, expect, it } from 'vitest';
import { askForCounts } from '../../src/floor/counts';
import { UNLIMITED } from '../helpers/context';
import { eventsOf, item, order, stockOf, warehouse } from '../orders/helpers';
import { expectAdminTokenNeeded, floorOf, seedPlacedProducts, useFloor } from './helpers';

/*
 * Counts. The floor: pick faces in aisle 1 (A-01, A-05), a face in aisle 2 (B-03), reserve at the
 * back of aisle 4 (R-09); U-1 is a known code without a place.
 */
const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'A-05', aisle: 1, position: 5 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'R-09', aisle: 4, position: 9 },
];

type Floor = ReturnType<typeof warehouse>;
type Count = {
  id: string;
  locationCode: string;
  reason: string;
  status: string;
  doneAt: string | null;
  doneBy: string | null;
  lines: { productExternalId: string; recordedQuantity: number; countedQuantity: number; difference: number }[];
};

/** A product's slots as [locationCode, quantity]. */
async function slotsOf(floor: Floor, product: string): Promise<[string, number][]> {
  const response = await floor.get(`/slots?productExternalId=${product}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.map((slot: { locationCode: string; quantity: number }) => [slot.locationCode, slot.quantity]);
}

async function setSlots(floor: Floor, product: string, slots: object[]) {
  expect((await floor.put(`/products/${product}/slots`, { slots })).status).toBe(200);
}

/** Every count of the tenant (of a status), by location. */
async function countsOf(floor: Floor, status?: string): Promise<Count[]> {
  const response = await floor.get(`/counts?limit=500${status ? `&status=${status}` : ''}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

/** Asks for a count of one location and answers it. */
async function countOf(floor: Floor, locationCode: string): Promise<Count> {
  const made = await floor.post('/counts', { locationCodes: [locationCode] });
  expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
  return made.body.data[0]!;
}

/** Cancels every open count: each test asks for its own. */
async function cancelOpenCounts(floor: Floor) {
  for (const open of await countsOf(floor, 'OPEN')) expect((await floor.post(`/counts/${open.id}/cancel`)).status).toBe(200);
}

describe('floor: asking for counts', () => {
  const setup = useFloor({ locations: LOCATIONS, codes: ['U-1'], products: [{ externalId: 'MUG', stock: 30 }, { externalId: 'CUP', stock: 5 }, { externalId: 'HAT', locationCode: 'B-03', stock: 2 }] });

  it('makes one count per location, REQUESTED and OPEN, and answers the open one when asked again', async () => {
    await setSlots(setup.floor, 'MUG', [{ locationCode: 'A-01', quantity: 6 }, { locationCode: 'R-09', quantity: 24, role: 'reserve' }]);
    const made = await setup.floor.post('/counts', { locationCodes: ['B-03', 'A-05', 'B-03'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject([
      { locationCode: 'A-05', reason: 'REQUESTED', status: 'OPEN', doneAt: null, doneBy: null, lines: [] },
      { locationCode: 'B-03', reason: 'REQUESTED', status: 'OPEN', lines: [] },
    ]);
    const again = await setup.floor.post('/counts', { locationCodes: ['A-05'] });
    expect(again.status).toBe(200);
    expect(again.body.data.map((count: Count) => count.id)).toEqual([made.body.data[0]!.id]);
    expect((await countsOf(setup.floor, 'OPEN')).map((count) => count.locationCode)).toEqual(['A-05', 'B-03']);
  });

  it("counts every location holding a slot of the products named, with the ones named, each once", async () => {
    await cancelOpenCounts(setup.floor);
    const made = await setup.floor.post('/counts', { productExternalIds: ['MUG'], locationCodes: ['A-01', 'B-03'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.map((count: Count) => count.locationCode)).toEqual(['A-01', 'B-03', 'R-09']);
    expect((await countsOf(setup.floor, 'OPEN')).length).toBe(3);
  });

  it.each([
    [{}, 400, 'locationCodes'],
    [{ locationCodes: [] }, 400, 'locationCodes'],
    [{ locationCodes: ['A-01', 'Z-99'] }, 400, 'locationCodes[1]'],
    [{ locationCodes: ['U-1'] }, 400, 'locationCodes[0]'],
    [{ locationCodes: ['A-01'], productExternalIds: ['CUP'] }, 400, 'productExternalIds[0]'],
    [{ productExternalIds: ['MUG', 'NOPE'] }, 404, null],
  ])('refuses %j with %i naming the field, and makes nothing', async (body, status, field) => {
    await cancelOpenCounts(setup.floor);
    const refused = await setup.floor.post('/counts', body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(status);
    if (field) expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    else expect(refused.body.error.message).toContain('NOPE');
    expect(await countsOf(setup.floor, 'OPEN')).toEqual([]);
  });

  it('askForCounts makes a SHORT_PICK count of each location without an open one, and keeps an open one as it is', async () => {
    await cancelOpenCounts(setup.floor);
    const requested = await countOf(setup.floor, 'A-01');
    await setup.ctx.database.db.transaction().execute((tx) => askForCounts(tx, setup.tenant.id, ['A-01', 'A-05', 'A-05'], 'SHORT_PICK'));
    expect((await countsOf(setup.floor, 'OPEN')).map((count) => [count.locationCode, count.reason, count.id === requested.id])).toEqual([
      ['A-01', 'REQUESTED', true],
      ['A-05', 'SHORT_PICK', false],
    ]);
  });
});

describe('floor: finishing a count', () => {
  const setup = useFloor({
    locations: LOCATIONS,
    products: [{ externalId: 'JAR', stock: 20 }, { externalId: 'LID', stock: 8 }, { externalId: 'TEA', stock: 5 }, { externalId: 'PAN', locationCode: 'B-03', stock: 3 }],
  });

  /** JAR: face A-01 of 12 (min 2, max 12), reserve R-09 of 8; LID: 8 at A-01; TEA: 5 at B-03; no open count. */
  async function freshFloor() {
    await cancelOpenCounts(setup.floor);
    await setSlots(setup.floor, 'JAR', [{ locationCode: 'A-01', quantity: 12, min: 2, max: 12 }, { locationCode: 'R-09', quantity: 8, role: 'reserve' }]);
    await setSlots(setup.floor, 'LID', [{ locationCode: 'A-01', quantity: 8 }]);
    await setSlots(setup.floor, 'TEA', [{ locationCode: 'B-03', quantity: 5 }]);
    for (const [product, stock] of [['JAR', 20], ['LID', 8], ['TEA', 5]] as const) {
      expect((await setup.tenant.api.post('/products', { externalId: product, sku: `SKU-${product}`, name: product, stock })).status).toBe(200);
    }
  }

  it('sets each slot to what was counted (0 when not listed), makes a slot for a product found there, and changes the stock by the difference', async () => {
    await freshFloor();
    const count = await countOf(setup.floor, 'A-01');
    const eventsBefore = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).length;
    const finished = await setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'JAR', quantity: 10 }, { productExternalId: 'TEA', quantity: 2 }] });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.data).toMatchObject({ status: 'DONE', doneBy: null, doneAt: expect.any(String) });
    expect(finished.body.data.lines).toEqual([
      { productExternalId: 'JAR', sku: 'SKU-JAR', lot: null, recordedQuantity: 12, countedQuantity: 10, difference: -2 },
      { productExternalId: 'LID', sku: 'SKU-LID', lot: null, recordedQuantity: 8, countedQuantity: 0, difference: -8 },
      { productExternalId: 'TEA', sku: 'SKU-TEA', lot: null, recordedQuantity: 0, countedQuantity: 2, difference: 2 },
    ]);
    expect(await slotsOf(setup.floor, 'JAR')).toEqual([['A-01', 10], ['R-09', 8]]);
    expect(await slotsOf(setup.floor, 'LID')).toEqual([['A-01', 0]]);
    expect(await slotsOf(setup.floor, 'TEA')).toEqual([['A-01', 2], ['B-03', 5]]);
    expect([await stockOf(setup.tenant, 'JAR'), await stockOf(setup.tenant, 'LID'), await stockOf(setup.tenant, 'TEA')]).toEqual([18, 0, 7]);
    const events = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).slice(eventsBefore);
    // One transaction: its events share a time, so they are compared by product.
    expect(events.map((event) => [event.data.sku, event.data.previousStock, event.data.newStock, event.data.reason]).sort()).toEqual([
      ['SKU-JAR', 20, 18, 'MANUAL_ADJUSTMENT'],
      ['SKU-LID', 8, 0, 'MANUAL_ADJUSTMENT'],
      ['SKU-TEA', 5, 7, 'MANUAL_ADJUSTMENT'],
    ]);
    // The history keeps it.
    expect((await setup.floor.get(`/counts/${count.id}`)).body.data).toEqual(finished.body.data);
    expect((await countsOf(setup.floor, 'DONE')).map((done) => done.id)).toContain(count.id);
  });

  it('changes no stock and emits nothing when the count agrees with the records', async () => {
    await freshFloor();
    const count = await countOf(setup.floor, 'B-03');
    const eventsBefore = (await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).length;
    const finished = await setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'TEA', quantity: 5 }] });
    expect(finished.body.data.lines).toEqual([{ productExternalId: 'TEA', sku: 'SKU-TEA', lot: null, recordedQuantity: 5, countedQuantity: 5, difference: 0 }]);
    expect(await stockOf(setup.tenant, 'TEA')).toBe(5);
    expect((await eventsOf(setup.ctx, setup.tenant, 'product.stock_updated')).length).toBe(eventsBefore);
  });

  it('asks for a top-up when the count leaves a pick face at its min', async () => {
    await freshFloor();
    const count = await countOf(setup.floor, 'A-01');
    expect((await setup.floor.get('/replenishments?status=OPEN')).body.data).toEqual([]);
    expect((await setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'JAR', quantity: 1 }, { productExternalId: 'LID', quantity: 8 }] })).status).toBe(200);
    expect((await setup.floor.get('/replenishments?status=OPEN')).body.data).toMatchObject([
      { productExternalId: 'JAR', fromLocationCode: 'R-09', toLocationCode: 'A-01', quantity: 8, reason: 'MIN' },
    ]);
  });

  it('finished twice, or finished then cancelled, answers 409 naming the state and changes nothing more', async () => {
    await freshFloor();
    const count = await countOf(setup.floor, 'B-03');
    expect((await setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'TEA', quantity: 4 }] })).status).toBe(200);
    for (const [action, body] of [['finish', { lines: [{ productExternalId: 'TEA', quantity: 1 }] }], ['cancel', undefined]] as const) {
      const again = await setup.floor.post(`/counts/${count.id}/${action}`, body);
      expect(again.status, JSON.stringify(again.body)).toBe(409);
      expect(again.body.error.message).toContain('DONE');
    }
    expect(await slotsOf(setup.floor, 'TEA')).toEqual([['B-03', 4]]);
    expect(await stockOf(setup.tenant, 'TEA')).toBe(4);
  });

  it('cancels an open count without changing anything; a cancelled count is not finished', async () => {
    await freshFloor();
    const count = await countOf(setup.floor, 'B-03');
    const cancelled = await setup.floor.post(`/counts/${count.id}/cancel`);
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', doneAt: expect.any(String), lines: [] });
    const refused = await setup.floor.post(`/counts/${count.id}/finish`, { lines: [] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('CANCELLED');
    expect(await slotsOf(setup.floor, 'TEA')).toEqual([['B-03', 5]]);
    // The location may be counted again.
    expect((await setup.floor.post('/counts', { locationCodes: ['B-03'] })).status).toBe(201);
  });

  it.each([
    [{ lines: [{ productExternalId: 'TEA', quantity: -1 }] }, 400, 'lines[0].quantity'],
    [{ lines: [{ productExternalId: 'TEA', quantity: 1.5 }] }, 400, 'lines[0].quantity'],
    [{ lines: [{ productExternalId: 'TEA' }] }, 400, 'lines[0].quantity'],
    [{}, 400, 'lines'],
    [{ lines: [{ productExternalId: 'TEA', quantity: 1 }, { productExternalId: 'TEA', quantity: 2 }] }, 400, 'lines[1].productExternalId'],
    [{ lines: [{ productExternalId: 'TEA', quantity: 1 }, { productExternalId: 'PAN', quantity: 2 }] }, 400, 'lines[1].productExternalId'],
    [{ lines: [{ productExternalId: 'NOPE', quantity: 1 }] }, 404, null],
  ])('refuses %j with %i naming the field, and changes nothing', async (body, status, field) => {
    await freshFloor();
    const count = await countOf(setup.floor, 'B-03');
    const refused = await setup.floor.post(`/counts/${count.id}/finish`, body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(status);
    if (field) expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    else expect(refused.body.error.message).toContain('NOPE');
    expect((await setup.floor.get(`/counts/${count.id}`)).body.data.status).toBe('OPEN');
    expect(await slotsOf(setup.floor, 'TEA')).toEqual([['B-03', 5]]);
    expect(await slotsOf(setup.floor, 'PAN')).toEqual([]);
    expect(await stockOf(setup.tenant, 'TEA')).toBe(5);
  });

  it('applies two finishes of one count at the same time once', async () => {
    await freshFloor();
    const count = await countOf(setup.floor, 'B-03');
    const answers = await Promise.all([3, 1].map((quantity) => setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'TEA', quantity }] })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.error.message).toContain('DONE');
    const counted = answers.find((answer) => answer.status === 200)!.body.data.lines[0]!.countedQuantity;
    expect(await slotsOf(setup.floor, 'TEA')).toEqual([['B-03', counted]]);
    expect(await stockOf(setup.tenant, 'TEA')).toBe(counted);
  });

  it('lists by location, then oldest first, page by page, and by status', async () => {
    await freshFloor();
    await setup.floor.post('/counts', { locationCodes: ['A-05', 'A-01'] });
    const all = await countsOf(setup.floor);
    expect(all.length).toBeGreaterThan(3);
    expect(all.map((count) => count.locationCode)).toEqual([...all.map((count) => count.locationCode)].sort());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Count[]; pagination: { nextCursor: string | null; total: number } } } = await setup.floor.get(`/counts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.pagination.total).toBe(all.length);
      seen.push(...page.body.data.map((count) => count.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((count) => count.id));
    for (const status of ['OPEN', 'DONE', 'CANCELLED']) {
      expect((await countsOf(setup.floor, status)).map((count) => count.id)).toEqual(all.filter((count) => count.status === status).map((count) => count.id));
    }
    expect((await setup.floor.get('/counts?status=LATE')).status).toBe(400);
    expect((await setup.floor.get('/counts?cursor=nonsense')).status).toBe(400);
  });
});

describe('floor: a count while a wave is picking at the location', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'BOWL', stock: 10 }] });

  /** BOWL: 10 at A-01; a wave of an order of 3 with the pick recorded at A-01, not completed yet. */
  async function pickedNotCompleted(order_: string) {
    await setSlots(setup.floor, 'BOWL', [{ locationCode: 'A-01', quantity: 10 }]);
    expect((await setup.tenant.api.post('/products', { externalId: 'BOWL', sku: 'SKU-BOWL', name: 'Bowl', stock: 10 })).status).toBe(200);
    expect((await setup.tenant.api.post('/orders', order(order_, [item('BOWL', 3)]))).status).toBe(201);
    const wave = await setup.floor.post('/waves', { orders: [order_] });
    expect(wave.status, JSON.stringify(wave.body)).toBe(201);
    const picked = await setup.floor.post(`/waves/${wave.body.data.id}/picks`, { orderExternalId: order_, productExternalId: 'BOWL', quantity: 3 });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    return wave.body.data.id as string;
  }

  it('nets the units picked by the open wave: the count agrees, and completing the wave leaves slot and stock right', async () => {
    const waveId = await pickedNotCompleted('C-1');
    const count = await countOf(setup.floor, 'A-01');
    // 3 of the 10 are on the cart: 7 stand on the shelf.
    const finished = await setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'BOWL', quantity: 7 }] });
    expect(finished.body.data.lines).toEqual([{ productExternalId: 'BOWL', sku: 'SKU-BOWL', lot: null, recordedQuantity: 7, countedQuantity: 7, difference: 0 }]);
    expect(await slotsOf(setup.floor, 'BOWL')).toEqual([['A-01', 10]]);
    expect(await stockOf(setup.tenant, 'BOWL')).toBe(10);
    expect((await setup.floor.post(`/waves/${waveId}/complete`)).status).toBe(200);
    expect(await slotsOf(setup.floor, 'BOWL')).toEqual([['A-01', 7]]);
    expect(await stockOf(setup.tenant, 'BOWL')).toBe(7);
  });

  it('nets them when the count finds fewer too: the stock loses only the units missing', async () => {
    const waveId = await pickedNotCompleted('C-2');
    const count = await countOf(setup.floor, 'A-01');
    const finished = await setup.floor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'BOWL', quantity: 5 }] });
    expect(finished.body.data.lines).toEqual([{ productExternalId: 'BOWL', sku: 'SKU-BOWL', lot: null, recordedQuantity: 7, countedQuantity: 5, difference: -2 }]);
    expect(await slotsOf(setup.floor, 'BOWL')).toEqual([['A-01', 8]]);
    expect(await stockOf(setup.tenant, 'BOWL')).toBe(8);
    expect((await setup.floor.post(`/waves/${waveId}/complete`)).status).toBe(200);
    expect(await slotsOf(setup.floor, 'BOWL')).toEqual([['A-01', 5]]);
    expect(await stockOf(setup.tenant, 'BOWL')).toBe(5);
  });
});

describe('floor: counts, security', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'FORK', stock: 10 }] });

  it('needs the admin token, and keeps each tenant its own counts (404)', async () => {
    await setSlots(setup.floor, 'FORK', [{ locationCode: 'A-01', quantity: 10 }]);
    const count = await countOf(setup.floor, 'A-01');
    const base = `/api/v1/warehouse/tenants/${setup.tenant.slug}`;
    await expectAdminTokenNeeded(setup.ctx, setup.tenant, [
      ['POST', `${base}/counts`, { locationCodes: ['A-05'] }],
      ['GET', `${base}/counts`, undefined],
      ['GET', `${base}/counts/${count.id}`, undefined],
      ['POST', `${base}/counts/${count.id}/finish`, { lines: [] }],
      ['POST', `${base}/counts/${count.id}/cancel`, undefined],
    ]);

    const other = await setup.ctx.tenant(UNLIMITED);
    const otherFloor = await floorOf(setup.ctx, other, LOCATIONS);
    await seedPlacedProducts(other, [{ externalId: 'FORK', stock: 10 }]);
    expect((await otherFloor.get(`/counts/${count.id}`)).status).toBe(404);
    expect((await otherFloor.post(`/counts/${count.id}/finish`, { lines: [{ productExternalId: 'FORK', quantity: 0 }] })).status).toBe(404);
    expect((await otherFloor.post(`/counts/${count.id}/cancel`)).status).toBe(404);
    expect(await countsOf(otherFloor)).toEqual([]);
    expect((await setup.floor.get('/counts/019a5b70-1c2d-7e3f-8a4b-5c6d7e8f9a01')).status).toBe(404);
    expect((await setup.floor.get('/counts/not-a-uuid')).status).toBe(400);
    // Nothing of the first tenant's changed.
    expect((await countsOf(setup.floor)).map((open) => [open.id, open.status])).toEqual([[count.id, 'OPEN']]);
    expect(await slotsOf(setup.floor, 'FORK')).toEqual([['A-01', 10]]);
    expect(await stockOf(setup.tenant, 'FORK')).toBe(10);
  });
});
