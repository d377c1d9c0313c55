import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db';
import { settledBefore } from '../db/settled';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { validationError } from '../http/errors';
import type { ProductRow } from './fields';
import type { ListQuery } from './schemas';

export async function findProduct(db: Executor, tenantId: string, externalId: string): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

export interface ProductPage {
  rows: ProductRow[];
  hasMore: boolean;
  nextCursor: string | null;
  total: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Where the previous page ended, and the listing's total (counted once, on its first page). */
interface Position {
  updatedAt?: string;
  id: string;
  total: number;
}

/*
 * Cursors are keyset positions. The whole catalog is listed by `id`, which never changes, so a
 * product that exists throughout a listing appears exactly once however it is written meanwhile.
 * With `updated_since` the order is (updatedAt, id): a product written again moves behind the
 * cursor and is listed again, which is what an incremental sync wants.
 */
function readCursor(cursor: string, byUpdate: boolean): Position {
  if (byUpdate) {
    const [updatedAt, id, total] = decodeCursor(cursor, ['string', 'string', 'number']) as [string, string, number];
    if (TIMESTAMP.test(updatedAt) && UUID.test(id)) return { updatedAt, id, total };
  } else {
    const [id, total] = decodeCursor(cursor, ['string', 'number']) as [string, number];
    if (UUID.test(id)) return { id, total };
  }
  throw validationError([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
}

type ListedRow = ProductRow & { updated_key: string; catalog_total: string | null };

export async function listProducts(db: Executor, tenantId: string, query: ListQuery): Promise<ProductPage> {
  const limit = query.limit ?? 50;
  const byUpdate = query.updated_since !== undefined;
  const position = query.cursor === undefined ? undefined : readCursor(query.cursor, byUpdate);

  const filters = [sql`tenant_id = ${tenantId}`];
  const activeOnly = query.active_only ?? true;
  if (activeOnly) filters.push(sql`is_active`);
  if (byUpdate) {
    // Only up to where no write is still running: a sync resuming from the last updatedAt it saw
    // then misses nothing that commits late.
    const settled = await settledBefore(db);
    filters.push(sql`updated_at >= ${query.updated_since}::timestamptz AND updated_at < ${settled}::timestamptz`);
  }
  const where = sql.join(filters, sql` AND `);

  const after = !position
    ? sql`true`
    : byUpdate
      ? sql`(updated_at, id) > (${position.updatedAt}::timestamptz, ${position.id}::uuid)`
      : sql`id > ${position.id}::uuid`;
  const order = byUpdate ? sql`updated_at, id` : sql`id`;

  // The whole catalog's total rides along with its first page, read in the same snapshot: an empty
  // page means none matched.
  const catalogTotal = !position && !byUpdate ? countedCatalog(tenantId, activeOnly) : sql`NULL::bigint`;
  const [page, counted] = await Promise.all([
    sql<ListedRow>`
      SELECT *, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_key,
        ${catalogTotal} AS catalog_total
      FROM products WHERE ${where} AND ${after}
      ORDER BY ${order} LIMIT ${limit + 1}`.execute(db),
    position ? position.total : byUpdate ? countMatching(db, where) : undefined,
  ]);
  const total = counted ?? Number(page.rows[0]?.catalog_total ?? 0);

  const rows = page.rows.slice(0, limit);
  const hasMore = page.rows.length > limit;
  const last = rows.at(-1);
  const nextCursor =
    hasMore && last ? encodeCursor(byUpdate ? [last.updated_key, last.id, total] : [last.id, total]) : null;
  return { rows, hasMore, nextCursor, total: total };
}

/** A filtered listing's total: a count of what matches, as large as the match. */
async function countMatching(db: Executor, where: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ total: string }>`SELECT count(*) AS total FROM products WHERE ${where}`.execute(db);
  return Number(rows[0]?.total ?? 0);
}

/**
 * The whole catalog's total, from the counts the product triggers keep (migration 015) summed over
 * the tenant's slots: a few rows whatever the catalog's size.
 */
function countedCatalog(tenantId: string, activeOnly: boolean): RawBuilder<string> {
  const column = sql.ref(activeOnly ? 'products_active' : 'products_all');
  return sql<string>`(SELECT COALESCE(sum(${column}), 0) FROM tenant_product_counts WHERE tenant_id = ${tenantId})`;
}
