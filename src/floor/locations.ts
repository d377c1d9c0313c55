import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { conflict, validationError, type FieldProblem } from '../http/errors';
import { readSettings } from '../settings/store';
import { faceThenReserveNeeds, firstDayNow } from './plan/fefo';
import { nearestItemsRoute, routeItems, type ItemNeed, type ItemSlot, type Location } from './plan/items';
import type { Layout, Place, Policy } from './plan/layout';
import { optimalIsQuick, routePicks, type Route } from './plan/walks';
import type { Planner } from './planner/planner';
import { lockFloor, requireLayout } from './layout-store';
import { productPlaces, slotsOffPlaces } from './slots';

export interface PlacedLocation {
  code: string;
  aisle: number;
  position: number;
  level?: number | null | undefined;
}

export interface LocationSet {
  /** Every known code, placed or not, sorted. */
  codes: string[];
  /** The placed ones, sorted by code. */
  locations: { code: string; aisle: number; position: number; level: number | null }[];
}

/**
 * Replaces the tenant's locations: `codes` without a place, `locations` with one (a code in both
 * takes its place). Places must lie on the stored layout (400 naming the field; 409 when there is
 * no layout). Refused with 409 while slots stand at a location it would remove or unplace.
 * Concurrent replacements run one after the other, so the set left is one of those sent.
 */
export async function replaceLocations(tx: Tx, tenantId: string, codes: string[], placed: PlacedLocation[]): Promise<LocationSet> {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, number>();
  placed.forEach((location, index) => {
    const first = seen.get(location.code);
    if (first === undefined) seen.set(location.code, index);
    else problems.push({ field: `locations[${index}].code`, message: `repeats locations[${first}]` });
  });
  if (problems.length > 0) throw validationError(problems);
  await lockFloor(tx, tenantId);
  if (placed.length > 0) {
    const layout = await requireLayout(tx, tenantId);
    problems.push(...placed.flatMap((location, index) => offLayout(layout, location, `locations[${index}]`)));
    if (problems.length > 0) throw validationError(problems);
  }
  const rows = new Map<string, { aisle: number | null; position: number | null; level: number | null }>();
  for (const code of codes) rows.set(code, { aisle: null, position: null, level: null });
  for (const { code, aisle, position, level } of placed) rows.set(code, { aisle, position, level: level ?? null });
  const sorted = [...rows.keys()].sort();
  const stranded = await slotsOffPlaces(tx, tenantId, sorted.filter((code) => rows.get(code)!.aisle !== null));
  if (stranded.length > 0) {
    throw conflict(`Slots stand at ${stranded.join(', ')}: keep these locations placed, or move their slots first (PUT /slots)`);
  }
  await tx.deleteFrom('warehouse_locations').where('tenant_id', '=', tenantId).execute();
  if (sorted.length > 0) {
    // One statement of four arrays, however many locations (row values would run out of parameters).
    const column = (pick: (code: string) => number | null) => sorted.map(pick);
    await sql`
      INSERT INTO warehouse_locations (tenant_id, code, aisle, position, level)
      SELECT ${tenantId}, l.code, l.aisle, l.position, l.level
      FROM unnest(${sorted}::text[], ${column((c) => rows.get(c)!.aisle)}::integer[], ${column((c) => rows.get(c)!.position)}::integer[],
        ${column((c) => rows.get(c)!.level)}::integer[]) AS l(code, aisle, position, level)`.execute(tx);
  }
  return {
    codes: sorted,
    locations: sorted.flatMap((code) => {
      const { aisle, position, level } = rows.get(code)!;
      return aisle !== null && position !== null ? [{ code, aisle, position, level }] : [];
    }),
  };
}

function offLayout(layout: Layout, place: Place, field: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (place.aisle > layout.aisles) problems.push({ field: `${field}.aisle`, message: `must be an aisle of the layout, 1 to ${layout.aisles}` });
  if (place.position > layout.positionsPerAisle) {
    problems.push({ field: `${field}.position`, message: `must be a position of the layout, 1 to ${layout.positionsPerAisle}` });
  }
  return problems;
}

export async function listLocations(db: Executor, tenantId: string): Promise<LocationSet> {
  const rows = await db
    .selectFrom('warehouse_locations')
    .select(['code', 'aisle', 'position', 'level'])
    .where('tenant_id', '=', tenantId)
    .orderBy('code')
    .execute();
  return {
    codes: rows.map((row) => row.code),
    locations: rows.flatMap(({ code, aisle, position, level }) => (aisle !== null && position !== null ? [{ code, aisle, position, level }] : [])),
  };
}

/** Where the given codes stand on the layout, by code; codes unknown or without a place are not in it. */
export async function placesOf(db: Executor, tenantId: string, codes: readonly string[]): Promise<Map<string, Location>> {
  const rows = await db
    .selectFrom('warehouse_locations')
    .select(['code', 'aisle', 'position'])
    .where('tenant_id', '=', tenantId)
    .where('code', '=', sql<string>`ANY (${codes}::text[])`)
    .where('aisle', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.code, { code: row.code, aisle: row.aisle!, position: row.position! }]));
}

/**
 * POST /routes: the walk through `locations`, or the one picking `items`; exactly one of the two is
 * sent (400 otherwise). A search (the optimal walk for items, or through locations on more
 * than two blocks) runs on the planner's threads, within the request's `deadline`; the rest is
 * quick and runs here.
 */
export async function planRoute(
  db: Executor,
  planner: Planner,
  tenantId: string,
  body: { locations?: string[] | undefined; items?: { productExternalId: string; quantity: number }[] | undefined; policy?: Policy | undefined },
  deadline: number,
) {
  const policy = body.policy ?? 'optimal';
  if (body.locations && body.items) throw validationError([{ field: 'items', message: 'cannot be sent with locations: send one of the two' }]);
  if (body.items) return routeForItems(db, planner, tenantId, body.items, policy, deadline);
  if (!body.locations) throw validationError([{ field: 'locations', message: 'is required unless items are sent' }]);
  return routeThrough(db, planner, tenantId, body.locations, policy, deadline);
}

/**
 * The walk from the depot through the given locations and back, under `policy`: each code once;
 * codes unknown or without a place are left out of it and listed in `unplaced`, in the order given.
 * When the planner cannot answer a search in time, the optimal policy answers the combined
 * heuristic's walk, `exact: false`.
 */
export async function routeThrough(db: Executor, planner: Planner, tenantId: string, locations: string[], policy: Policy, deadline: number) {
  const layout = await requireLayout(db, tenantId);
  const codes = [...new Set(locations)];
  const places = await placesOf(db, tenantId, codes);
  const picks = codes.flatMap((code) => {
    const place = places.get(code);
    return place ? [{ locationCode: code, aisle: place.aisle, position: place.position }] : [];
  });
  const { distance, exact, stops } =
    policy === 'optimal' && !optimalIsQuick(layout)
      ? ((await planner.run('routePicks', [layout, picks, policy], { deadline, quick: () => ({ ...routePicks(layout, picks, 'combined'), exact: false }) })) as Route<(typeof picks)[number]>)
      : routePicks(layout, picks, policy);
  return { policy, distance, exact, stops, unplaced: codes.filter((code) => !places.has(code)) };
}

/**
 * The walk that picks the given products from their slots (routeItems), under `policy`: a product
 * listed twice counts once with the sum of its quantities. A product is taken from its pick faces,
 * each with the units free there (freeSlots: what PICKING waves plan to take counts as taken); with
 * the warehouse's pickFromReserve, what the faces cannot cover from its reserve slots, never
 * otherwise. Lots are taken first expiry, first out (faceThenReserveNeeds), never one expiring before the
 * first day the warehouse's minShelfLifeDays allows. A product without slots contributes its own location holding its stock. Products
 * unknown, or without slots and without a placed location, are left out and listed in `unplaced`,
 * in the order given; what the slots of the others cannot cover is `short`. When the planner
 * cannot answer in time, the optimal policy answers the walk through the slots nearest the depot,
 * `exact: false`.
 */
export async function routeForItems(
  db: Executor,
  planner: Planner,
  tenantId: string,
  items: { productExternalId: string; quantity: number }[],
  policy: Policy,
  deadline: number,
) {
  const layout = await requireLayout(db, tenantId);
  const wanted = new Map<string, number>();
  for (const { productExternalId, quantity } of items) wanted.set(productExternalId, (wanted.get(productExternalId) ?? 0) + quantity);
  const settings = await readSettings(db, tenantId);
  const places = await productPlaces(db, tenantId, [...wanted.keys()], firstDayNow(settings), settings.pickFromReserve);
  // Needs are named by their index (a product may have one from its faces and one from its reserve).
  const needs: ItemNeed<Location>[] = [];
  const productOf: string[] = [];
  const need = (product: string, quantity: number, slots: ItemSlot<Location>[]) => {
    needs.push({ item: String(needs.length), quantity, slots });
    productOf.push(product);
  };
  const unplaced: string[] = [];
  for (const [product, quantity] of wanted) {
    const stands = places.get(product);
    if (!stands || (!stands.slotted && stands.slots.length === 0)) {
      unplaced.push(product);
      continue;
    }
    // First expiry, first out at the faces, then in the reserve; what neither holds is short.
    const { needs: dated, left } = faceThenReserveNeeds(quantity, stands.slots, stands.reserve);
    for (const { quantity: units, slots } of dated) need(product, units, slots);
    if (left > 0) need(product, left, []);
  }
  const route =
    policy === 'optimal'
      ? await planner.run('routeItems', [layout, needs, policy], { deadline, quick: () => nearestItemsRoute(layout, needs, optimalIsQuick(layout) ? 'optimal' : 'combined') })
      : routeItems(layout, needs, policy);
  return {
    policy,
    distance: route.distance,
    exact: route.exact,
    stops: route.stops.map(({ place, picks }) => ({
      locationCode: place.code,
      aisle: place.aisle,
      position: place.position,
      ...(place.lot === undefined ? {} : { lot: place.lot, expiresOn: place.expiresOn ?? null }),
      picks: byProduct(picks.map((pick) => ({ productExternalId: productOf[Number(pick.item)]!, quantity: pick.quantity }))),
    })),
    short: byProduct(route.short.map((pick) => ({ productExternalId: productOf[Number(pick.item)]!, quantity: pick.quantity }))),
    unplaced,
  };
}

/** Picks of one product added up, in the order each product first comes. */
function byProduct(picks: { productExternalId: string; quantity: number }[]) {
  const sums = new Map<string, number>();
  for (const { productExternalId, quantity } of picks) sums.set(productExternalId, (sums.get(productExternalId) ?? 0) + quantity);
  return [...sums].map(([productExternalId, quantity]) => ({ productExternalId, quantity }));
}
