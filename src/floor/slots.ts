import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { decodeCursor, isCount } from '../http/cursor';
import { notFound, validationError, type FieldProblem } from '../http/errors';
import { keysetAfter, pageOf, type KeyColumn } from '../http/pagination';
import { UUID } from '../http/uuid';
import { lockFloor } from './layout-store';
import { isTakeable } from './plan/fefo';
import type { ItemSlot, Location } from './plan/items';
import { cancelStaleTasks, topUpFaces } from './replenishment';
import type { SlotRole } from './kinds';

/*
 * Slots: units of one product at one placed location. A product without slots keeps all its stock
 * at its own location (its locationCode); with slots, its stock stays what the catalog says and
 * the slots say where the units stand. Slot rows are written only under their product's row lock
 * (FOR UPDATE, taken first, sorted by id), the first lock of the documented order in
 * orders/store.ts: completing a wave locks the product rows, then lowers the slots.
 */

export interface Slot {
  productExternalId: string;
  locationCode: string;
  quantity: number;
  /** A pick face (the default) or reserve. */
  role?: SlotRole | undefined;
  /** A pick face's top-up bounds, both or neither (0 <= min <= max); a reserve slot has none. */
  min?: number | null | undefined;
  max?: number | null | undefined;
  /** The lot its units belong to (a product kept by lot), and the day that lot expires (YYYY-MM-DD). */
  lot?: string | undefined;
  expiresOn?: string | undefined;
}

/** A slot as stored and answered: its role, and its bounds (null when it has none). */
export interface StoredSlot {
  productExternalId: string;
  locationCode: string;
  quantity: number;
  role: SlotRole;
  min: number | null;
  max: number | null;
  lot: string | null;
  expiresOn: string | null;
}

/** A slot to store, with the JSON path it was sent at (`slots[3]`), for naming it in a 400. */
interface SentSlot extends Slot {
  field: string;
}

/**
 * Replaces the tenant's whole set of slots with `slots`. 404 for an unknown product; 400 naming
 * the field for a location unknown or without a place, a (product, location, lot) sent twice, an
 * expiry that is not a day of the calendar or is sent without a lot, a lot of a product that is not
 * lot-tracked.
 * Returns how many slots and products the set now holds.
 */
export async function replaceSlots(tx: Tx, tenantId: string, slots: Slot[]): Promise<{ slots: number; products: number }> {
  const sent = slots.map((slot, index) => ({ ...slot, field: `slots[${index}]` }));
  const externalIds = [...new Set(slots.map((slot) => slot.productExternalId))];
  const products = await prepareReplacement(tx, tenantId, sent, sql`(external_id = ANY (${externalIds}::text[])
    OR id IN (SELECT product_id FROM product_slots WHERE tenant_id = ${tenantId}))`);
  await tx.deleteFrom('product_slots').where('tenant_id', '=', tenantId).execute();
  await insertSlots(tx, tenantId, sent, products);
  await cancelStaleTasks(tx, tenantId);
  await topUpFaces(tx, tenantId);
  return { slots: slots.length, products: externalIds.length };
}

/** Replaces one product's slots, as replaceSlots does the tenant's; returns them as now stored. */
export async function replaceProductSlots(tx: Tx, tenantId: string, productExternalId: string, slots: Omit<Slot, 'productExternalId'>[]): Promise<StoredSlot[]> {
  const sent = slots.map((slot, index) => ({ ...slot, productExternalId, field: `slots[${index}]` }));
  const products = await prepareReplacement(tx, tenantId, sent, sql`external_id = ${productExternalId}`, productExternalId);
  const productId = products.get(productExternalId)!;
  await tx.deleteFrom('product_slots').where('tenant_id', '=', tenantId).where('product_id', '=', productId).execute();
  await insertSlots(tx, tenantId, sent, products);
  await cancelStaleTasks(tx, tenantId, [productId]);
  await topUpFaces(tx, tenantId, [productId]);
  return sent.map((slot) => storedSlot(slot)).sort((a, b) => compareText(a.locationCode, b.locationCode) || compareText(a.lot ?? '', b.lot ?? ''));
}

/** A sent slot as it is stored: a pick face unless said otherwise, without bounds unless given. */
function storedSlot(slot: Slot): StoredSlot {
  const { productExternalId, locationCode, quantity } = slot;
  return { productExternalId, locationCode, quantity, role: slot.role ?? 'pick', min: slot.min ?? null, max: slot.max ?? null, lot: slot.lot ?? null, expiresOn: slot.expiresOn ?? null };
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether `value` is a day of the calendar written YYYY-MM-DD. */
export function isCalendarDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value;
}

/** The rules of a lot sent with a slot or a count's line, as 400s naming the field: an expiry is a day of the calendar, and needs a lot. */
export function lotProblems({ lot, expiresOn, field }: { lot?: string | undefined; expiresOn?: string | undefined; field: string }): FieldProblem[] {
  if (expiresOn === undefined) return [];
  if (!isCalendarDay(expiresOn)) return [{ field: `${field}.expiresOn`, message: `must be a date written YYYY-MM-DD: ${expiresOn}` }];
  return lot === undefined ? [{ field: `${field}.expiresOn`, message: 'is for a lot: send the lot it is the expiry of' }] : [];
}

/**
 * The rules of a slot's role and bounds, as 400s naming the field: a pick face has `min` and `max`
 * both or neither, with min <= max; a reserve slot has neither. (The schema keeps them whole
 * numbers of 0 or more.)
 */
function roleProblems(slot: SentSlot): FieldProblem[] {
  const { role = 'pick', min, max, field } = slot;
  const given = (value: number | null | undefined): value is number => value !== undefined && value !== null;
  if (role === 'reserve') {
    return [
      ...(given(min) ? [{ field: `${field}.min`, message: 'is for a pick face only: a reserve slot has no min' }] : []),
      ...(given(max) ? [{ field: `${field}.max`, message: 'is for a pick face only: a reserve slot has no max' }] : []),
    ];
  }
  if (given(min) && !given(max)) return [{ field: `${field}.max`, message: 'is required with min: send both or neither' }];
  if (given(max) && !given(min)) return [{ field: `${field}.min`, message: 'is required with max: send both or neither' }];
  if (given(min) && given(max) && min > max) return [{ field: `${field}.min`, message: `must be at most max (${max})` }];
  return [];
}

/**
 * Checks a replacement and takes its locks: the floor's (locations stay as checked), then the rows
 * of the products it touches (`touched`: SQL over products), sorted by id. Returns the product ids
 * by externalId. Every check runs before anything is written.
 */
async function prepareReplacement(tx: Tx, tenantId: string, sent: SentSlot[], touched: ReturnType<typeof sql>, required?: string): Promise<Map<string, string>> {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, string>();
  for (const slot of sent) {
    const key = JSON.stringify([slot.productExternalId, slot.locationCode, slot.lot ?? '']);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, slot.field);
    else if (slot.lot === undefined) problems.push({ field: `${slot.field}.locationCode`, message: `repeats ${first}: product ${slot.productExternalId} at ${slot.locationCode}` });
    else problems.push({ field: `${slot.field}.lot`, message: `repeats ${first}: product ${slot.productExternalId}, lot ${slot.lot} at ${slot.locationCode}` });
    problems.push(...roleProblems(slot), ...lotProblems(slot));
  }
  if (problems.length > 0) throw validationError(problems);

  await lockFloor(tx, tenantId);
  const { rows } = await sql<{ id: string; external_id: string; lot_tracked: boolean }>`
    SELECT id, external_id, lot_tracked FROM products WHERE tenant_id = ${tenantId} AND ${touched} ORDER BY id FOR UPDATE`.execute(tx);
  const products = new Map(rows.map((row) => [row.external_id, row.id]));
  const unknown = required !== undefined && !products.has(required) ? required : sent.find((slot) => !products.has(slot.productExternalId))?.productExternalId;
  if (unknown !== undefined) throw notFound(`Product ${unknown}`);
  // Lots only on products kept by lot: first expiry, first out applies to those alone.
  const lotTracked = new Set(rows.filter((row) => row.lot_tracked).map((row) => row.external_id));
  for (const slot of sent) {
    if (slot.lot !== undefined && !lotTracked.has(slot.productExternalId)) {
      problems.push({ field: `${slot.field}.lot`, message: `is for a lot-tracked product: ${slot.productExternalId} is not (set lotTracked on the product first)` });
    }
  }

  problems.push(...(await unplacedProblems(tx, tenantId, sent.map((slot) => ({ code: slot.locationCode, field: `${slot.field}.locationCode` })))));
  if (problems.length > 0) throw validationError(problems);
  return products;
}

/** A problem naming its field for each sent location code that is unknown or has no place on the layout. */
export async function unplacedProblems(db: Executor, tenantId: string, sent: readonly { code: string; field: string }[]): Promise<FieldProblem[]> {
  const known = await db
    .selectFrom('warehouse_locations')
    .select(['code', 'aisle'])
    .where('tenant_id', '=', tenantId)
    .where('code', '=', sql<string>`ANY (${[...new Set(sent.map((location) => location.code))]}::text[])`)
    .execute();
  const placed = new Map(known.map((location) => [location.code, location.aisle !== null]));
  return sent.flatMap(({ code, field }) => {
    const state = placed.get(code);
    if (state === undefined) return [{ field, message: `is not a location of the warehouse (PUT /locations): ${code}` }];
    return state ? [] : [{ field, message: `has no place on the layout: ${code}` }];
  });
}

async function insertSlots(tx: Tx, tenantId: string, sent: SentSlot[], products: Map<string, string>): Promise<void> {
  if (sent.length === 0) return;
  // One statement of arrays, however many slots (row values would run out of parameters).
  const stored = sent.map(storedSlot);
  await sql`
    INSERT INTO product_slots (tenant_id, product_id, location_code, quantity, role, min, max, lot, expires_on)
    SELECT ${tenantId}, s.product_id, s.location_code, s.quantity, s.role, s.min, s.max, s.lot, s.expires_on
    FROM unnest(${sent.map((slot) => products.get(slot.productExternalId)!)}::uuid[], ${stored.map((slot) => slot.locationCode)}::text[],
      ${stored.map((slot) => slot.quantity)}::numeric[], ${stored.map((slot) => slot.role)}::text[], ${stored.map((slot) => slot.min)}::integer[],
      ${stored.map((slot) => slot.max)}::integer[], ${stored.map((slot) => slot.lot ?? '')}::text[], ${stored.map((slot) => slot.expiresOn)}::date[])
      AS s(product_id, location_code, quantity, role, min, max, lot, expires_on)`.execute(tx);
}

/** Slots in the order of their product's id, each product's by location code, then lot. */
const BY_PRODUCT: KeyColumn[] = [
  { name: 's.product_id', type: 'uuid' },
  { name: 's.location_code', type: 'text' },
  { name: 's.lot', type: 'text' },
];

/** A keyset page of the tenant's slots, or of one product's (404 when it is unknown). */
export async function listSlots(db: Executor, tenantId: string, query: { limit: number; cursor?: string | undefined; productExternalId?: string | undefined }) {
  let productId: string | undefined;
  if (query.productExternalId !== undefined) {
    const product = await db.selectFrom('products').select('id').where('tenant_id', '=', tenantId).where('external_id', '=', query.productExternalId).executeTakeFirst();
    if (!product) throw notFound(`Product ${query.productExternalId}`);
    productId = product.id;
  }
  const filtered = db
    .selectFrom('product_slots as s')
    .where('s.tenant_id', '=', tenantId)
    .$if(productId !== undefined, (q) => q.where('s.product_id', '=', productId!));
  let page = filtered
    .innerJoin('products as p', (join) => join.onRef('p.tenant_id', '=', 's.tenant_id').onRef('p.id', '=', 's.product_id'))
    .select(['s.product_id', 's.location_code', 's.quantity', 's.role', 's.min', 's.max', 's.lot', 'p.external_id'])
    .select(sql<string | null>`to_char(s.expires_on, 'YYYY-MM-DD')`.as('expires_on'));
  if (query.cursor !== undefined) {
    const key = decodeCursor<[string, string, string]>(query.cursor, ['string', 'string', 'string'], ([id]) => UUID.test(id));
    page = page.where(keysetAfter(BY_PRODUCT, key));
  }
  const [fetched, counted] = await Promise.all([
    page.orderBy('s.product_id').orderBy('s.location_code').orderBy('s.lot').limit(query.limit + 1).execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const { rows, hasMore, nextCursor } = pageOf(fetched, query.limit, (last) => [last.product_id, last.location_code, last.lot]);
  return {
    slots: rows.map(
      (row): StoredSlot => ({
        productExternalId: row.external_id,
        locationCode: row.location_code,
        quantity: Number(row.quantity),
        role: row.role,
        min: row.min,
        max: row.max,
        lot: row.lot === '' ? null : row.lot,
        expiresOn: row.expires_on,
      }),
    ),
    pagination: { limit: query.limit, hasMore, nextCursor, total: Number(counted.total) },
  };
}

/** A product whose slots hold other than its stock. */
export interface SlotMismatch {
  productExternalId: string;
  sku: string;
  stock: number;
  inSlots: number;
}

/**
 * A keyset page of the products whose slots and stock disagree (the sum of their slots is not
 * their stock), by product id; products without slots never do. The total is counted on the first
 * page and carried in the cursor.
 */
export async function slotMismatches(db: Executor, tenantId: string, query: { limit: number; cursor?: string | undefined }) {
  const position = query.cursor === undefined ? undefined : decodeCursor<[string, number]>(query.cursor, ['string', 'number'], ([id, total]) => UUID.test(id) && isCount(total));
  const { rows } = await sql<{ id: string; external_id: string; sku: string; stock: string; in_slots: string; total: string }>`
    SELECT p.id, p.external_id, p.sku, p.stock, t.in_slots, count(*) OVER () AS total
    FROM (SELECT product_id, sum(quantity) AS in_slots FROM product_slots WHERE tenant_id = ${tenantId} GROUP BY product_id) AS t
    JOIN products p ON p.tenant_id = ${tenantId} AND p.id = t.product_id
    WHERE p.stock <> t.in_slots ${position ? sql`AND p.id > ${position[0]}::uuid` : sql``}
    ORDER BY p.id
    LIMIT ${query.limit + 1}`.execute(db);
  const total = position ? position[1] : Number(rows[0]?.total ?? 0);
  const { rows: shown, hasMore, nextCursor } = pageOf(rows, query.limit, (last) => [last.id, total]);
  return {
    mismatches: shown.map((row): SlotMismatch => ({ productExternalId: row.external_id, sku: row.sku, stock: Number(row.stock), inSlots: Number(row.in_slots) })),
    pagination: { limit: query.limit, hasMore, nextCursor, total },
  };
}

/** Where a product's units stand, for routing: its own placed location (null when it has none) and its slots on the layout. */
export interface ProductPlaces {
  productId: string;
  own: Location | null;
  /** Whether it has slots at all: without, its stock stands at its own location. */
  slotted: boolean;
  /**
   * Its pick faces, each with the units free there (freeSlots); a product without slots has one at
   * its own location holding its stock (none when that is unplaced).
   */
  slots: ItemSlot<Location>[];
  /** Its reserve slots, each with the units free there; [] unless `withReserve` was asked. */
  reserve: ItemSlot<Location>[];
}

/**
 * The places of the given products, by externalId (unknown ones left out): their pick faces, and
 * their reserve slots `withReserve` (the warehouse's pickFromReserve), but the lots expiring
 * before `firstDay` (firstTakeableDay). Each join names the tenant
 * as a value, as the pool's read does (pool.ts), so that tables without statistics are read by
 * their keys.
 */
export async function productPlaces(db: Executor, tenantId: string, externalIds: string[], firstDay: string, withReserve = false): Promise<Map<string, ProductPlaces>> {
  const { rows } = await sql<{ external_id: string; id: string; stock: string; own_code: string | null; own_aisle: number | null; own_position: number | null }>`
    SELECT p.external_id, p.id, p.stock, own.code AS own_code, own.aisle AS own_aisle, own.position AS own_position
    FROM products p
    LEFT JOIN warehouse_locations own ON own.tenant_id = ${tenantId} AND own.code = p.location_code AND own.aisle IS NOT NULL
    WHERE p.tenant_id = ${tenantId} AND p.external_id = ANY (${externalIds}::text[])
    ORDER BY p.external_id`.execute(db);
  const slotsOf = await freeSlots(db, tenantId, rows.map((row) => row.id));
  return new Map(
    rows.map((row) => {
      const own = row.own_code !== null ? { code: row.own_code, aisle: row.own_aisle!, position: row.own_position! } : null;
      const slots = slotsOf.get(row.id);
      const places: ProductPlaces = slots
        ? { productId: row.id, own, slotted: true, slots: facesOf(slots, firstDay), reserve: withReserve ? reserveOf(slots, firstDay) : [] }
        : { productId: row.id, own, slotted: false, slots: own ? [{ place: own, quantity: Number(row.stock) }] : [], reserve: [] };
      return [row.external_id, places];
    }),
  );
}

/** A slot as routing sees it: its location (with its lot, if any), its role, and the units free there. */
export interface FreeSlot {
  place: Location;
  role: SlotRole;
  /** Units at the slot less what the PICKING waves plan to take there and have not taken yet (never below 0). */
  free: number;
}

/** The slots of one role that may be taken from: those whose lot expires on `firstDay` or later (firstTakeableDay), or has no expiry. */
const ofRole = (role: SlotRole) => (slots: readonly FreeSlot[], firstDay: string): ItemSlot<Location>[] =>
  slots.flatMap(({ place, role: its, free }) => (its === role && isTakeable({ place, quantity: free }, firstDay) ? [{ place, quantity: free }] : []));
export const facesOf = ofRole('pick');
export const reserveOf = ofRole('reserve');

/** The key of a slot in the maps of units by slot: its product, location and lot ('' without one). */
export const slotKey = (productId: string, locationCode: string, lot: string | undefined | null) => `${productId}:${locationCode}:${lot ?? ''}`;

/**
 * The slots of the given products, by product id, by location code (products without slots left
 * out), each with the units free there. A wave lowers its slots only when it is completed: until
 * then, what a PICKING wave plans to take at a slot for its orders still in picking counts as
 * taken, so that the next wave or route does not count on the same units. A slot stands at a
 * placed location (PUT /locations keeps it so). Two statements: the slots, then the units planned
 * by the PICKING waves (pickingWaveUnits).
 */
export async function freeSlots(db: Executor, tenantId: string, productIds: readonly string[]): Promise<Map<string, FreeSlot[]>> {
  const [{ rows }, planned] = await Promise.all([
    sql<{ product_id: string; code: string; lot: string; expires_on: string | null; role: SlotRole; quantity: string; aisle: number; position: number }>`
      SELECT s.product_id, s.location_code AS code, s.lot, to_char(s.expires_on, 'YYYY-MM-DD') AS expires_on, s.role, s.quantity, l.aisle, l.position
      FROM product_slots s
      JOIN warehouse_locations l ON l.tenant_id = ${tenantId} AND l.code = s.location_code
      WHERE s.tenant_id = ${tenantId} AND s.product_id = ANY (${productIds}::uuid[])
      ORDER BY s.product_id, s.location_code, s.lot`.execute(db),
    pickingWaveUnits(db, tenantId, productIds),
  ]);
  const slots = new Map<string, FreeSlot[]>();
  for (const row of rows) {
    const of = slots.get(row.product_id) ?? slots.set(row.product_id, []).get(row.product_id)!;
    const free = Math.max(Number(row.quantity) - (planned.get(slotKey(row.product_id, row.code, row.lot)) ?? 0), 0);
    const lot = row.lot === '' ? {} : { lot: row.lot, ...(row.expires_on === null ? {} : { expiresOn: row.expires_on }) };
    of.push({ place: { code: row.code, aisle: row.aisle, position: row.position, ...lot }, role: row.role, free });
  }
  return slots;
}

/**
 * Units the PICKING waves plan to take for their orders still in picking, by slot (slotKey): a
 * part's quantity, or once its pick is recorded what was picked, for a short pick takes no more.
 * Read from the PICKING waves (by their status), each wave's lines by its key, and each line's
 * product by its key: every step ordered by the key it is read by, so that tables without
 * statistics (a fresh database) are never joined over every wave's lines or every product.
 */
export async function pickingWaveUnits(db: Executor, tenantId: string, productIds: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await sql<{ product_id: string; location_code: string; lot: string; units: string }>`
    SELECT p.id AS product_id, wl.location_code, wl.lot, sum(wl.units) AS units
    FROM waves w
    CROSS JOIN LATERAL (
      SELECT l.order_id, l.location_code, l.lot, l.product_external_id, coalesce(l.picked_quantity, l.quantity) AS units FROM wave_lines l
      WHERE l.tenant_id = ${tenantId} AND l.wave_id = w.id AND l.location_code IS NOT NULL
      ORDER BY l.tenant_id, l.wave_id, l.order_id, l.item_position
    ) AS wl
    CROSS JOIN LATERAL (
      SELECT o.id FROM orders o WHERE o.tenant_id = ${tenantId} AND o.id = wl.order_id AND o.status = 'IN_PICKING' ORDER BY o.tenant_id, o.id LIMIT 1
    ) AS o
    CROSS JOIN LATERAL (
      SELECT p.id FROM products p WHERE p.tenant_id = ${tenantId} AND p.external_id = wl.product_external_id ORDER BY p.tenant_id, p.external_id LIMIT 1
    ) AS p
    WHERE w.tenant_id = ${tenantId} AND w.status = 'PICKING' AND p.id = ANY (${productIds}::uuid[]) AND wl.units IS NOT NULL
    GROUP BY p.id, wl.location_code, wl.lot`.execute(db);
  return new Map(rows.map((row) => [slotKey(row.product_id, row.location_code, row.lot), Number(row.units)]));
}

/** A part of a wave line: its wave, order, item and part number. */
export interface PartKey {
  waveId: string;
  orderId: string;
  itemPosition: number;
  part: number;
}

/**
 * SQL rows (product_external_id, lot, picked): the picks the PICKING waves recorded at a location
 * for their orders still in picking, one row per part, of one product and lot when given, but the
 * `except` part. Those units are on a cart, not on the shelf: the slot loses them only when their
 * wave completes (counts and short picks net them). Read from the PICKING waves (by their status),
 * each wave's lines by its key.
 */
export function recordedPicks(tenantId: string, at: { locationCode: string; productExternalId?: string; lot?: string }, except?: PartKey) {
  const skip = except
    ? sql`AND NOT (l.wave_id = ${except.waveId} AND l.order_id = ${except.orderId} AND l.item_position = ${except.itemPosition} AND l.part = ${except.part})`
    : sql``;
  return sql`
    SELECT l.product_external_id, l.lot, l.picked_quantity AS picked FROM waves w
    CROSS JOIN LATERAL (
      SELECT l.wave_id, l.order_id, l.item_position, l.part, l.product_external_id, l.lot, l.picked_quantity FROM wave_lines l
      WHERE l.tenant_id = ${tenantId} AND l.wave_id = w.id AND l.location_code = ${at.locationCode} AND l.picked_quantity IS NOT NULL
        ${at.productExternalId === undefined ? sql`` : sql`AND l.product_external_id = ${at.productExternalId}`} ${at.lot === undefined ? sql`` : sql`AND l.lot = ${at.lot}`}
      ORDER BY l.tenant_id, l.wave_id, l.order_id, l.item_position
    ) AS l
    WHERE w.tenant_id = ${tenantId} AND w.status = 'PICKING' ${skip}
      AND EXISTS (SELECT FROM orders o WHERE o.tenant_id = ${tenantId} AND o.id = l.order_id AND o.status = 'IN_PICKING')`;
}

/** Codes holding slots that are not among `placed` (at most a few, to name in a refusal). */
export async function slotsOffPlaces(db: Executor, tenantId: string, placed: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('product_slots')
    .select('location_code')
    .distinct()
    .where('tenant_id', '=', tenantId)
    .where('location_code', '<>', sql<string>`ALL (${placed}::text[])`)
    .orderBy('location_code')
    .limit(5)
    .execute();
  return rows.map((row) => row.location_code);
}

/**
 * Lowers slots by what was picked from them, never below 0, in one statement: entry i of the
 * arrays is one pick (product id, location code, lot ('' without one), quantity); a pick where the
 * product has no such slot lowers nothing. The caller holds the products' row locks.
 */
export async function takeFromSlots(tx: Tx, tenantId: string, picks: { productId: string; locationCode: string; lot: string; quantity: number }[]): Promise<void> {
  if (picks.length === 0) return;
  await sql`
    UPDATE product_slots s SET quantity = greatest(s.quantity - t.taken, 0)
    FROM (
      SELECT product_id, location_code, lot, sum(quantity) AS taken
      FROM unnest(${picks.map((pick) => pick.productId)}::uuid[], ${picks.map((pick) => pick.locationCode)}::text[], ${picks.map((pick) => pick.lot)}::text[],
        ${picks.map((pick) => pick.quantity)}::numeric[]) AS p(product_id, location_code, lot, quantity)
      GROUP BY product_id, location_code, lot
    ) AS t
    WHERE s.tenant_id = ${tenantId} AND s.product_id = t.product_id AND s.location_code = t.location_code AND s.lot = t.lot`.execute(tx);
}
