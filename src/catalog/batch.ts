import { sql, type RawBuilder } from 'kysely';
import type { Executor, Tx } from '../db';
import { isUniqueViolation, WriteRaced } from '../db/errors';
import { prepared } from '../db/prepared';
import { primaryKeyProbe, uniqueKeyRow } from '../db/key-probe';
import { batchItemError } from '../http/batch';
import type { FieldProblem } from '../http/errors';
import { lockProductsForOrders, productKeysAndWaitingOrdersSql, productKeysTaken, productsInOpenOrders } from '../orders/catalog-hooks';
import type { DomainEvent } from '../events/types';
import { afterProductWrites, type WrittenProduct } from './effects';
import { PRODUCT_FIELDS, columnDocument, ignoredProductFields, unknownLocationWarning } from './fields';
import { batchBarcodeProblems, packagingProblems } from './packagings';
import type { BatchResponse, ProductInput } from './schemas';
import { duplicateSku, skuLockedByOrders } from './upsert';

type ItemError = BatchResponse['errors'][number];
type ItemWarning = BatchResponse['warnings'][number];

export interface BatchOutcome {
  data: BatchResponse['data'];
  errors: ItemError[];
  warnings: ItemWarning[];
  /** For the write's outbox. */
  events: DomainEvent[];
}

interface Candidate {
  index: number;
  input: ProductInput;
}

interface LockedRow {
  id: string;
  external_id: string;
  sku: string;
  stock: number;
}

/** `r(external_id text, sku text, ...)`: the input columns of the set-based statements. */
const recordColumns = sql.join(PRODUCT_FIELDS.map((f) => sql`${sql.ref(f.column)} ${sql.raw(f.sqlType)}`));

/** Table defaults, applied by the insert to fields an item did not send. */
const INSERT_DEFAULTS: Record<string, string> = { stock: '0', is_active: 'true', is_combo: 'false', lot_tracked: 'false', packagings: "'[]'::jsonb" };

/**
 * POST /products/batch (docs/catalog.md), set-based: one statement locks and reads every product the
 * batch names (by externalId or sku), one inserts the new products (and takes the keys for the
 * order checks), one updates the existing ones, then the request's events and, only when orders
 * wait for its products, their re-check; a handful of statements for 200 products. A batch of new
 * products with distinct skus takes one: the read and the insert (`insertTakingKeys`).
 *
 * Items are decided in index order before anything is written, so the outcome never depends on
 * timing: an externalId sent twice fails from its second occurrence on; a sku that another
 * product holds when the batch starts fails; of two new claims on one sku the first wins.
 */
export async function upsertBatch(
  tx: Tx,
  tenantId: string,
  products: readonly unknown[],
  invalid: ReadonlyMap<number, FieldProblem[]>,
): Promise<BatchOutcome> {
  const errors: ItemError[] = [];
  const fail = (index: number, code: string, message: string, details?: FieldProblem[]) => {
    errors.push(batchItemError(index, products[index], { code, message, details }));
  };
  const invalidItem = (index: number, problems: FieldProblem[]) => fail(index, 'VALIDATION_ERROR', problems.map((p) => `${p.field} ${p.message}`).join('; '), problems);

  const firstIndexOf = new Map<string, number>();
  const candidates: Candidate[] = [];
  products.forEach((item, index) => {
    const problems = invalid.get(index);
    if (problems) return invalidItem(index, problems);
    const input = item as ProductInput;
    const first = firstIndexOf.get(input.externalId);
    if (first !== undefined) {
      const field = `products[${index}].externalId`;
      const message = `repeats products[${first}].externalId; send each product once per batch`;
      return fail(index, 'VALIDATION_ERROR', `${field} ${message}`, [{ field, message }]);
    }
    firstIndexOf.set(input.externalId, index);
    const packagings = packagingProblems(input, `products[${index}].`);
    if (packagings.length > 0) return invalidItem(index, packagings);
    candidates.push({ index, input });
  });
  const barcodes = await batchBarcodeProblems(tx, tenantId, candidates);
  for (const [index, problems] of barcodes) invalidItem(index, problems);
  if (barcodes.size > 0) candidates.splice(0, candidates.length, ...candidates.filter((c) => !barcodes.has(c.index)));

  // A batch whose skus all differ and that names no existing product needs no decision: one
  // statement locks what it names and, finding nothing, inserts it all.
  const lockingFirst = candidates.length > 0 && new Set(candidates.map((c) => c.input.sku)).size === candidates.length;
  const firstInsertion = lockingFirst ? await insertTakingKeys(tx, tenantId, candidates, [], { lockingFirst }) : undefined;
  const allInserted = firstInsertion !== undefined && firstInsertion.locked.length === 0;
  const locked = firstInsertion?.locked ?? (candidates.length === 0 ? [] : await lockNamedProducts(tx, tenantId, candidates));
  const existing = new Map(locked.map((row) => [row.external_id, row]));
  const skuHolder = new Map(locked.map((row) => [row.sku, row.external_id]));

  const claimedBy = new Map<string, number>();
  const accepted: Candidate[] = [];
  for (const candidate of candidates) {
    const { sku, externalId } = candidate.input;
    const holder = skuHolder.get(sku);
    const claim = claimedBy.get(sku);
    if (holder !== undefined && holder !== externalId) {
      fail(candidate.index, 'DUPLICATE_SKU', duplicateSku(sku, holder).message);
    } else if (claim !== undefined) {
      fail(candidate.index, 'DUPLICATE_SKU', `sku "${sku}" is claimed by products[${claim}] of this batch`);
    } else {
      claimedBy.set(sku, candidate.index);
      accepted.push(candidate);
    }
  }

  const changingSku = accepted.flatMap(({ input }) => {
    const row = existing.get(input.externalId);
    return row && row.sku !== input.sku ? [row] : [];
  });
  const toInsert = accepted.filter((candidate) => !existing.has(candidate.input.externalId));
  // The products besides the new ones whose write can resolve or free something for orders: their
  // keys are taken after their rows (locked above), with those of the new products.
  const restocked = accepted.flatMap(({ input }) => {
    const row = existing.get(input.externalId);
    return row && input.stock !== undefined && Number(input.stock) > Number(row.stock) ? [row.external_id] : [];
  });
  const alsoKeyed = [...changingSku.map((row) => row.external_id), ...restocked];
  const { inserted, ordersWaiting } = allInserted
    ? firstInsertion
    : toInsert.length > 0
      ? await insertTakingKeys(tx, tenantId, toInsert, alsoKeyed)
      : { inserted: new Map<string, LockedRow>(), ordersWaiting: await lockProductsForOrders(tx, tenantId, alsoKeyed) };
  const inOpenOrders = changingSku.length > 0 ? await productsInOpenOrders(tx, tenantId, changingSku.map((row) => row.id)) : new Set<string>();
  const toUpdate: Candidate[] = [];
  for (const candidate of accepted) {
    const row = existing.get(candidate.input.externalId);
    if (!row) continue;
    if (inOpenOrders.has(row.id)) fail(candidate.index, 'CONFLICT', skuLockedByOrders(row.sku));
    else toUpdate.push(candidate);
  }

  const written: WrittenProduct[] = [];
  const succeeded: Candidate[] = [];
  for (const candidate of toInsert) {
    written.push(writtenProduct(candidate.input, inserted.get(candidate.input.externalId) as LockedRow));
    succeeded.push(candidate);
  }
  const updated = await updateProducts(tx, tenantId, toUpdate, existing);
  for (const candidate of toUpdate) {
    const before = existing.get(candidate.input.externalId) as LockedRow;
    // A product the batch left as it was is not in `updated` and keeps its stock.
    const after = updated.get(candidate.input.externalId) ?? before;
    written.push(writtenProduct(candidate.input, after, before));
    succeeded.push(candidate);
  }
  const events = await afterProductWrites(tx, tenantId, written, ordersWaiting);

  errors.sort((a, b) => a.index - b.index);
  return {
    data: {
      successCount: written.length,
      createdCount: inserted.size,
      updatedCount: toUpdate.length,
      errorCount: errors.length,
    },
    errors,
    warnings: [...(await locationWarnings(tx, tenantId, succeeded)), ...ignoredFieldsOf(succeeded)].sort((a, b) => a.index - b.index),
    events,
  };
}

/**
 * What writing an item did: `row` as written, `before` the row it updated (none for a product it
 * created). One literal, not a spread of a partial one: the spread cost about 3 µs per product.
 */
const writtenProduct = (input: ProductInput, row: { id: string; stock: number }, before?: LockedRow): WrittenProduct => ({
  id: row.id,
  externalId: input.externalId,
  sku: input.sku,
  stock: row.stock,
  created: before === undefined,
  skuChanged: before !== undefined && before.sku !== input.sku,
  previousStock: before === undefined ? null : before.stock,
});

/**
 * Locks, in id order (so concurrent batches queue rather than deadlock), every product the batch
 * names (`lockStatement`). Every step is a unique-index probe whatever the statistics say: each
 * name is looked up on its own, then each row found is locked through its primary key. Written as
 * one scan of the tenant's products filtered by the ids, the planner (misled by the stale
 * statistics of a catalog being synced) read the whole catalog: 15 ms at 12,000 products against
 * 1–2 ms, growing with it.
 */
async function lockNamedProducts(tx: Tx, tenantId: string, candidates: Candidate[]): Promise<LockedRow[]> {
  const { rows } = await prepared('batch_lock_named_products', lockStatement(tenantId, candidates)).execute(tx);
  return rows;
}

function lockStatement(tenantId: string, candidates: Candidate[]): RawBuilder<LockedRow> {
  const externalIds = candidates.map((c) => c.input.externalId);
  const skus = candidates.map((c) => c.input.sku);
  return sql<LockedRow>`
    SELECT p.id, p.external_id, p.sku, p.stock
    FROM unnest(ARRAY(
      SELECT DISTINCT named.id FROM (
        SELECT (SELECT id FROM ${uniqueKeyRow('products', 'external_id', tenantId, sql`e`)} AS p) AS id FROM unnest(${externalIds}::text[]) AS e
        UNION ALL
        SELECT (SELECT id FROM ${uniqueKeyRow('products', 'sku', tenantId, sql`s`)} AS p) FROM unnest(${skus}::text[]) AS s
      ) AS named
      WHERE named.id IS NOT NULL
      ORDER BY named.id
    )) AS found(id)
    -- A subquery with FOR UPDATE is never merged into the join: one locking probe per id, in order.
    CROSS JOIN LATERAL (
      SELECT id, external_id, sku, stock FROM products WHERE tenant_id = ${tenantId} AND ${primaryKeyProbe(sql`found.id`)} FOR UPDATE
    ) AS p`;
}

/**
 * The statement inserting the given new products, returning their rows. A plain INSERT, not ON
 * CONFLICT DO NOTHING, whose speculative insertion probes every unique index twice (20% of the
 * statement): a product another request inserted after the batch read its names fails the
 * statement, and the batch runs again (`insertTakingKeys`).
 */
function insertStatement(tenantId: string, inputs: readonly ProductInput[], condition: RawBuilder<boolean> = sql`true`): RawBuilder<LockedRow> {
  const documents = JSON.stringify(inputs.map((input) => columnDocument(input)));
  const columns = sql.join(PRODUCT_FIELDS.map((f) => sql.ref(f.column)));
  const values = sql.join(
    PRODUCT_FIELDS.map((f) => {
      const fallback = INSERT_DEFAULTS[f.column];
      const ref = sql`r.${sql.ref(f.column)}`;
      return fallback === undefined ? ref : sql`COALESCE(${ref}, ${sql.raw(fallback)})`;
    }),
  );
  return sql<LockedRow>`
    INSERT INTO products (tenant_id, ${columns})
    SELECT ${tenantId}::uuid, ${values}
    FROM jsonb_to_recordset(${documents}::jsonb) AS r(${recordColumns})
    WHERE ${condition}
    ORDER BY r.external_id
    RETURNING id, external_id, sku, stock`;
}

/** Inserts the given new products, and nothing else: the bench's baseline for a batch. */
export async function insertProducts(db: Executor, tenantId: string, inputs: readonly ProductInput[]): Promise<Map<string, LockedRow>> {
  if (inputs.length === 0) return new Map();
  const { rows } = await prepared('batch_insert_products', insertStatement(tenantId, inputs)).execute(db);
  return new Map(rows.map((row) => [row.external_id, row]));
}

interface Insertion {
  /** With `lockingFirst`: the products the batch names, locked. */
  locked: LockedRow[];
  inserted: Map<string, LockedRow>;
  /** Whether orders wait for one of the keyed products. */
  ordersWaiting: boolean;
}

/**
 * Inserts the given new products and, in the same statement once their rows are written, takes the
 * keys of the new products and of `alsoKeyed` for the order checks (orders/catalog-hooks.ts).
 * Throws `WriteRaced` when a concurrent request inserted one of the products (or took its sku)
 * after the batch read them (`raced`).
 *
 * With `lockingFirst`, the statement first locks what the candidates name, as `lockNamedProducts`
 * does, and inserts only when that is nothing: a batch of new products, the bulk of a first sync,
 * then costs one statement instead of two.
 */
async function insertTakingKeys(
  tx: Tx,
  tenantId: string,
  candidates: Candidate[],
  alsoKeyed: string[],
  { lockingFirst = false } = {},
): Promise<Insertion> {
  const inputs = candidates.map((candidate) => candidate.input);
  const keys = productKeysAndWaitingOrdersSql(tenantId, sql<string[]>`ARRAY(SELECT external_id FROM inserted) || ${alsoKeyed}::text[]`);
  const statement = sql<Partial<LockedRow> & { locked: boolean; orders_waiting: boolean | null }>`
    WITH ${lockingFirst ? sql`locked AS MATERIALIZED (${lockStatement(tenantId, candidates)}),` : sql``}
    inserted AS (${lockingFirst ? insertStatement(tenantId, inputs, sql`NOT EXISTS (SELECT FROM locked)`) : insertStatement(tenantId, inputs)})
    SELECT i.id, i.external_id, i.sku, i.stock, false AS locked, keyed.orders_waiting
    FROM (SELECT ${keys} AS orders_waiting) AS keyed
    LEFT JOIN inserted AS i ON true
    ${lockingFirst ? sql`UNION ALL SELECT id, external_id, sku, stock, true, NULL FROM locked` : sql``}`;
  const name = lockingFirst ? 'batch_lock_or_insert_products' : 'batch_insert_products_taking_keys';
  const { rows } = await prepared(name, statement).execute(tx).catch(raced);
  const locked = rows.filter((row) => row.locked) as LockedRow[];
  const inserted = new Map(rows.flatMap((row) => (row.id && !row.locked ? [[row.external_id!, row as LockedRow] as const] : [])));
  productKeysTaken(tx, tenantId, [...inserted.keys(), ...alsoKeyed]);
  return { locked, inserted, ordersWaiting: rows.some((row) => row.orders_waiting === true) };
}

/**
 * For the batch's writes: a unique index of products refused a row because a concurrent request
 * wrote a product with that externalId or sku after the batch read the names, or took a barcode
 * the batch gives (the products' trigger, migration 038). The batch then runs again (`WriteRaced`)
 * and decides with that product in view.
 */
const RACED_ON = ['products_tenant_id_external_id_key', 'products_tenant_id_sku_key', 'product_barcodes_distinct', 'packaging_barcodes_unique'];

function raced(error: unknown): never {
  if (RACED_ON.some((constraint) => isUniqueViolation(error, constraint))) {
    throw new WriteRaced(error);
  }
  throw error;
}

/**
 * Updates existing products (`existing`, locked by the batch) with the fields each item sent (the
 * document's keys), found by their id; a product whose sent fields already hold those values is
 * not written, so its `updatedAt` stays. Throws `WriteRaced` when a concurrent request took a sku
 * the batch gives (`raced`).
 */
async function updateProducts(tx: Tx, tenantId: string, candidates: Candidate[], existing: ReadonlyMap<string, LockedRow>): Promise<Map<string, LockedRow>> {
  if (candidates.length === 0) return new Map();
  const ids = candidates.map((c) => (existing.get(c.input.externalId) as LockedRow).id);
  const documents = JSON.stringify(candidates.map((c) => columnDocument(c.input)));
  const writable = PRODUCT_FIELDS.filter((f) => f.column !== 'external_id');
  const sent = (column: string) => sql`i.doc ? ${sql.lit(column)}`;
  const assignments = sql.join(
    writable.map(
      ({ column }) => sql`${sql.ref(column)} = CASE WHEN ${sent(column)} THEN i.${sql.ref(column)} ELSE p.${sql.ref(column)} END`,
    ),
  );
  const differs = sql.join(
    writable.map(({ column }) => sql`(${sent(column)} AND p.${sql.ref(column)} IS DISTINCT FROM i.${sql.ref(column)})`),
    sql` OR `,
  );
  const { rows } = await prepared('batch_update_products', sql<LockedRow>`
    UPDATE products AS p SET ${assignments}, updated_at = now()
    FROM (
      SELECT e.doc, (${ids}::uuid[])[e.n] AS id, r.* FROM jsonb_array_elements(${documents}::jsonb) WITH ORDINALITY AS e(doc, n)
      CROSS JOIN LATERAL jsonb_to_record(e.doc) AS r(${recordColumns})
    ) AS i
    WHERE p.tenant_id = ${tenantId} AND p.id = i.id AND (${differs})
    RETURNING p.id, p.external_id, p.sku, p.stock`)
    .execute(tx)
    .catch(raced);
  return new Map(rows.map((row) => [row.external_id, row]));
}

/** The fields each saved product was sent with that are not product fields, named as paths of the batch. */
const ignoredFieldsOf = (succeeded: Candidate[]): ItemWarning[] =>
  succeeded.flatMap(({ index, input }) =>
    ignoredProductFields(input, `products[${index}]`).map((warning) => ({ index, externalId: input.externalId, warning })),
  );

async function locationWarnings(tx: Tx, tenantId: string, succeeded: Candidate[]): Promise<ItemWarning[]> {
  const withCode = succeeded.filter((c) => c.input.locationCode);
  if (withCode.length === 0) return [];
  const codes = [...new Set(withCode.map((c) => c.input.locationCode as string))];
  const known = await tx
    .selectFrom('warehouse_locations')
    .select('code')
    .where('tenant_id', '=', tenantId)
    .where('code', 'in', codes)
    .execute();
  const knownCodes = new Set(known.map((row) => row.code));
  return withCode
    .filter((c) => !knownCodes.has(c.input.locationCode as string))
    .sort((a, b) => a.index - b.index)
    .map((c) => ({ index: c.index, externalId: c.input.externalId, warning: unknownLocationWarning(c.input.locationCode as string) }));
}
