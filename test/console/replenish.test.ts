import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestTenant } from '../helpers/context';
import { floorOf, seedPlacedProducts } from '../floor/helpers';
import { warehouse } from '../orders/helpers';
import { ConsoleClient, signedIn } from './helpers';

/*
 * The replenishment screen's API. The floor (LAYOUT: aisles 3 apart, the depot at aisle 1, the
 * back cross aisle at y 13): three products whose faces stand at their min, so each has a MIN
 * task, made in this order (the line): FAR (reserve D-10, face D-09), NEAR (A-03 to A-02, by the
 * depot), BACK (D-08 to D-07). Walked in line it zig-zags: 82; the shortest walk doing each task
 * whole is NEAR, FAR, BACK: 46.
 */
const LOCATIONS = [
  { code: 'A-02', aisle: 1, position: 2 },
  { code: 'A-03', aisle: 1, position: 3 },
  { code: 'D-07', aisle: 4, position: 7 },
  { code: 'D-08', aisle: 4, position: 8 },
  { code: 'D-09', aisle: 4, position: 9 },
  { code: 'D-10', aisle: 4, position: 10 },
];
const TASKS = [
  { product: 'FAR', from: 'D-10', to: 'D-09' },
  { product: 'NEAR', from: 'A-03', to: 'A-02' },
  { product: 'BACK', from: 'D-08', to: 'D-07' },
];

const ctx = await createTestContext();
afterAll(() => ctx.close());

type Task = { id: string; productExternalId: string; status: string; doneBy: string | null; quantity: number };

/** A tenant with the floor above, and its three MIN tasks by product (each asks for 5: max 6, the face holds 1). */
async function replenishFloor(context: TestContext = ctx): Promise<{ tenant: TestTenant; floor: ReturnType<typeof warehouse>; task: Record<string, Task> }> {
  const tenant = await context.tenant();
  const floor = await floorOf(context, tenant, LOCATIONS);
  await seedPlacedProducts(
    tenant,
    TASKS.map(({ product }) => ({ externalId: product, stock: 30 })),
  );
  for (const { product, from, to } of TASKS) {
    const slots = [
      { locationCode: to, quantity: 1, min: 2, max: 6 },
      { locationCode: from, quantity: 29, role: 'reserve' },
    ];
    expect((await floor.put(`/products/${product}/slots`, { slots })).status).toBe(200);
  }
  const open: Task[] = (await floor.get('/replenishments?status=OPEN')).body.data;
  expect(open.map((task) => task.productExternalId)).toEqual(['FAR', 'NEAR', 'BACK']);
  return { tenant, floor, task: Object.fromEntries(open.map((task) => [task.productExternalId, task])) };
}

const tripOf = async (user: ConsoleClient) => {
  const trip = await user.get('/replenishments/trip');
  expect(trip.status, JSON.stringify(trip.body)).toBe(200);
  return trip.body.data;
};

describe('replenishing from the console', () => {
  it("lists a picker's trip in the shortest walking order, each task with its product, from, to, quantity and reason", async () => {
    const { tenant } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    const trip = await tripOf(picker);
    expect(trip.tasks.map((task) => task.productExternalId)).toEqual(['NEAR', 'FAR', 'BACK']);
    expect(trip).toMatchObject({ distance: 46, exact: true, waiting: 0 });
    expect(trip.tasks[0]).toMatchObject({
      sku: 'SKU-NEAR',
      name: 'Product NEAR',
      fromLocationCode: 'A-03',
      toLocationCode: 'A-02',
      lot: null,
      expiresOn: null,
      quantity: 5,
      reason: 'MIN',
      status: 'OPEN',
    });
  });

  it('names the lot a task moves in the trip, and completing it fills the face with that lot', async () => {
    const tenant = await ctx.tenant();
    const floor = await floorOf(ctx, tenant, LOCATIONS);
    await seedPlacedProducts(tenant, [{ externalId: 'OAT', stock: 30, lotTracked: true }]);
    const slots = [
      { locationCode: 'A-02', quantity: 1, lot: 'OLD', expiresOn: '2031-01-01', min: 2, max: 6 },
      { locationCode: 'A-03', quantity: 20, role: 'reserve', lot: 'LATE', expiresOn: '2031-09-01' },
      { locationCode: 'D-10', quantity: 9, role: 'reserve', lot: 'SOON', expiresOn: '2031-03-01' },
    ];
    expect((await floor.put('/products/OAT/slots', { slots })).status).toBe(200);
    const picker = await signedIn(ctx, tenant, 'picker');
    const [task] = (await tripOf(picker)).tasks;
    expect(task).toMatchObject({ productExternalId: 'OAT', fromLocationCode: 'D-10', toLocationCode: 'A-02', lot: 'SOON', expiresOn: '2031-03-01', quantity: 5 });
    expect((await picker.post(`/replenishments/${task!.id}/take`)).status).toBe(200);
    expect((await picker.post(`/replenishments/${task!.id}/complete`, { quantity: 5 })).status).toBe(200);
    const after = (await floor.get('/slots?productExternalId=OAT')).body.data;
    expect(after.map((slot: { locationCode: string; lot: string | null; quantity: number }) => [slot.locationCode, slot.lot, slot.quantity])).toEqual([
      ['A-02', 'OLD', 1],
      ['A-02', 'SOON', 5],
      ['A-03', 'LATE', 20],
      ['D-10', 'SOON', 4],
    ]);
  });

  it('takes a task in hand (IN_PROGRESS, doneBy the user), puts it first in the trip, and completes it moving the units', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    const taken = await picker.post(`/replenishments/${task.BACK!.id}/take`);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.data).toMatchObject({ status: 'IN_PROGRESS', doneBy: picker.user.username });
    // From BACK's face the shortest way on is FAR, then NEAR by the depot: 48.
    const trip = await tripOf(picker);
    expect(trip.tasks.map((t) => [t.productExternalId, t.status])).toEqual([
      ['BACK', 'IN_PROGRESS'],
      ['FAR', 'OPEN'],
      ['NEAR', 'OPEN'],
    ]);
    expect(trip.distance).toBe(48);

    const done = await picker.post(`/replenishments/${task.BACK!.id}/complete`, { quantity: 4 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data).toMatchObject({ status: 'DONE', movedQuantity: 4, doneBy: picker.user.username });
    expect((await floor.get(`/replenishments/${task.BACK!.id}`)).body.data).toMatchObject({ status: 'DONE', doneBy: picker.user.username });
    const slots = (await floor.get('/slots?productExternalId=BACK')).body.data;
    expect(slots.map((slot: { locationCode: string; quantity: number }) => [slot.locationCode, slot.quantity])).toEqual([
      ['D-07', 5],
      ['D-08', 25],
    ]);
    expect((await tripOf(picker)).tasks.map((t) => t.productExternalId)).toEqual(['NEAR', 'FAR']);
  });

  it('puts a task back: OPEN again, held by nobody, and another user takes it', async () => {
    const { tenant, task } = await replenishFloor();
    const [ana, ben] = [await signedIn(ctx, tenant, 'picker'), await signedIn(ctx, tenant, 'picker')];
    expect((await ana.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    const back = await ana.post(`/replenishments/${task.FAR!.id}/put-back`);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.data).toMatchObject({ status: 'OPEN', doneBy: null });
    expect((await ana.post(`/replenishments/${task.NEAR!.id}/take`)).status).toBe(200);
    expect((await ben.post(`/replenishments/${task.FAR!.id}/take`)).body.data).toMatchObject({ status: 'IN_PROGRESS', doneBy: ben.user.username });
  });

  it('cancels a task: CANCELLED, doneBy the user, nothing moved', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.post(`/replenishments/${task.NEAR!.id}/take`)).status).toBe(200);
    const cancelled = await picker.post(`/replenishments/${task.NEAR!.id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', doneBy: picker.user.username, movedQuantity: null });
    const slots = (await floor.get('/slots?productExternalId=NEAR')).body.data;
    expect(slots.map((slot: { quantity: number }) => slot.quantity)).toEqual([1, 29]);
  });

  it("lets a supervisor put back or cancel a task someone else holds (one left in hand at a shift's end)", async () => {
    const { tenant, task } = await replenishFloor();
    const [picker, supervisor] = [await signedIn(ctx, tenant, 'picker'), await signedIn(ctx, tenant, 'supervisor')];
    expect((await picker.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    expect((await supervisor.post(`/replenishments/${task.FAR!.id}/put-back`)).body.data).toMatchObject({ status: 'OPEN', doneBy: null });
    expect((await picker.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    expect((await supervisor.post(`/replenishments/${task.FAR!.id}/cancel`)).body.data).toMatchObject({ status: 'CANCELLED', doneBy: supervisor.user.username });
  });

  it('the warehouse API completes a task a console user holds: DONE, doneBy null, and the user is free to take another', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    const done = await floor.post(`/replenishments/${task.FAR!.id}/complete`, { quantity: 5 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data).toMatchObject({ status: 'DONE', doneBy: null });
    expect((await picker.post(`/replenishments/${task.NEAR!.id}/take`)).status).toBe(200);
  });

  it('cancels a task in hand whose reserve slot is written away, and frees its holder', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    expect((await floor.put('/products/FAR/slots', { slots: [{ locationCode: 'D-09', quantity: 1, min: 2, max: 6 }] })).status).toBe(200);
    expect((await floor.get(`/replenishments/${task.FAR!.id}`)).body.data).toMatchObject({ status: 'CANCELLED', doneBy: null });
    expect((await picker.post(`/replenishments/${task.NEAR!.id}/take`)).status).toBe(200);
  });

  it("shows the supervisor's board the open tasks with their reason and the faces at or below their min", async () => {
    const { tenant, floor } = await replenishFloor();
    // A face at its min whose product has no reserve: no task can be made for it.
    await seedPlacedProducts(tenant, [{ externalId: 'BARE', stock: 2 }]);
    expect((await floor.put('/products/BARE/slots', { slots: [{ locationCode: 'A-02', quantity: 0, min: 1, max: 4 }] })).status).toBe(200);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const board = (await supervisor.get('/board')).body.data;
    expect(board.replenishments.total).toBe(3);
    expect(board.replenishments.tasks.map((task) => [task.productExternalId, task.reason, task.status])).toEqual([
      ['FAR', 'MIN', 'OPEN'],
      ['NEAR', 'MIN', 'OPEN'],
      ['BACK', 'MIN', 'OPEN'],
    ]);
    expect(board.lowFaces.total).toBe(4);
    expect(board.lowFaces.faces[0]).toEqual({ productExternalId: 'BARE', sku: 'SKU-BARE', locationCode: 'A-02', quantity: 0, min: 1, max: 4, replenishing: false });
    expect(board.lowFaces.faces.slice(1).map((face) => [face.locationCode, face.quantity, face.replenishing])).toEqual([
      ['D-07', 1, true],
      ['D-09', 1, true],
      ['A-02', 1, true],
    ]);
  });
});

describe('replenishing from the console: refusals', () => {
  it("refuses another user's take, completion and put-back of a task someone holds with 409 naming the state and the holder, changing nothing", async () => {
    const { tenant, floor, task } = await replenishFloor();
    const [ana, ben] = [await signedIn(ctx, tenant, 'picker'), await signedIn(ctx, tenant, 'picker')];
    expect((await ana.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    for (const [action, body] of [['take', undefined], ['complete', { quantity: 5 }], ['put-back', undefined], ['cancel', undefined]] as const) {
      const refused = await ben.post(`/replenishments/${task.FAR!.id}/${action}`, body);
      expect(refused.status, action).toBe(409);
      expect(refused.body.error.message).toContain(`is IN_PROGRESS, taken by ${ana.user.username}`);
    }
    expect((await floor.get(`/replenishments/${task.FAR!.id}`)).body.data).toMatchObject({ status: 'IN_PROGRESS', doneBy: ana.user.username });
    expect((await floor.get('/slots?productExternalId=FAR')).body.data.map((slot: { quantity: number }) => slot.quantity)).toEqual([1, 29]);
    // Tasks others hold are not in anyone else's trip.
    expect((await tripOf(ben)).tasks.map((t) => t.productExternalId).sort()).toEqual(['BACK', 'NEAR']);
  });

  it('holds one task per user: a second take is 409 while the first is in hand; taking the one held again changes nothing', async () => {
    const { tenant, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
    const again = await picker.post(`/replenishments/${task.FAR!.id}/take`);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'IN_PROGRESS', doneBy: picker.user.username });
    const second = await picker.post(`/replenishments/${task.NEAR!.id}/take`);
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(`You hold replenishment ${task.FAR!.id} already`);
    expect((await picker.get(`/replenishments/trip`)).body.data.tasks.filter((t) => t.status === 'IN_PROGRESS').map((t) => t.id)).toEqual([task.FAR!.id]);
  });

  it('refuses to take a task that is DONE, and to put back one that is OPEN, with 409 naming the state', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await floor.post(`/replenishments/${task.FAR!.id}/complete`, { quantity: 5 })).status).toBe(200);
    const take = await picker.post(`/replenishments/${task.FAR!.id}/take`);
    expect(take.status).toBe(409);
    expect(take.body.error.message).toMatch(/is DONE; only an OPEN or IN_PROGRESS task can be taken/);
    const putBack = await picker.post(`/replenishments/${task.NEAR!.id}/put-back`);
    expect(putBack.status).toBe(409);
    expect(putBack.body.error.message).toMatch(/is OPEN; only an IN_PROGRESS task can be put back/);
  });

  it('refuses a completion of 0 units (400 naming quantity) and more than the reserve holds (409 naming quantity), moving nothing', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.post(`/replenishments/${task.NEAR!.id}/take`)).status).toBe(200);
    const zero = await picker.post(`/replenishments/${task.NEAR!.id}/complete`, { quantity: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body.error.details.map((detail) => detail.field)).toContain('quantity');
    const tooMany = await picker.post(`/replenishments/${task.NEAR!.id}/complete`, { quantity: 30 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error.details.map((detail) => detail.field)).toEqual(['quantity']);
    expect((await floor.get('/slots?productExternalId=NEAR')).body.data.map((slot: { quantity: number }) => slot.quantity)).toEqual([1, 29]);
    expect((await floor.get(`/replenishments/${task.NEAR!.id}`)).body.data.status).toBe('IN_PROGRESS');
  });

  it('answers 404 for an unknown task', async () => {
    const { tenant } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    const unknown = await picker.post('/replenishments/019a5b70-1c2d-7e3f-8a4b-5c6d7e8f9a01/take');
    expect(unknown.status).toBe(404);
  });
});

describe('replenishing from the console: races', () => {
  it('two users taking the same task at once: one holds it, the other gets 409 naming the state', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const users = [await signedIn(ctx, tenant, 'picker'), await signedIn(ctx, tenant, 'picker')];
    const answers = await Promise.all(users.map((user) => user.post(`/replenishments/${task.FAR!.id}/take`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = users[answers.findIndex((answer) => answer.status === 200)]!;
    expect(answers.find((answer) => answer.status === 409)!.body.error.message).toContain(`is IN_PROGRESS, taken by ${winner.user.username}`);
    expect((await floor.get(`/replenishments/${task.FAR!.id}`)).body.data).toMatchObject({ status: 'IN_PROGRESS', doneBy: winner.user.username });
  });

  it('one user taking two tasks at once: holds one, the other is 409 and stays OPEN', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const picker = await signedIn(ctx, tenant, 'picker');
    const answers = await Promise.all([task.FAR!, task.NEAR!].map((t) => picker.post(`/replenishments/${t.id}/take`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const statuses = await Promise.all([task.FAR!, task.NEAR!].map(async (t) => (await floor.get(`/replenishments/${t.id}`)).body.data.status));
    expect(statuses.sort()).toEqual(['IN_PROGRESS', 'OPEN']);
  });
});

describe('replenishing from the console: security', () => {
  it('lets pickers and supervisors replenish, not packers (403), and nobody without a session (401)', async () => {
    const { tenant, floor, task } = await replenishFloor();
    const packer = await signedIn(ctx, tenant, 'packer');
    const anonymous = new ConsoleClient(ctx, tenant, { id: '', username: 'nobody', role: 'picker' });
    for (const user of [packer, anonymous]) {
      const expected = user === packer ? 403 : 401;
      expect((await user.get('/replenishments/trip')).status).toBe(expected);
      for (const action of ['take', 'put-back', 'complete', 'cancel']) {
        expect((await user.post(`/replenishments/${task.FAR!.id}/${action}`, action === 'complete' ? { quantity: 1 } : undefined)).status, action).toBe(expected);
      }
    }
    expect((await floor.get(`/replenishments/${task.FAR!.id}`)).body.data.status).toBe('OPEN');
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    expect((await supervisor.post(`/replenishments/${task.FAR!.id}/take`)).status).toBe(200);
  });

  it("keeps each warehouse its own: another's task answers 404 and is in no trip", async () => {
    const { task } = await replenishFloor();
    const other = await replenishFloor();
    const stranger = await signedIn(ctx, other.tenant, 'supervisor');
    for (const action of ['take', 'put-back', 'complete', 'cancel']) {
      const answer = await stranger.post(`/replenishments/${task.FAR!.id}/${action}`, action === 'complete' ? { quantity: 1 } : undefined);
      expect(answer.status, action).toBe(404);
    }
    expect((await tripOf(stranger)).tasks.map((t) => t.id).sort()).toEqual(Object.values(other.task).map((t) => t.id).sort());
  });
});
