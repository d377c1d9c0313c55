import { sql } from 'kysely';
import type { ProductRow } from '../catalog/fields';
import type { Packaging } from '../catalog/schemas';
import { MAX_STOCK } from '../catalog/schemas';
import type { Executor, Tx } from '../db';
import { WriteRaced } from '../db/errors';
import type { DomainEvent } from '../events/types';
import { decodeCursor } from '../http/cursor';
import { conflict, notFound, validationError, type FieldProblem } from '../http/errors';
import { keysetAfter, pageOf, type KeyColumn } from '../http/pagination';
import { UUID } from '../http/uuid';
import { adjustStock } from '../warehouse/stock';
import type { CountReason, CountStatus } from './kinds';
import { topUpFaces } from './replenishment';
import { lotProblems, recordedPicks, unplacedProblems } from './slots';

/*
 * Counts (cycle counting): someone counts every product at one placed location, blind (the console
 * never shows what the records say), and finishing the count corrects the location's slots and the
 * products' stock. A product kept by lot is counted lot by lot: a line is a product and a lot (or
 * units without a lot), as a slot is.
 *
 * - At most one OPEN count per location: a partial unique index holds it, and counts are made with
 *   INSERT ... ON CONFLICT DO NOTHING, so a request for a location already being counted gets the
 *   open count (whatever asked for it) and requests at once make one.
 * - Finishing runs in one transaction under the row locks of the products it touches (the first
 *   lock of the documented order, orders/store.ts, sorted by id), then the count's row. Each slot
 *   at the location (each lot) is set to what was counted plus the units PICKING waves recorded as
 *   picked there: those are not taken from the slot until the wave completes, and were not on the
 *   shelf to count. What the records said stands there (the slot less those units) and what was
 *   counted are kept per product and lot, and the product's stock changes by the sum of their
 *   differences (never below 0), as a stock adjustment does: one product.stock_updated with
 *   MANUAL_ADJUSTMENT per product.
 * - A product or lot listed that has no slot at the location gets one (a pick face without bounds;
 *   a lot's expiry as the line gives it): the count found it there. A product without any slot is
 *   refused: its stock stands at its own location, which counts do not cover.
 */

/** What a count found of one product's lot (or its units without a lot), as the API answers it. */
export interface CountLine {
  productExternalId: string;
  sku: string;
  lot: string | null;
  recordedQuantity: number;
  countedQuantity: number;
  difference: number;
}

/** A count as the API answers it; `lines` are [] until it is DONE. */
export interface Count {
  id: string;
  locationCode: string;
  reason: CountReason;
  status: CountStatus;
  createdAt: string;
  doneAt: string | null;
  doneBy: string | null;
  lines: CountLine[];
}

/**
 * A product counted at the location: its externalId and the units found, a whole number of 0 or
 * more; of one lot when given, with that lot's expiry for a lot the location had no slot of.
 */
export interface CountedProduct {
  productExternalId: string;
  quantity: number;
  lot?: string | undefined;
  expiresOn?: string | undefined;
}

/**
 * Asks for a count of each location that has no open count (one already open is kept, whatever
 * its reason). The caller checks that the locations are placed.
 */
export async function askForCounts(tx: Executor, tenantId: string, locationCodes: readonly string[], reason: CountReason): Promise<void> {
  if (locationCodes.length === 0) return;
  await sql`
    INSERT INTO counts (tenant_id, location_code, reason)
    SELECT ${tenantId}, code, ${reason} FROM unnest(${[...new Set(locationCodes)].sort()}::text[]) AS l(code)
    ON CONFLICT (tenant_id, location_code) WHERE status = 'OPEN' DO NOTHING`.execute(tx);
}

/**
 * POST /counts: a count of each location named and of each location holding a slot of the products
 * named (at least one of the two; 400 naming `locationCodes` otherwise). 400 naming the field for a
 * location unknown or without a place, or a product without slots; 404 for an unknown product.
 * Answers the open count of each of those locations by location code, `created` when one was made.
 */
export async function requestCounts(
  tx: Tx,
  tenantId: string,
  request: { locationCodes?: string[] | undefined; productExternalIds?: string[] | undefined },
): Promise<{ ids: string[]; created: boolean }> {
  const { locationCodes = [], productExternalIds = [] } = request;
  if (locationCodes.length === 0 && productExternalIds.length === 0) {
    throw validationError([{ field: 'locationCodes', message: 'is required without productExternalIds: name the locations to count, the products whose locations to count, or both' }]);
  }
  const problems = await unplacedProblems(tx, tenantId, locationCodes.map((code, index) => ({ code, field: `locationCodes[${index}]` })));
  const slotted = await productSlotLocations(tx, tenantId, productExternalIds);
  productExternalIds.forEach((externalId, index) => {
    if (slotted.get(externalId)?.locations.length === 0) problems.push({ field: `productExternalIds[${index}]`, message: `has no slots to count: ${externalId} keeps its stock at its own location` });
  });
  const unknown = productExternalIds.find((externalId) => !slotted.has(externalId));
  if (unknown !== undefined) throw notFound(`Product ${unknown}`);
  if (problems.length > 0) throw validationError(problems);

  const codes = [...new Set([...locationCodes, ...[...slotted.values()].flatMap((product) => product.locations)])];
  const before = await openCounts(tx, tenantId, codes);
  await askForCounts(tx, tenantId, codes, 'REQUESTED');
  const after = await openCounts(tx, tenantId, codes);
  return { ids: after.map((count) => count.id), created: after.length > before.length };
}

/**
 * Each named product's id, whether it is lot-tracked, and the location codes of its slots ([] for
 * one without slots), by externalId; unknown ones left out.
 */
async function productSlotLocations(db: Executor, tenantId: string, externalIds: readonly string[]): Promise<Map<string, { id: string; lotTracked: boolean; locations: string[] }>> {
  const rows = await db
    .selectFrom('products as p')
    .leftJoin('product_slots as s', (join) => join.onRef('s.tenant_id', '=', 'p.tenant_id').onRef('s.product_id', '=', 'p.id'))
    .select(['p.id', 'p.external_id', 'p.lot_tracked', 's.location_code'])
    .where('p.tenant_id', '=', tenantId)
    .where('p.external_id', '=', sql<string>`ANY (${externalIds}::text[])`)
    .execute();
  const products = new Map<string, { id: string; lotTracked: boolean; locations: string[] }>();
  for (const row of rows) {
    const product = products.get(row.external_id) ?? products.set(row.external_id, { id: row.id, lotTracked: row.lot_tracked, locations: [] }).get(row.external_id)!;
    if (row.location_code !== null) product.locations.push(row.location_code);
  }
  return products;
}

/** The open counts of the given locations, by location code. */
function openCounts(db: Executor, tenantId: string, codes: readonly string[]) {
  return db
    .selectFrom('counts')
    .select(['id', 'location_code'])
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'OPEN')
    .where('location_code', '=', sql<string>`ANY (${codes}::text[])`)
    .orderBy('location_code')
    .execute();
}

function counts(db: Executor, tenantId: string) {
  return db.selectFrom('counts as c').selectAll('c').where('c.tenant_id', '=', tenantId);
}

type CountRow = Awaited<ReturnType<ReturnType<typeof counts>['executeTakeFirstOrThrow']>>;

/** The counts of the given rows as answered, each with its lines, by product externalId, then lot. */
async function viewsOf(db: Executor, tenantId: string, rows: CountRow[]): Promise<Count[]> {
  const lines = rows.some((row) => row.status === 'DONE')
    ? await db
        .selectFrom('count_lines as l')
        .innerJoin('products as p', (join) => join.onRef('p.tenant_id', '=', 'l.tenant_id').onRef('p.id', '=', 'l.product_id'))
        .select(['l.count_id', 'p.external_id', 'p.sku', 'l.lot', 'l.recorded_quantity', 'l.counted_quantity'])
        .where('l.tenant_id', '=', tenantId)
        .where('l.count_id', '=', sql<string>`ANY (${rows.map((row) => row.id)}::uuid[])`)
        .orderBy('p.external_id')
        .orderBy('l.lot')
        .execute()
    : [];
  return rows.map((row) => ({
    id: row.id,
    locationCode: row.location_code,
    reason: row.reason,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    doneAt: row.done_at === null ? null : new Date(row.done_at).toISOString(),
    doneBy: row.done_by,
    lines: lines
      .filter((line) => line.count_id === row.id)
      .map((line) => {
        const recordedQuantity = Number(line.recorded_quantity);
        const countedQuantity = Number(line.counted_quantity);
        const lot = line.lot === '' ? null : line.lot;
        return { productExternalId: line.external_id, sku: line.sku, lot, recordedQuantity, countedQuantity, difference: countedQuantity - recordedQuantity };
      }),
  }));
}

/** The count; 404 when the tenant has none of that id. */
export async function loadCount(db: Executor, tenantId: string, id: string): Promise<Count> {
  const row = await counts(db, tenantId).where('c.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`Count ${id}`);
  return (await viewsOf(db, tenantId, [row]))[0]!;
}

/** The counts of the given ids, in the order given. */
export async function loadCounts(db: Executor, tenantId: string, ids: readonly string[]): Promise<Count[]> {
  if (ids.length === 0) return [];
  const rows = await counts(db, tenantId).where('c.id', '=', sql<string>`ANY (${ids}::uuid[])`).execute();
  const views = new Map((await viewsOf(db, tenantId, rows)).map((count) => [count.id, count]));
  return ids.map((id) => views.get(id)!);
}

/** By location, then oldest first (ids are time-ordered): a location's history reads together. */
const BY_LOCATION: KeyColumn[] = [
  { name: 'c.location_code', type: 'text' },
  { name: 'c.id', type: 'uuid' },
];

/** A keyset page of the tenant's counts (of one status, when given), by location, then oldest first. */
export async function listCounts(db: Executor, tenantId: string, query: { limit: number; cursor?: string | undefined; status?: CountStatus | undefined }) {
  const filtered = counts(db, tenantId).$if(query.status !== undefined, (q) => q.where('c.status', '=', query.status!));
  let page = filtered;
  if (query.cursor !== undefined) {
    const key = decodeCursor<[string, string]>(query.cursor, ['string', 'string'], ([, id]) => UUID.test(id));
    page = page.where(keysetAfter(BY_LOCATION, key));
  }
  const [fetched, counted] = await Promise.all([
    page.orderBy('c.location_code').orderBy('c.id').limit(query.limit + 1).execute(),
    db
      .selectFrom('counts')
      .where('tenant_id', '=', tenantId)
      .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  const { rows, hasMore, nextCursor } = pageOf(fetched, query.limit, (last) => [last.location_code, last.id]);
  return { counts: await viewsOf(db, tenantId, rows), pagination: { limit: query.limit, hasMore, nextCursor, total: Number(counted.total) } };
}

/** The products a person counting at a location may expect there (no quantities: counts are blind). */
export interface ExpectedProduct {
  productExternalId: string;
  sku: string;
  name: string;
  barcode: string | null;
  packagings: Packaging[];
  /** Whether any slot of it holds a lot: it is counted lot by lot. */
  keptByLot: boolean;
}

/** Whether the product `p` (a products row in the query) is kept by lot: any of its slots holds one. */
const keptByLot = (tenantId: string) => sql<boolean>`EXISTS (SELECT FROM product_slots k WHERE k.tenant_id = ${tenantId} AND k.product_id = p.id AND k.lot <> '')`.as('kept_by_lot');

type ExpectedRow = Pick<ProductRow, 'external_id' | 'sku' | 'name' | 'barcode' | 'packagings'> & { kept_by_lot: boolean };
const expected = (row: ExpectedRow): ExpectedProduct => ({
  productExternalId: row.external_id,
  sku: row.sku,
  name: row.name,
  barcode: row.barcode,
  packagings: row.packagings,
  keptByLot: row.kept_by_lot,
});

/** The products holding a slot (of any lot) at each of the given locations, by location code, each once, by externalId. */
async function productsAt(db: Executor, tenantId: string, codes: readonly string[]): Promise<Map<string, ExpectedProduct[]>> {
  const rows = codes.length
    ? await db
        .selectFrom('product_slots as s')
        .innerJoin('products as p', (join) => join.onRef('p.tenant_id', '=', 's.tenant_id').onRef('p.id', '=', 's.product_id'))
        .select(['s.location_code', 'p.external_id', 'p.sku', 'p.name', 'p.barcode', 'p.packagings', keptByLot(tenantId)])
        .distinctOn(['s.location_code', 'p.external_id'])
        .where('s.tenant_id', '=', tenantId)
        .where('s.location_code', '=', sql<string>`ANY (${codes}::text[])`)
        .orderBy('s.location_code')
        .orderBy('p.external_id')
        .execute()
    : [];
  const byLocation = new Map<string, ExpectedProduct[]>(codes.map((code) => [code, []]));
  for (const row of rows) byLocation.get(row.location_code)!.push(expected(row));
  return byLocation;
}

/** A count as the person counting sees it: where, and the products expected there, never how many. */
export interface BlindCount {
  id: string;
  locationCode: string;
  reason: CountReason;
  status: CountStatus;
  createdAt: string;
  products: ExpectedProduct[];
}

/** The counts without what the records say or what was found, each with the products holding a slot at its location. */
export async function blindCounts(db: Executor, tenantId: string, shown: readonly Count[]): Promise<BlindCount[]> {
  const expected = await productsAt(db, tenantId, [...new Set(shown.map((count) => count.locationCode))]);
  return shown.map(({ id, locationCode, reason, status, createdAt }) => ({ id, locationCode, reason, status, createdAt, products: expected.get(locationCode)! }));
}

/** The product of that externalId as a count names it; 404 when unknown. */
export async function countedProduct(db: Executor, tenantId: string, externalId: string): Promise<ExpectedProduct> {
  const row = await db
    .selectFrom('products as p')
    .select(['p.external_id', 'p.sku', 'p.name', 'p.barcode', 'p.packagings', keptByLot(tenantId)])
    .where('p.tenant_id', '=', tenantId)
    .where('p.external_id', '=', externalId)
    .executeTakeFirst();
  if (!row) throw notFound(`Product ${externalId}`);
  return expected(row);
}

/**
 * The count locked for the rest of the transaction, after the row locks of its location's
 * products and of `alsoLocked` (product ids) in one statement, sorted by id; 404 when unknown, 409
 * naming its state unless it is OPEN. WriteRaced (the work runs again) when a product gained a
 * slot at the location between the read of its products and their locks.
 */
async function lockOpenCount(tx: Tx, tenantId: string, id: string, doing: string, alsoLocked: readonly string[] = []) {
  const count = await tx.selectFrom('counts').select('location_code').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  if (!count) throw notFound(`Count ${id}`);
  const slottedHere = () =>
    tx.selectFrom('product_slots').select('product_id').where('tenant_id', '=', tenantId).where('location_code', '=', count.location_code).execute();
  const products = [...new Set([...(await slottedHere()).map((slot) => slot.product_id), ...alsoLocked])];
  const locked = await tx
    .selectFrom('products')
    .select(['id', 'external_id', 'stock'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', sql<string>`ANY (${products}::uuid[])`)
    .orderBy('id')
    .forUpdate()
    .execute();
  // Later statements than the locks: they read what a transaction that held them committed.
  const row = await tx.selectFrom('counts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
  if (row.status !== 'OPEN') throw conflict(`Count ${id} is ${row.status}; only an OPEN count can be ${doing}`);
  const slots = await tx
    .selectFrom('product_slots')
    .select(['product_id', 'lot', 'quantity'])
    .where('tenant_id', '=', tenantId)
    .where('location_code', '=', count.location_code)
    .execute();
  if (slots.some((slot) => !products.includes(slot.product_id))) throw new WriteRaced(new Error(`a product gained a slot at ${count.location_code}`));
  return { count: row, products: locked, slots };
}

/** The key of a count's line: its product and lot ('' without one). */
const lineKey = (product: string, lot: string | undefined) => JSON.stringify([product, lot ?? '']);

/**
 * The rules of the lines as 400s naming the field: each (product, lot) once (the second named,
 * by its `lot` when it has one), and a lot's expiry a day of the calendar, sent with the lot.
 */
function lineProblems(counted: readonly CountedProduct[]): FieldProblem[] {
  const seen = new Map<string, number>();
  return counted.flatMap((line, index) => {
    const key = lineKey(line.productExternalId, line.lot);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    const repeated =
      first === undefined
        ? []
        : line.lot === undefined
          ? [{ field: `lines[${index}].productExternalId`, message: `repeats lines[${first}]: ${line.productExternalId}` }]
          : [{ field: `lines[${index}].lot`, message: `repeats lines[${first}]: ${line.productExternalId}, lot ${line.lot}` }];
    return [...repeated, ...lotProblems({ ...line, field: `lines[${index}]` })];
  });
}

/**
 * Finishes the count with what was counted: every slot at the location (each product's, each
 * lot's) not listed counts 0. In one transaction: each slot is set to the count plus the units
 * PICKING waves recorded as picked there, a product or lot listed without a slot here gets a pick
 * face (the lot's expiry as the line gives it, else unknown), each product's stock changes by the
 * sum of the differences between what was counted and what the records said of its lots (never
 * below 0; one product.stock_updated, MANUAL_ADJUSTMENT), and the count is DONE, by `doneBy` (the
 * console user's username; null through the warehouse API). A face at its min afterwards asks for
 * a top-up. 400 naming the line for a (product, lot) listed twice, a product without any slot, or a
 * lot of a product that is not lot-tracked; 404 for an unknown product; 409 naming the state
 * unless the count is OPEN.
 */
export async function finishCount(tx: Tx, tenantId: string, id: string, counted: readonly CountedProduct[], doneBy: string | null): Promise<{ id: string; events: DomainEvent[] }> {
  const problems = lineProblems(counted);
  if (problems.length > 0) throw validationError(problems);
  const externalIds = [...new Set(counted.map((line) => line.productExternalId))];
  const listed = await productSlotLocations(tx, tenantId, externalIds);
  const unknown = externalIds.find((externalId) => !listed.has(externalId));
  if (unknown !== undefined) throw notFound(`Product ${unknown}`);

  const { count, products, slots } = await lockOpenCount(tx, tenantId, id, 'finished', [...listed.values()].map((product) => product.id));
  // Read again under the locks: a product's slots are written only under its lock.
  const slotsNow = await productSlotLocations(tx, tenantId, externalIds);
  counted.forEach(({ productExternalId, lot }, index) => {
    const product = slotsNow.get(productExternalId)!;
    if (product.locations.length === 0) {
      problems.push({ field: `lines[${index}].productExternalId`, message: `has no slots: ${productExternalId} keeps its stock at its own location, which counts do not cover` });
    } else if (lot !== undefined && !product.lotTracked) {
      problems.push({ field: `lines[${index}].lot`, message: `is for a lot-tracked product: ${productExternalId} is not` });
    }
  });
  if (problems.length > 0) throw validationError(problems);

  const { rows: picks } = await sql<{ product_external_id: string; lot: string; picked: string }>`
    SELECT r.product_external_id, r.lot, sum(r.picked) AS picked FROM (${recordedPicks(tenantId, { locationCode: count.location_code })}) AS r
    GROUP BY r.product_external_id, r.lot`.execute(tx);
  const picked = new Map(picks.map((row) => [lineKey(row.product_external_id, row.lot), Number(row.picked)]));
  const found = new Map(counted.map((line) => [lineKey(line.productExternalId, line.lot), line]));
  const byId = new Map(products.map((product) => [product.id, product]));
  const byExternalId = new Map(products.map((product) => [product.external_id, product]));
  // The slots here, and the (product, lot) listed without one (a slot is made for them).
  const held = new Map(slots.map((slot) => [lineKey(byId.get(slot.product_id)!.external_id, slot.lot), Number(slot.quantity)]));
  const lines = [...new Set([...held.keys(), ...found.keys()])].map((key) => {
    const [externalId, lot] = JSON.parse(key) as [string, string];
    const pickedHere = picked.get(key) ?? 0;
    const line = found.get(key);
    const countedHere = line?.quantity ?? 0;
    return { product: byExternalId.get(externalId)!, lot, expiresOn: line?.expiresOn ?? null, recorded: Math.max((held.get(key) ?? 0) - pickedHere, 0), counted: countedHere, slot: countedHere + pickedHere };
  });

  await sql`
    INSERT INTO product_slots (tenant_id, product_id, location_code, lot, expires_on, quantity)
    SELECT ${tenantId}, s.product_id, ${count.location_code}, s.lot, s.expires_on, s.quantity
    FROM unnest(${lines.map((line) => line.product.id)}::uuid[], ${lines.map((line) => line.lot)}::text[], ${lines.map((line) => line.expiresOn)}::date[],
      ${lines.map((line) => line.slot)}::numeric[]) AS s(product_id, lot, expires_on, quantity)
    ON CONFLICT (tenant_id, product_id, location_code, lot) DO UPDATE SET quantity = excluded.quantity`.execute(tx);
  await sql`
    INSERT INTO count_lines (tenant_id, count_id, product_id, lot, recorded_quantity, counted_quantity)
    SELECT ${tenantId}, ${id}, l.product_id, l.lot, l.recorded, l.counted
    FROM unnest(${lines.map((line) => line.product.id)}::uuid[], ${lines.map((line) => line.lot)}::text[], ${lines.map((line) => line.recorded)}::numeric[],
      ${lines.map((line) => line.counted)}::numeric[]) AS l(product_id, lot, recorded, counted)`.execute(tx);
  const events: DomainEvent[] = [];
  for (const product of products) {
    // One adjustment per product: the sum over its lots.
    const difference = lines.filter((line) => line.product === product).reduce((sum, line) => sum + line.counted - line.recorded, 0);
    if (difference === 0) continue;
    const stock = Math.min(Math.max(Number(product.stock) + difference, 0), MAX_STOCK);
    events.push(...(await adjustStock(tx, tenantId, product.external_id, { stock })).events);
  }
  await tx
    .updateTable('counts')
    .set({ status: 'DONE', done_at: sql<Date>`now()`, done_by: doneBy })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  if (lines.length > 0) await topUpFaces(tx, tenantId, [...new Set(lines.map((line) => line.product.id))]);
  return { id, events };
}

/** Cancels the count (nothing changes at the location); 409 naming its state unless it is OPEN. */
export async function cancelCount(tx: Tx, tenantId: string, id: string, doneBy: string | null): Promise<{ id: string }> {
  await lockOpenCount(tx, tenantId, id, 'cancelled');
  await tx.updateTable('counts').set({ status: 'CANCELLED', done_at: sql<Date>`now()`, done_by: doneBy }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  return { id };
}
