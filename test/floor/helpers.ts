import fc from 'fast-check';
import { beforeAll, expect } from 'vitest';
import type { TestContext, TestTenant } from '../helpers/context';
import { useTenant, type TenantSetup } from '../helpers/setup';
import type { Wave } from '../../src/floor/schemas';
import { item, order, warehouse } from '../orders/helpers';

/** Four aisles 3 apart, ten positions 1 apart, 2 from each cross aisle; the depot in line with aisle 1. */
export const LAYOUT = { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1 };
/** LAYOUT as GET /layout answers it. */
export const STORED_LAYOUT = { ...LAYOUT, crossAisles: [] };

/** The warehouse API of a tenant, plus the floor set up with LAYOUT and the given placed locations. */
export async function floorOf(ctx: TestContext, tenant: TestTenant, locations: { code: string; aisle: number; position: number }[] = [], codes: string[] = []) {
  const api = warehouse(ctx, tenant);
  expect((await api.put('/layout', LAYOUT)).status).toBe(200);
  const placed = await api.put('/locations', { locations, codes });
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  return api;
}

/** The day `offset` days from today, UTC, as YYYY-MM-DD: lots' expiry dates. */
export const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Catalog products with a location code (or none). */
export async function seedPlacedProducts(tenant: TestTenant, products: { externalId: string; locationCode?: string; stock?: number; barcode?: string; lotTracked?: boolean }[]) {
  for (const product of products) {
    const response = await tenant.api.post('/products', { sku: `SKU-${product.externalId}`, name: `Product ${product.externalId}`, stock: 100, ...product });
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  }
}

type Located = { code: string; aisle: number; position: number };
type PlacedProduct = Parameters<typeof seedPlacedProducts>[1][number];

/**
 * useTenant, then in `beforeAll` the floor (LAYOUT with the given placed `locations` and unplaced
 * `codes`) and the catalog's `products`. Read `ctx`, `tenant` and `floor` (the tenant's warehouse
 * API) inside tests and hooks.
 */
export function useFloor(floor: { locations?: Located[]; codes?: string[]; products?: PlacedProduct[] } = {}): TenantSetup & { readonly floor: ReturnType<typeof warehouse> } {
  const setup = useTenant();
  let api: ReturnType<typeof warehouse> | undefined;
  beforeAll(async () => {
    api = await floorOf(setup.ctx, setup.tenant, floor.locations, floor.codes);
    if (floor.products) await seedPlacedProducts(setup.tenant, floor.products);
  });
  return {
    get ctx() {
      return setup.ctx;
    },
    get tenant() {
      return setup.tenant;
    },
    get floor() {
      if (!api) throw new Error('floor is set up in beforeAll: read it inside a test or a hook');
      return api;
    },
  };
}

/** Makes a wave of the given PENDING orders, records every line picked in full at its stop, and completes it. */
export async function completeWaveOf(api: ReturnType<typeof warehouse>, orders: string[]) {
  const made = await api.post('/waves', { orders });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  for (const stop of made.body.data.stops) {
    for (const line of stop.lines) {
      const picked = await api.post(`/waves/${made.body.data.id}/picks`, { orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: line.quantity, locationCode: stop.locationCode });
      expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    }
  }
  expect((await api.post(`/waves/${made.body.data.id}/complete`)).status).toBe(200);
}

let newOrders = 0;
/** An S-shape wave of new orders, one per list of lines (`[productExternalId, quantity]`). */
export async function sShapeWaveOf({ tenant, floor }: { tenant: TestTenant; floor: ReturnType<typeof warehouse> }, ...lines: [string, number][][]): Promise<{ wave: Wave; ids: string[] }> {
  const ids: string[] = [];
  for (const items of lines) {
    const id = `WO-${++newOrders}`;
    const placed = await tenant.api.post('/orders', order(id, items.map(([product, quantity]) => item(product, quantity))));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    ids.push(id);
  }
  const made = await floor.post('/waves', { orders: ids, policy: 's-shape' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { wave: made.body.data, ids };
}

/** Releases every PICKING wave of the tenant and cancels its PENDING orders: what a test plans or chooses next is its own orders. */
export async function clearPool({ tenant, floor }: { tenant: TestTenant; floor: ReturnType<typeof warehouse> }) {
  for (const wave of (await floor.get('/waves?status=PICKING&limit=100')).body.data) {
    expect((await floor.post(`/waves/${wave.id}/release`)).status).toBe(200);
  }
  for (const o of (await tenant.api.get('/orders', { status: 'PENDING', limit: '100' })).body.data) await tenant.api.post(`/orders/${o.externalId}/cancel`);
}

/** Checks that each request, sent without a token and with the tenant's API key, answers 401: the warehouse API wants the admin token. */
export async function expectAdminTokenNeeded(ctx: TestContext, tenant: TestTenant, requests: readonly (readonly ['GET' | 'POST', string, object | undefined])[]) {
  for (const [method, url, payload] of requests) {
    const response = await ctx.app.inject({ method, url, payload });
    expect(response.statusCode, `${method} ${url}`).toBe(401);
    const withKey = await ctx.app.inject({ method, url, payload, headers: { authorization: `Bearer ${tenant.key}` } });
    expect(withKey.statusCode, `${method} ${url} with the tenant's key`).toBe(401);
  }
}

/** Two pick faces by the depot (A-01, B-02) and two reserve locations at the back of aisle 4 (R-09, R-10): the property tests' floor. */
export const FACES_AND_RESERVE = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'B-02', aisle: 2, position: 2 },
  { code: 'R-09', aisle: 4, position: 9 },
  { code: 'R-10', aisle: 4, position: 10 },
];

type WaveLineRead = Wave['stops'][number]['lines'][number];

/**
 * Records the wave's parts picked in walking order, `shortBy` units short in all; a short pick
 * may add parts, picked in their turn. `afterShort` sees the wave's parts before and after each
 * short pick. Answers whether any pick was short.
 */
export async function pickShortBy(
  api: ReturnType<typeof warehouse>,
  made: Wave,
  shortBy: number,
  afterShort: (before: Wave, after: Wave, part: WaveLineRead) => Promise<void> = async () => {},
): Promise<boolean> {
  let short = shortBy;
  let foundShort = false;
  for (let wave = made; ; ) {
    const next = wave.stops.flatMap((stop) => stop.lines.filter((line) => line.pickedQuantity === null).map((line) => ({ stop, line })))[0];
    if (!next) return foundShort;
    const quantity = Math.max(next.line.quantity - short, 0);
    short -= next.line.quantity - quantity;
    const picked = await api.post(`/waves/${wave.id}/picks`, {
      orderExternalId: next.line.orderExternalId,
      productExternalId: next.line.productExternalId,
      quantity,
      locationCode: next.stop.locationCode,
      ...(next.line.lot === null ? {} : { lot: next.line.lot }),
    });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    if (quantity < next.line.quantity) {
      foundShort = true;
      await afterShort(wave, picked.body.data, next.line);
    }
    wave = picked.body.data;
  }
}

/** A step of a property test: an order of some of `products` products (by index, each once) made into a wave from the pool and picked `shortBy` short. */
export type WaveStep = { kind: 'wave'; lines: [number, number][]; shortBy: number };
/** A step of a property test: the first open task completed with `quantity`, or cancelled. */
export type TaskStep = { kind: 'replenish'; quantity: number } | { kind: 'cancel' };

export const waveStep = (products: number, units: number, shortBy: number): fc.Arbitrary<WaveStep> =>
  fc.record({
    kind: fc.constant('wave' as const),
    // An order names each product once.
    lines: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: products - 1 }), fc.integer({ min: 1, max: units })), {
      minLength: 1,
      maxLength: products,
      selector: ([product]) => product,
    }),
    shortBy: fc.integer({ min: 0, max: shortBy }),
  });
export const replenishStep = (quantity: number): fc.Arbitrary<TaskStep> => fc.record({ kind: fc.constant('replenish' as const), quantity: fc.integer({ min: 1, max: quantity }) });
export const cancelStep: fc.Arbitrary<TaskStep> = fc.record({ kind: fc.constant('cancel' as const) });

/** Completes (with `quantity`) or cancels the first open task, if any: answered 200, or 409 when refused. */
export async function actOnFirstTask(api: ReturnType<typeof warehouse>, action: TaskStep): Promise<void> {
  const [task] = (await api.get('/replenishments?status=OPEN')).body.data;
  if (!task) return;
  const answer = action.kind === 'cancel' ? await api.post(`/replenishments/${task.id}/cancel`) : await api.post(`/replenishments/${task.id}/complete`, { quantity: action.quantity });
  expect([200, 409]).toContain(answer.status);
}
