import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeItems, type ItemNeed, type Location } from '../../src/floor/plan/items';
import type { PlannerSettings } from '../../src/config';
import { PUBLIC_PREFIX } from '../../src/api-prefixes';
import { createTestContext, UNLIMITED, type TestContext, type TestTenant } from '../helpers/context';
import { LARGE_LAYOUT, largeFloor, largeFloorItems } from '../helpers/large-floor';
import { waitFor } from '../helpers/wait';
import { mulberry32 } from '../../src/floor/plan/random';
import { warehouse } from '../orders/helpers';

/*
 * The planner's threads as a client meets them: routes answered within their deadline, a full
 * queue answered with the quick walk, a thread that dies replaced, and the service answering
 * other requests while a search runs.
 */

const floor = largeFloor();

/** A service with the given planner on the large floor. */
async function plannedFloor(planner: PlannerSettings): Promise<{ ctx: TestContext; tenant: TestTenant; api: ReturnType<typeof warehouse> }> {
  const ctx = await createTestContext({ planner });
  const tenant = await ctx.tenant(UNLIMITED);
  const api = warehouse(ctx, tenant);
  expect((await api.put('/layout', LARGE_LAYOUT)).status).toBe(200);
  expect((await api.put('/locations', { locations: floor.locations })).status).toBe(200);
  for (const product of floor.products) expect((await tenant.api.post('/products', product)).status).toBe(201);
  const slots = await api.put('/slots', { slots: floor.slots });
  expect(slots.status, JSON.stringify(slots.body)).toBe(200);
  return { ctx, tenant, api };
}

/** A sample of the service's metrics (labels as written, e.g. `{reason="deadline"}`). */
async function metric(ctx: TestContext, name: string): Promise<number> {
  const text = String((await ctx.admin('GET', '/metrics')).body);
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  if (!line) throw new Error(`no sample ${name} in /metrics`);
  return Number(line.slice(name.length + 1));
}

/** Units picked by product over a route's stops. */
function pickedUnits(route: { stops: { picks?: { productExternalId: string; quantity: number }[] }[] }): Map<string, number> {
  const units = new Map<string, number>();
  for (const stop of route.stops) for (const pick of stop.picks ?? []) units.set(pick.productExternalId, (units.get(pick.productExternalId) ?? 0) + pick.quantity);
  return units;
}

/** The needs of `items` on the large floor, as routeItems takes them. */
function needsOf(items: { productExternalId: string; quantity: number }[]): ItemNeed<Location>[] {
  const byCode = new Map(floor.locations.map((location) => [location.code, location]));
  return items.map(({ productExternalId, quantity }) => ({
    item: productExternalId,
    quantity,
    slots: floor.slots.filter((slot) => slot.productExternalId === productExternalId).map((slot) => ({ place: byCode.get(slot.locationCode)!, quantity: slot.quantity })),
  }));
}

const heavyItems = largeFloorItems(mulberry32(7), 30);

describe('planner: a route past its deadline', () => {
  let ctx: TestContext;
  let api: ReturnType<typeof warehouse>;
  beforeAll(async () => ({ ctx, api } = await plannedFloor({ threads: 1, queue: 8, deadlineMs: 1, nice: 10 })));
  afterAll(() => ctx.close());

  it('answers 200 with exact: false and a walk that takes every item, where the search without a deadline proves its walk', async () => {
    const items = largeFloorItems(mulberry32(3), 3);
    expect(routeItems(LARGE_LAYOUT, needsOf(items), 'optimal').exact).toBe(true);
    const response = await api.post('/routes', { items });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const route = response.body.data;
    expect(route.exact).toBe(false);
    expect(route.short).toEqual([]);
    expect(pickedUnits(route)).toEqual(new Map(items.map((item) => [item.productExternalId, item.quantity])));
  });
});

/** The nice value of a thread, from its /proc stat file (field 19; Linux keeps one per thread). */
const niceOf = (statFile: string) => {
  const stat = readFileSync(statFile, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

/** A nice value no other thread of the test process has: what the planner below is given. */
const NICE = 13;

describe('planner: one thread, a queue of one', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  let api: ReturnType<typeof warehouse>;
  beforeAll(async () => ({ ctx, tenant, api } = await plannedFloor({ threads: 1, queue: 1, deadlineMs: 60_000, nice: NICE })));
  afterAll(() => ctx.close());

  it.runIf(process.platform === 'linux')('runs its thread below the priority of the thread answering requests (PLANNER_NICE)', async () => {
    const atNice = () => readdirSync('/proc/self/task').filter((thread) => niceOf(`/proc/self/task/${thread}/stat`) === NICE);
    // A thread sets its priority once its module has loaded, which may come after the service answers.
    await waitFor('the planner thread to lower its priority', () => atNice().length === 1);
    expect(atNice()).toHaveLength(1);
    expect(niceOf('/proc/thread-self/stat')).toBe(0);
  });

  it('a health check and a product upsert made while a route is searched answer before the route does', async () => {
    const order: string[] = [];
    const route = api.post('/routes', { items: heavyItems }).then((response) => (order.push('route'), response));
    await waitFor('the planner to be busy', async () => (await metric(ctx, 'pickport_planner_busy_threads')) === 1);
    const health = ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/health` }).then((response) => (order.push('health'), response));
    const upsert = tenant.api.post('/products', { externalId: 'UPSERTED', sku: 'SKU-UPSERTED', name: 'Upserted while routing', stock: 3 }).then((response) => (order.push('upsert'), response));
    expect((await health).statusCode).toBe(200);
    expect((await upsert).status).toBe(201);
    expect(order.sort()).toEqual(['health', 'upsert']);
    expect((await route).status).toBe(200);
    expect(await metric(ctx, 'pickport_planner_busy_threads')).toBe(0);
  });

  it('a route that finds the queue full gets the quick walk at once (exact: false, every item taken), counted in /metrics', async () => {
    const before = await metric(ctx, 'pickport_planner_quick_answers_total{reason="queue_full"}');
    const running = api.post('/routes', { items: heavyItems });
    await waitFor('the planner to be busy', async () => (await metric(ctx, 'pickport_planner_busy_threads')) === 1);
    const queued = api.post('/routes', { items: heavyItems });
    await waitFor('a task to wait in the queue', async () => (await metric(ctx, 'pickport_planner_queue_length')) === 1);
    const items = largeFloorItems(mulberry32(11), 5);
    const quick = await api.post('/routes', { items });
    expect(quick.status).toBe(200);
    expect(quick.body.data.exact).toBe(false);
    expect(pickedUnits(quick.body.data)).toEqual(new Map(items.map((item) => [item.productExternalId, item.quantity])));
    expect(await metric(ctx, 'pickport_planner_quick_answers_total{reason="queue_full"}')).toBe(before + 1);
    expect((await running).status).toBe(200);
    expect((await queued).status).toBe(200);
  });

  it('a thread that dies under a route: that request answers 503 in the envelope, the next one is routed by the thread that replaces it', async () => {
    const route = api.post('/routes', { items: heavyItems });
    await waitFor('the planner to be busy', async () => (await metric(ctx, 'pickport_planner_busy_threads')) === 1);
    await ctx.app.planner.threads[0]!.terminate();
    const failed = await route;
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE', retryAfter: 1 } });
    expect(failed.body.error.message).toMatch(/planner thread/);
    const items = largeFloorItems(mulberry32(3), 3);
    const next = await api.post('/routes', { items });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.data.exact).toBe(true);
    expect(await metric(ctx, 'pickport_planner_threads')).toBe(1);
  });
});
