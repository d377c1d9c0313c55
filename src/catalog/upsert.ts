import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Executor, Tx } from '../db';
import { parameter, preparedOnce } from '../db/prepared';
import { primaryKeyProbe, uniqueKeyRow } from '../db/key-probe';
import { isUniqueViolation } from '../db/errors';
import { ApiError, concurrentUpdate, conflict, validationError } from '../http/errors';
import { productKeyAndWaitingOrdersWhen, productKeysTaken, productsInOpenOrders } from '../orders/catalog-hooks';
import { recordEvents } from '../events/outbox';
import type { DomainEvent } from '../events/types';
import { afterProductWrites, type WrittenProduct } from './effects';
import { PRODUCT_FIELDS, sentColumns, unknownLocationWarning, type SentColumn } from './fields';
import { barcodeTaken, packagingProblems } from './packagings';
import { stockUpdatedEventSql } from './stock-events';
import type { ProductInput } from './schemas';

export interface UpsertResult {
  created: boolean;
  id: string;
  warnings: string[];
  /** For the write's outbox; none when done alone, whose statement records its own. */
  events?: DomainEvent[];
}

interface UpsertRow {
  /** The row as written; null when nothing was written. */
  id: string | null;
  sku: string | null;
  stock: number | null;
  /** The row before the write (locked); null when the externalId was new. */
  old_id: string | null;
  old_sku: string | null;
  old_stock: number | null;
  /** Another product holding the requested sku. */
  sku_owner: string | null;
  location_known: boolean;
  /**
   * null when the statement did not take the product's key (orders/catalog-hooks.ts); once it took
   * it, whether orders wait for the product. Alone, always null: the statement aborts itself when they do.
   */
  orders_waiting: boolean | null;
  /** Alone: the statement left the row as it was, since writing it needs a transaction. */
  needs_transaction: boolean;
}

/** `holder` is the other product's externalId, when known. */
export const duplicateSku = (sku: string, holder?: string) =>
  new ApiError(
    'DUPLICATE_SKU',
    holder === undefined
      ? `sku "${sku}" already belongs to another product`
      : `sku "${sku}" already belongs to the product with externalId "${holder}"`,
  );

export const skuLockedByOrders = (sku: string) =>
  `The sku of this product cannot change while open orders reference it (current sku "${sku}"); resolve those orders first`;

const COLUMN_BIT = new Map(PRODUCT_FIELDS.map(({ column }, i) => [column, 1 << i]));

/**
 * The statement's text depends only on which columns are sent, whether a location is checked and
 * whether the key is taken, so that is its name: a connector sends the same fields every time, and
 * the server then parses and plans the statement once per connection instead of at every request
 * (planning cost as much as running it: docs/benchmarks.md, catalog).
 */
function statementName(columns: SentColumn[], checksLocation: boolean, { orderKey, alone }: UpsertMode): string {
  const sent = columns.reduce((mask, { column }) => mask | COLUMN_BIT.get(column)!, 0);
  return `product_upsert_${sent.toString(36)}${checksLocation ? '_location' : ''}${orderKey ? '_key' : ''}${alone ? '_alone' : ''}`;
}

export interface UpsertMode {
  /** Take the product's key and look for orders waiting for it when the write can resolve something for them. */
  orderKey?: boolean;
  /**
   * The statement runs on its own, autocommitted (`upsertProductAlone`): it records the stock
   * change's event itself, leaves a row whose sku would change as it is (`needs_transaction`), and
   * aborts itself when orders wait for the product it created or restocked.
   */
  alone?: boolean;
}

// The upsert's parameters: these three, then the sent columns' values, then the location code when checked.
const TENANT = parameter<string>(1, 'uuid');
const EXTERNAL_ID = parameter<string>(2, 'text');
const SKU = parameter<string>(3, 'text');
const FIRST_COLUMN = 4;

/**
 * POST /products in one statement: lock and read the current row, find another holder of the
 * sku, insert or update (only when something differs, so a repeated sync does not move
 * `updatedAt`), check the location code, and (with `orderKey`) take the product's key and look for
 * orders waiting for it when the write can resolve something for them. Built from placeholders
 * (`upsertParameters`), once per name.
 */
function upsertStatement(columns: SentColumn[], checksLocation: boolean, mode: UpsertMode): RawBuilder<UpsertRow> {
  const { orderKey = false, alone = false } = mode;
  const names = sql.join(columns.map((c) => sql.ref(c.column)));
  const values = sql.join(columns.map((c, i) => parameter(FIRST_COLUMN + i, c.sqlType)));
  const updated = columns.filter((c) => c.column !== 'external_id');
  const set = sql.join(updated.map((c) => sql`${sql.ref(c.column)} = excluded.${sql.ref(c.column)}`));
  const current = sql.join(updated.map((c) => sql`p.${sql.ref(c.column)}`));
  const incoming = sql.join(updated.map((c) => sql`excluded.${sql.ref(c.column)}`));
  const location = checksLocation
    ? sql`EXISTS (SELECT 1 FROM warehouse_locations WHERE tenant_id = ${TENANT} AND code = ${parameter(FIRST_COLUMN + columns.length, 'text')})`
    : sql`true`;
  const waiting = productKeyAndWaitingOrdersWhen(TENANT, EXTERNAL_ID, sql`written.id IS NOT NULL AND (old.id IS NULL OR old.sku <> written.sku OR written.stock > old.stock)`);
  return sql<UpsertRow>`
    WITH old AS (
      -- Found by its key, then locked by its id (a subquery with FOR UPDATE is never merged into the join).
      SELECT p.id, p.sku, p.stock FROM ${uniqueKeyRow('products', 'external_id', TENANT, EXTERNAL_ID)} AS named
      CROSS JOIN LATERAL (SELECT id, sku, stock FROM products WHERE tenant_id = ${TENANT} AND ${primaryKeyProbe(sql`named.id`)} FOR UPDATE) AS p
    ), sku_owner AS (
      SELECT external_id FROM ${uniqueKeyRow('products', 'sku', TENANT, SKU)} AS owner WHERE external_id <> ${EXTERNAL_ID}
    ), written AS (
      INSERT INTO products AS p (tenant_id, ${names})
      SELECT ${TENANT}, ${values}
      WHERE NOT EXISTS (SELECT 1 FROM sku_owner)
      ON CONFLICT (tenant_id, external_id) DO UPDATE SET ${set}, updated_at = now()
      WHERE p.id = (SELECT id FROM old) AND (${current}) IS DISTINCT FROM (${incoming})${alone ? sql` AND p.sku = excluded.sku` : sql``}
      RETURNING p.id, p.sku, p.stock
    )
    SELECT written.id, written.sku, written.stock,
      old.id AS old_id, old.sku AS old_sku, old.stock AS old_stock,
      (SELECT external_id FROM sku_owner) AS sku_owner,
      ${location} AS location_known,
      ${orderKey ? (alone ? abortWhen(waiting) : waiting) : sql`NULL::boolean`} AS orders_waiting,
      ${alone ? sql`old.id IS NOT NULL AND written.id IS NULL AND old.sku <> ${SKU}` : sql`false`} AS needs_transaction${alone ? sql`,
      ${recordEvents(TENANT, stockUpdatedEventSql)} AS deliveries` : sql``}
    FROM (SELECT 1) AS one
    LEFT JOIN written ON true
    LEFT JOIN old ON true`;
}

/**
 * Aborts the autocommitted statement when `condition` holds (the write needs a transaction); null
 * otherwise. The PL/pgSQL function that aborts it is called only then: each call starts its
 * interpreter on the server, and nearly every new product needs none.
 */
const abortWhen = (condition: RawBuilder<boolean | null>) => sql<null>`CASE WHEN ${condition} THEN write_needs_transaction_when(true) END`;

/** The upsert of `input` for the tenant, as its named statement with its parameters bound. */
export function upsertQuery(db: Executor, tenantId: string, input: ProductInput, mode: UpsertMode): CompiledQuery<UpsertRow> {
  const columns = sentColumns(input);
  const checksLocation = Boolean(input.locationCode);
  const parameters = [tenantId, input.externalId, input.sku, ...columns.map((c) => c.value), ...(checksLocation ? [input.locationCode] : [])];
  return preparedOnce(db, statementName(columns, checksLocation, mode), () => upsertStatement(columns, checksLocation, mode), parameters);
}

/**
 * Upserts one product inside the request's transaction (POST /products, docs/catalog.md). Throws DUPLICATE_SKU, or
 * CONFLICT when the sku of a product in open orders would change; the caller's rollback then
 * undoes the write.
 */
export async function upsertProduct(tx: Tx, tenantId: string, input: ProductInput): Promise<UpsertResult> {
  checkPackagings(input);
  // Writes that can resolve or free something for orders also take the product's key, after the row.
  const statement = upsertQuery(tx, tenantId, input, { orderKey: true });
  let row = await runUpsert(tx, statement, input);
  if (row.id === null && row.old_id === null && row.sku_owner === null) {
    // The externalId was inserted by a concurrent request after this statement's snapshot; the
    // statement wrote nothing but now holds the row's lock, so running it again sees that row.
    row = await runUpsert(tx, statement, input);
  }
  if (row.sku_owner !== null) throw duplicateSku(input.sku, row.sku_owner);
  if (row.orders_waiting !== null) productKeysTaken(tx, tenantId, [input.externalId]);
  const id = row.id ?? row.old_id;
  if (id === null) throw concurrentUpdate('The product changed concurrently; retry the request');

  const written: WrittenProduct = {
    id,
    externalId: input.externalId,
    sku: input.sku,
    created: row.old_id === null,
    skuChanged: row.old_sku !== null && row.old_sku !== input.sku,
    previousStock: row.old_stock,
    // A row left as it was keeps its stock.
    stock: row.stock ?? row.old_stock ?? 0,
  };
  if (written.skuChanged && (await productsInOpenOrders(tx, tenantId, [id])).size > 0) {
    throw conflict(skuLockedByOrders(row.old_sku as string));
  }
  const events = await afterProductWrites(tx, tenantId, [written], row.orders_waiting === true);
  return { created: written.created, id, warnings: warnings(row, input), events };
}

/**
 * POST /products as one autocommitted statement, which is all most of them need: a new product,
 * or an update that does not move the sku, when no order waits for the product. It saves the
 * transaction's BEGIN and COMMIT: a round trip, and two statements of the server's and the service's work
 * (docs/benchmarks.md). Anything else is left to `upsertProduct` in a transaction: undefined when
 * the statement wrote nothing for that reason (an sku change); a new or restocked product that
 * orders wait for makes the statement abort itself (isWriteNeedingTransaction), undoing the write.
 */
export async function upsertProductAlone(db: Executor, tenantId: string, input: ProductInput): Promise<UpsertResult | undefined> {
  checkPackagings(input);
  const row = await runUpsert(db, upsertQuery(db, tenantId, input, { orderKey: true, alone: true }), input);
  if (row.sku_owner !== null) throw duplicateSku(input.sku, row.sku_owner);
  const id = row.id ?? row.old_id;
  // Also when the externalId was inserted concurrently after the statement's snapshot (see upsertProduct).
  if (row.needs_transaction || id === null) return undefined;
  return { created: row.old_id === null, id, warnings: warnings(row, input) };
}

const warnings = (row: UpsertRow, input: ProductInput) =>
  row.location_known || !input.locationCode ? [] : [unknownLocationWarning(input.locationCode)];

function checkPackagings(input: ProductInput): void {
  const problems = packagingProblems(input);
  if (problems.length > 0) throw validationError(problems);
}

async function runUpsert(db: Executor, statement: CompiledQuery<UpsertRow>, input: ProductInput): Promise<UpsertRow> {
  try {
    const { rows } = await db.executeQuery(statement);
    return rows[0]!;
  } catch (error) {
    // Another request bound the sku between this statement's snapshot and its insert.
    if (isUniqueViolation(error, 'products_tenant_id_sku_key')) throw duplicateSku(input.sku);
    // The products' trigger refused a barcode another product holds (migration 038).
    const taken = barcodeTaken(error, input);
    if (taken) throw validationError([taken]);
    throw error;
  }
}
