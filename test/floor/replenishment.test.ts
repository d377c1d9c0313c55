import { describe, expect, it } from 'vitest';
import { makePlannedWave, PlanOvertaken, planWave, withFreshPlan, type PlannedWave, type WaveRequest } from '../../src/floor/wave-commands';
import { UNLIMITED } from '../helpers/context';
import { item, order, stockOf, warehouse } from '../orders/helpers';
import { clearPool, expectAdminTokenNeeded, floorOf, seedPlacedProducts, useFloor } from './helpers';

/*
 * Pick faces, reserve and replenishment. The floor: faces near the depot in aisle 1 (A-01, A-05)
 * and aisle 2 (B-03), reserve at the back of aisle 4 (R-09, R-10).
 */
const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'A-05', aisle: 1, position: 5 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'R-09', aisle: 4, position: 9 },
  { code: 'R-10', aisle: 4, position: 10 },
];

type Floor = ReturnType<typeof warehouse>;
type Task = { id: string; productExternalId: string; fromLocationCode: string; toLocationCode: string; quantity: number; reason: string; status: string };

/** A product's slots as [locationCode, role, quantity]. */
async function slotsOf(floor: Floor, product: string): Promise<[string, string, number][]> {
  const response = await floor.get(`/slots?productExternalId=${product}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.map((slot: { locationCode: string; role: string; quantity: number }) => [slot.locationCode, slot.role, slot.quantity]);
}

/** Every task of the tenant (of a status), first in line first. */
async function tasksOf(floor: Floor, status?: string): Promise<Task[]> {
  const response = await floor.get(`/replenishments?limit=500${status ? `&status=${status}` : ''}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

async function setSlots(floor: Floor, product: string, slots: object[]) {
  const response = await floor.put(`/products/${product}/slots`, { slots });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

async function setSettings(floor: Floor, settings: object) {
  expect((await floor.put('/settings', settings)).status).toBe(200);
}

let orders = 0;
/** Places an order of the given lines; returns its externalId. */
async function placeOrder(tenant: Parameters<typeof stockOf>[0], lines: [string, number][], extra: object = {}): Promise<string> {
  const id = `R-${++orders}`;
  const placed = await tenant.api.post('/orders', order(id, lines.map(([product, quantity]) => item(product, quantity)), extra));
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  return id;
}

/** Records every part of the wave picked in full and completes it. */
async function pickAndComplete(floor: Floor, wave: { id: string; stops: { locationCode: string; lines: { orderExternalId: string; productExternalId: string; quantity: number }[] }[] }) {
  for (const stop of wave.stops) {
    for (const line of stop.lines) {
      const picked = await floor.post(`/waves/${wave.id}/picks`, { orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: line.quantity, locationCode: stop.locationCode });
      expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    }
  }
  const done = await floor.post(`/waves/${wave.id}/complete`);
  expect(done.status, JSON.stringify(done.body)).toBe(200);
}

describe('floor: slots with roles (pick faces and reserve)', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'MUG', stock: 30 }, { externalId: 'CUP', stock: 5 }] });

  it('stores role, min and max, a pick face without them by default, and lists them', async () => {
    const put = await setup.floor.put('/slots', {
      slots: [
        { productExternalId: 'MUG', locationCode: 'A-01', quantity: 6, min: 2, max: 10 },
        { productExternalId: 'MUG', locationCode: 'R-09', quantity: 24, role: 'reserve' },
        { productExternalId: 'CUP', locationCode: 'B-03', quantity: 5 },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect([...(await setup.floor.get('/slots')).body.data].sort((a, b) => a.locationCode.localeCompare(b.locationCode))).toEqual([
      { productExternalId: 'MUG', locationCode: 'A-01', quantity: 6, role: 'pick', min: 2, max: 10, lot: null, expiresOn: null },
      { productExternalId: 'CUP', locationCode: 'B-03', quantity: 5, role: 'pick', min: null, max: null, lot: null, expiresOn: null },
      { productExternalId: 'MUG', locationCode: 'R-09', quantity: 24, role: 'reserve', min: null, max: null, lot: null, expiresOn: null },
    ]);
    expect(await setSlots(setup.floor, 'CUP', [{ locationCode: 'B-03', quantity: 3, role: 'pick', min: 0, max: 3 }, { locationCode: 'R-10', quantity: 2, role: 'reserve' }])).toEqual([
      { productExternalId: 'CUP', locationCode: 'B-03', quantity: 3, role: 'pick', min: 0, max: 3, lot: null, expiresOn: null },
      { productExternalId: 'CUP', locationCode: 'R-10', quantity: 2, role: 'reserve', min: null, max: null, lot: null, expiresOn: null },
    ]);
  });

  it.each([
    ['a reserve slot with min', { role: 'reserve', min: 1, max: 4 }, 'slots[1].min'],
    ['a reserve slot with max alone', { role: 'reserve', max: 4 }, 'slots[1].max'],
    ['min without max', { min: 1 }, 'slots[1].max'],
    ['max without min', { max: 4 }, 'slots[1].min'],
    ['min above max', { min: 5, max: 4 }, 'slots[1].min'],
    ['a negative min', { min: -1, max: 4 }, 'slots[1].min'],
    ['a fractional max', { min: 1, max: 4.5 }, 'slots[1].max'],
    ['an unknown role', { role: 'overflow' }, 'slots[1].role'],
  ])('refuses %s with 400 naming the field, and changes nothing', async (_, changes, field) => {
    const kept = [{ productExternalId: 'MUG', locationCode: 'A-01', quantity: 6, min: 2, max: 10 }];
    expect((await setup.floor.put('/slots', { slots: kept })).status).toBe(200);
    const before = (await setup.floor.get('/slots')).body.data;
    const whole = await setup.floor.put('/slots', { slots: [kept[0], { productExternalId: 'CUP', locationCode: 'B-03', quantity: 1, ...changes }] });
    expect(whole.status, JSON.stringify(whole.body)).toBe(400);
    expect(whole.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    const one = await setup.floor.put('/products/CUP/slots', { slots: [{ locationCode: 'A-05', quantity: 1 }, { locationCode: 'B-03', quantity: 1, ...changes }] });
    expect(one.status, JSON.stringify(one.body)).toBe(400);
    expect(one.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    expect((await setup.floor.get('/slots')).body.data).toEqual(before);
    expect(await tasksOf(setup.floor)).toEqual([]);
  });
});

describe('floor: routes for items take from pick faces', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'TEA', stock: 12 }, { externalId: 'PAN', locationCode: 'B-03', stock: 9 }] });

  const route = async (items: object[]) => {
    const response = await setup.floor.post('/routes', { items, policy: 's-shape' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };

  it('never takes from reserve without pickFromReserve, and with it only what the faces cannot cover', async () => {
    await setSlots(setup.floor, 'TEA', [{ locationCode: 'A-01', quantity: 2 }, { locationCode: 'R-09', quantity: 10, role: 'reserve' }]);
    await setSettings(setup.floor, { pickFromReserve: false });
    let answer = await route([{ productExternalId: 'TEA', quantity: 5 }]);
    expect(answer.stops.map((stop) => [stop.locationCode, stop.picks])).toEqual([['A-01', [{ productExternalId: 'TEA', quantity: 2 }]]]);
    expect(answer.short).toEqual([{ productExternalId: 'TEA', quantity: 3 }]);
    // What the faces cover never goes to reserve, setting or not.
    answer = await route([{ productExternalId: 'TEA', quantity: 2 }]);
    expect(answer.stops.map((stop) => stop.locationCode)).toEqual(['A-01']);

    await setSettings(setup.floor, { pickFromReserve: true });
    answer = await route([{ productExternalId: 'TEA', quantity: 5 }, { productExternalId: 'PAN', quantity: 1 }]);
    expect(answer.stops.map((stop) => [stop.locationCode, stop.picks])).toEqual([
      ['A-01', [{ productExternalId: 'TEA', quantity: 2 }]],
      ['B-03', [{ productExternalId: 'PAN', quantity: 1 }]],
      ['R-09', [{ productExternalId: 'TEA', quantity: 3 }]],
    ]);
    expect(answer.short).toEqual([]);
    answer = await route([{ productExternalId: 'TEA', quantity: 2 }]);
    expect(answer.stops.map((stop) => stop.locationCode)).toEqual(['A-01']);
    await setSettings(setup.floor, { pickFromReserve: false });
  });

  it('counts what a PICKING wave plans to take at a face as taken', async () => {
    await clearPool(setup);
    await setSlots(setup.floor, 'TEA', [{ locationCode: 'A-01', quantity: 3 }, { locationCode: 'R-09', quantity: 9, role: 'reserve' }]);
    const id = await placeOrder(setup.tenant, [['TEA', 2]]);
    const made = await setup.floor.post('/waves', { orders: [id] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const answer = await route([{ productExternalId: 'TEA', quantity: 3 }]);
    expect(answer.stops.map((stop) => [stop.locationCode, stop.picks])).toEqual([['A-01', [{ productExternalId: 'TEA', quantity: 1 }]]]);
    expect(answer.short).toEqual([{ productExternalId: 'TEA', quantity: 2 }]);
    await setup.floor.post(`/waves/${made.body.data.id}/release`);
    expect((await route([{ productExternalId: 'TEA', quantity: 3 }])).short).toEqual([]);
    await clearPool(setup);
  });
});

describe('floor: a wave planned from a face that another wave takes from meanwhile', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'OIL', stock: 9 }] });

  it('is planned again from what is left: the units are never counted twice', async () => {
    await setSlots(setup.floor, 'OIL', [{ locationCode: 'A-01', quantity: 3 }, { locationCode: 'B-03', quantity: 6 }]);
    const first = await placeOrder(setup.tenant, [['OIL', 3]]);
    const second = await placeOrder(setup.tenant, [['OIL', 3]]);
    const context = { db: setup.ctx.database.db, planner: setup.ctx.app.planner, tenantId: setup.tenant.id, deadline: setup.ctx.app.planner.deadline() };
    const request: WaveRequest = { orders: [second], maxOrders: 8, maxItems: 40, policy: 'optimal' };
    const stale = await planWave(request, { ...context, excluded: [] });
    expect(stale.walk.lines.map((line) => line.location_code)).toEqual(['A-01']);
    // Meanwhile another wave takes the 3 units at A-01.
    const made = await setup.floor.post('/waves', { orders: [first] });
    expect(made.body.data.stops.map((stop: { locationCode: string }) => stop.locationCode)).toEqual(['A-01']);
    const make = (planned: PlannedWave) => setup.ctx.database.db.transaction().execute((tx) => makePlannedWave(tx, setup.tenant.id, planned));
    await expect(make(stale)).rejects.toBeInstanceOf(PlanOvertaken);
    const wave = await withFreshPlan(request, context, (planned) => make(planned ?? stale), { planFirst: false });
    const lines = (await setup.floor.get(`/waves/${wave.waveId}`)).body.data.stops.map((stop: { locationCode: string }) => stop.locationCode);
    expect(lines).toEqual(['B-03']);
  });
});

describe('floor: the plan of carts holds what the faces cannot cover, and a wave asks for it (DEMAND)', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'JAR', stock: 23 }, { externalId: 'LID', stock: 6 }] });

  it('holds the order, makes one DEMAND task first in line, and completing it brings the order back', async () => {
    await clearPool(setup);
    await setSlots(setup.floor, 'JAR', [{ locationCode: 'A-05', quantity: 3, min: 0, max: 6 }, { locationCode: 'R-09', quantity: 20, role: 'reserve' }]);
    // LID's face sits at its min with reserve: a MIN top-up, behind the DEMAND in the line.
    await setSlots(setup.floor, 'LID', [{ locationCode: 'A-01', quantity: 1, min: 1, max: 4 }, { locationCode: 'R-10', quantity: 5, role: 'reserve' }]);
    const first = await placeOrder(setup.tenant, [['JAR', 2]], { priority: 'urgent' });
    const second = await placeOrder(setup.tenant, [['JAR', 3]]);

    const plan = (await setup.floor.get('/waves/plan')).body.data;
    expect(plan.carts.map((cart: { orders: { externalId: string }[] }) => cart.orders.map((o) => o.externalId))).toEqual([[first]]);
    expect(plan.held).toMatchObject([{ externalId: second, short: [{ productExternalId: 'JAR', needed: 3, available: 1 }] }]);
    // Reading the plan asks for nothing.
    expect((await tasksOf(setup.floor)).map((task) => task.reason)).toEqual(['MIN']);

    const made = await setup.floor.post('/waves', {});
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.orders.map((o: { externalId: string }) => o.externalId)).toEqual([first]);
    // Fill the face to max (6 - 3 = 3, more than the 2 the held order lacks), from the reserve: DEMAND first, then MIN.
    let open = await tasksOf(setup.floor, 'OPEN');
    expect(open.map(({ productExternalId, fromLocationCode, toLocationCode, quantity, reason }) => [productExternalId, fromLocationCode, toLocationCode, quantity, reason])).toEqual([
      ['JAR', 'R-09', 'A-05', 3, 'DEMAND'],
      ['LID', 'R-10', 'A-01', 3, 'MIN'],
    ]);
    // The pool still holds the order: another attempt makes no second task (NOTHING_TO_PICK: nothing else is free).
    expect((await setup.floor.post('/waves', {})).status).toBe(409);
    expect(await tasksOf(setup.floor, 'OPEN')).toEqual(open);

    const demand = open[0]!;
    const shown = await setup.floor.get(`/replenishments/${demand.id}`);
    expect(shown.body.data).toEqual({ ...demand, movedQuantity: null, doneAt: null, doneBy: null, sku: 'SKU-JAR', createdAt: expect.any(String) });
    const done = await setup.floor.post(`/replenishments/${demand.id}/complete`, { quantity: 3 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data).toMatchObject({ status: 'DONE', movedQuantity: 3, quantity: 3, doneAt: expect.any(String), doneBy: null });
    expect(await slotsOf(setup.floor, 'JAR')).toEqual([
      ['A-05', 'pick', 6],
      ['R-09', 'reserve', 17],
    ]);
    expect(await stockOf(setup.tenant, 'JAR')).toBe(23);
    // The face now covers the held order (6, less the 2 the PICKING wave plans to take).
    const after = (await setup.floor.get('/waves/plan')).body.data;
    expect(after.held).toEqual([]);
    expect(after.carts.flatMap((cart: { orders: { externalId: string }[] }) => cart.orders.map((o) => o.externalId))).toEqual([second]);
    open = await tasksOf(setup.floor, 'OPEN');
    expect(open.map((task) => task.reason)).toEqual(['MIN']);
    await clearPool(setup);
  });

  it('a wave that finds an order held for a face whose top-up is open moves that task to the head of the line', async () => {
    await clearPool(setup);
    for (const task of await tasksOf(setup.floor, 'OPEN')) await setup.floor.post(`/replenishments/${task.id}/cancel`);
    await setSlots(setup.floor, 'LID', [{ locationCode: 'A-01', quantity: 1, min: 1, max: 4 }, { locationCode: 'R-10', quantity: 5, role: 'reserve' }]);
    await setSlots(setup.floor, 'JAR', [{ locationCode: 'A-05', quantity: 1, min: 1, max: 6 }, { locationCode: 'R-09', quantity: 20, role: 'reserve' }]);
    expect((await tasksOf(setup.floor, 'OPEN')).map((task) => [task.productExternalId, task.reason])).toEqual([
      ['LID', 'MIN'],
      ['JAR', 'MIN'],
    ]);
    await placeOrder(setup.tenant, [['JAR', 3]]);
    // The only order is held: no wave, but its face's task goes first, keeping its reason and quantity.
    expect((await setup.floor.post('/waves', {})).status).toBe(409);
    expect((await tasksOf(setup.floor, 'OPEN')).map((task) => [task.productExternalId, task.reason, task.quantity])).toEqual([
      ['JAR', 'MIN', 5],
      ['LID', 'MIN', 3],
    ]);
    for (const task of await tasksOf(setup.floor, 'OPEN')) await setup.floor.post(`/replenishments/${task.id}/cancel`);
    await clearPool(setup);
  });

  it('makes no task for a product no reserve slot holds', async () => {
    await clearPool(setup);
    for (const task of await tasksOf(setup.floor, 'OPEN')) await setup.floor.post(`/replenishments/${task.id}/cancel`);
    await setSlots(setup.floor, 'LID', [{ locationCode: 'A-01', quantity: 1, min: 1, max: 4 }, { locationCode: 'R-10', quantity: 0, role: 'reserve' }]);
    const id = await placeOrder(setup.tenant, [['LID', 2]]);
    expect((await setup.floor.get('/waves/plan')).body.data.held).toMatchObject([{ externalId: id }]);
    expect((await setup.floor.post('/waves', {})).status).toBe(409);
    expect(await tasksOf(setup.floor, 'OPEN')).toEqual([]);
    await clearPool(setup);
  });
});

describe('floor: MIN tasks', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'BOWL', stock: 40 }] });

  it('asks for a top-up when a wave picks a face down to its min, once per face, to max from the fullest reserve', async () => {
    await setSlots(setup.floor, 'BOWL', [
      { locationCode: 'A-01', quantity: 8, min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 12, role: 'reserve' },
      { locationCode: 'R-10', quantity: 20, role: 'reserve' },
    ]);
    expect(await tasksOf(setup.floor)).toEqual([]);
    const id = await placeOrder(setup.tenant, [['BOWL', 5]]);
    const made = await setup.floor.post('/waves', { orders: [id] });
    await pickAndComplete(setup.floor, made.body.data);
    const [task, ...others] = await tasksOf(setup.floor, 'OPEN');
    expect(others).toEqual([]);
    expect(task).toMatchObject({ productExternalId: 'BOWL', fromLocationCode: 'R-10', toLocationCode: 'A-01', quantity: 7, reason: 'MIN', status: 'OPEN' });
    // Writing the slots again keeps the one open task.
    await setSlots(setup.floor, 'BOWL', [
      { locationCode: 'A-01', quantity: 2, min: 3, max: 10 },
      { locationCode: 'R-09', quantity: 12, role: 'reserve' },
      { locationCode: 'R-10', quantity: 20, role: 'reserve' },
    ]);
    expect((await tasksOf(setup.floor, 'OPEN')).map((open) => open.id)).toEqual([task!.id]);
    // A face whose reserve slot goes away loses its task, and a new one is made from what is left.
    await setSlots(setup.floor, 'BOWL', [{ locationCode: 'A-01', quantity: 2, min: 3, max: 10 }, { locationCode: 'R-09', quantity: 4, role: 'reserve' }]);
    expect((await setup.floor.get(`/replenishments/${task!.id}`)).body.data.status).toBe('CANCELLED');
    expect(await tasksOf(setup.floor, 'OPEN')).toMatchObject([{ fromLocationCode: 'R-09', toLocationCode: 'A-01', quantity: 4, reason: 'MIN' }]);
  });
});

describe('floor: completing and cancelling a task', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'PLATE', stock: 30 }] });

  /** Sets PLATE's slots afresh (face 1 of min 2 / max 10, reserve 29) and answers its one open MIN task. */
  async function freshTask(reserve = 29): Promise<Task> {
    for (const open of await tasksOf(setup.floor, 'OPEN')) await setup.floor.post(`/replenishments/${open.id}/cancel`);
    await setSlots(setup.floor, 'PLATE', [{ locationCode: 'A-01', quantity: 1, min: 2, max: 10 }, { locationCode: 'R-09', quantity: reserve, role: 'reserve' }]);
    const [task] = await tasksOf(setup.floor, 'OPEN');
    expect(task).toMatchObject({ quantity: 9, reason: 'MIN' });
    return task!;
  }

  it.each([
    [{ quantity: 0 }, 'quantity'],
    [{ quantity: -2 }, 'quantity'],
    [{ quantity: 1.5 }, 'quantity'],
    [{}, 'quantity'],
  ])('refuses %j with 400 naming %s, and changes nothing', async (body, field) => {
    const task = await freshTask();
    const refused = await setup.floor.post(`/replenishments/${task.id}/complete`, body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    expect((await setup.floor.get(`/replenishments/${task.id}`)).body.data.status).toBe('OPEN');
    expect(await slotsOf(setup.floor, 'PLATE')).toEqual([
      ['A-01', 'pick', 1],
      ['R-09', 'reserve', 29],
    ]);
  });

  it('refuses with 409 to take more than the reserve slot holds, and changes nothing', async () => {
    const task = await freshTask(29);
    const refused = await setup.floor.post(`/replenishments/${task.id}/complete`, { quantity: 30 });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect(refused.body.error.details).toMatchObject([{ field: 'quantity' }]);
    expect((await setup.floor.get(`/replenishments/${task.id}`)).body.data.status).toBe('OPEN');
    expect(await slotsOf(setup.floor, 'PLATE')).toEqual([
      ['A-01', 'pick', 1],
      ['R-09', 'reserve', 29],
    ]);
  });

  it('moves the units at once, stock unchanged; completing twice or cancelling then is a 409 naming the state', async () => {
    const task = await freshTask();
    const done = await setup.floor.post(`/replenishments/${task.id}/complete`, { quantity: 29 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await slotsOf(setup.floor, 'PLATE')).toEqual([
      ['A-01', 'pick', 30],
      ['R-09', 'reserve', 0],
    ]);
    expect(await stockOf(setup.tenant, 'PLATE')).toBe(30);
    for (const action of ['complete', 'cancel']) {
      const again = await setup.floor.post(`/replenishments/${task.id}/${action}`, action === 'complete' ? { quantity: 1 } : undefined);
      expect(again.status).toBe(409);
      expect(again.body.error.message).toContain('DONE');
    }
    expect(await slotsOf(setup.floor, 'PLATE')).toEqual([
      ['A-01', 'pick', 30],
      ['R-09', 'reserve', 0],
    ]);
  });

  it('cancels an open task without moving anything; a cancelled task is not completed', async () => {
    const task = await freshTask();
    const cancelled = await setup.floor.post(`/replenishments/${task.id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', doneAt: expect.any(String), movedQuantity: null });
    const refused = await setup.floor.post(`/replenishments/${task.id}/complete`, { quantity: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('CANCELLED');
    expect(await slotsOf(setup.floor, 'PLATE')).toEqual([
      ['A-01', 'pick', 1],
      ['R-09', 'reserve', 29],
    ]);
  });

  it('applies two completions of one task at the same time once', async () => {
    const task = await freshTask();
    const answers = await Promise.all([5, 7].map((quantity) => setup.floor.post(`/replenishments/${task.id}/complete`, { quantity })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const moved = answers.find((answer) => answer.status === 200)!.body.data.movedQuantity!;
    expect(await slotsOf(setup.floor, 'PLATE')).toEqual([
      ['A-01', 'pick', 1 + moved],
      ['R-09', 'reserve', 29 - moved],
    ]);
    expect(await stockOf(setup.tenant, 'PLATE')).toBe(30);
  });

  it('lists by status, first in line first, page by page', async () => {
    await freshTask();
    const all = await tasksOf(setup.floor);
    expect(all.length).toBeGreaterThan(2);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Task[]; pagination: { nextCursor: string | null; total: number } } } = await setup.floor.get(`/replenishments?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.pagination.total).toBe(all.length);
      seen.push(...page.body.data.map((task) => task.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((task) => task.id));
    for (const status of ['OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED']) {
      expect((await tasksOf(setup.floor, status)).map((task) => task.id)).toEqual(all.filter((task) => task.status === status).map((task) => task.id));
    }
    expect((await setup.floor.get('/replenishments?status=LATE')).status).toBe(400);
    expect((await setup.floor.get('/replenishments?cursor=nonsense')).status).toBe(400);
  });
});

describe('floor: replenishment, security', () => {
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'FORK', stock: 10 }] });

  it('needs the admin token, and keeps each tenant its own tasks (404)', async () => {
    await setSlots(setup.floor, 'FORK', [{ locationCode: 'A-01', quantity: 0, min: 0, max: 4 }, { locationCode: 'R-09', quantity: 10, role: 'reserve' }]);
    const [task] = await tasksOf(setup.floor, 'OPEN');
    expect(task).toMatchObject({ reason: 'MIN', quantity: 4 });
    const base = `/api/v1/warehouse/tenants/${setup.tenant.slug}`;
    await expectAdminTokenNeeded(setup.ctx, setup.tenant, [
      ['GET', `${base}/replenishments`, undefined],
      ['GET', `${base}/replenishments/${task!.id}`, undefined],
      ['POST', `${base}/replenishments/${task!.id}/complete`, { quantity: 1 }],
      ['POST', `${base}/replenishments/${task!.id}/cancel`, undefined],
    ]);

    const other = await setup.ctx.tenant(UNLIMITED);
    const otherFloor = await floorOf(setup.ctx, other, LOCATIONS);
    await seedPlacedProducts(other, [{ externalId: 'FORK', stock: 10 }]);
    expect((await otherFloor.get(`/replenishments/${task!.id}`)).status).toBe(404);
    expect((await otherFloor.post(`/replenishments/${task!.id}/complete`, { quantity: 1 })).status).toBe(404);
    expect((await otherFloor.post(`/replenishments/${task!.id}/cancel`)).status).toBe(404);
    expect(await tasksOf(otherFloor)).toEqual([]);
    expect((await setup.floor.get('/replenishments/019a5b70-1c2d-7e3f-8a4b-5c6d7e8f9a01')).status).toBe(404);
    expect((await setup.floor.get('/replenishments/not-a-uuid')).status).toBe(400);
    // Nothing of the first tenant's changed.
    expect((await setup.floor.get(`/replenishments/${task!.id}`)).body.data.status).toBe('OPEN');
    expect(await slotsOf(setup.floor, 'FORK')).toEqual([
      ['A-01', 'pick', 0],
      ['R-09', 'reserve', 10],
    ]);
  });
});
