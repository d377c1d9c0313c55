import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db';
import { settledBefore } from '../db/settled';
import { decodeCursor } from '../http/cursor';
import { keysetAfter, pageOf, type KeyColumn } from '../http/pagination';
import { UUID } from '../http/uuid';
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

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/*
 * Cursors are keyset positions, carrying the listing's total (counted once, on its first page).
 * The whole catalog is listed by `id`, which never changes, so a product that exists throughout a
 * listing appears exactly once however it is written meanwhile. With `updated_since` the order is
 * (updatedAt, id): a product written again moves behind the cursor and is listed again, which is
 * what an incremental sync wants.
 */
const BY_ID: KeyColumn[] = [{ name: 'id', type: 'uuid' }];
const BY_UPDATE: KeyColumn[] = [{ name: 'updated_at', type: 'timestamptz' }, ...BY_ID];

/** Where the previous page ended (the key, in the listing's order), and the listing's total. */
function readCursor(cursor: string, byUpdate: boolean): { key: string[]; total: number } {
  if (byUpdate) {
    const [updatedAt, id, total] = decodeCursor<[string, string, number]>(cursor, ['string', 'string', 'number'], ([updatedAt, id]) => TIMESTAMP.test(updatedAt) && UUID.test(id));
    return { key: [updatedAt, id], total };
  }
  const [id, total] = decodeCursor<[string, number]>(cursor, ['string', 'number'], ([id]) => UUID.test(id));
  return { key: [id], total };
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

  const columns = byUpdate ? BY_UPDATE : BY_ID;
  const after = position ? keysetAfter(columns, position.key) : sql`true`;
  const order = sql.join(columns.map((column) => sql.ref(column.name)));

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

  const { rows, hasMore, nextCursor } = pageOf(page.rows, limit, (last) => (byUpdate ? [last.updated_key, last.id, total] : [last.id, total]));
  return { rows, hasMore, nextCursor, total };
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
