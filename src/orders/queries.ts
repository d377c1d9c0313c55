import { sql } from 'kysely';
import type { Executor } from '../db';
import { settledBefore } from '../db/settled';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { validationError } from '../http/errors';
import type { ListQuery, OrderView } from './schemas';
import { itemsOf, orderView } from './store';

export interface OrderListing {
  orders: OrderView[];
  hasMore: boolean;
  nextCursor: string | null;
  total: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where the previous page ended (in the listing's order), and the listing's total. */
function readCursor(cursor: string, sortColumn: string): { key: string; id: string; total: number } {
  const [mode, key, id, total] = decodeCursor(cursor, ['string', 'string', 'string', 'number']) as [string, string, string, number];
  if (mode !== sortColumn || !UUID.test(id) || !Number.isSafeInteger(total) || total < 0) {
    throw validationError([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
  }
  return { key, id, total };
}

/**
 * GET /orders: oldest first by `createdAt`, or by `updatedAt` with `updated_since` (so a sync can
 * resume where it stopped), keyset-paged. `total` is counted on the first page only, in parallel
 * with it, and carried in the cursors: later pages never count again.
 */
export async function listOrders(db: Executor, tenantId: string, query: ListQuery): Promise<OrderListing> {
  const { limit = 50, cursor, status, has_issues, created_since, updated_since } = query;
  const sortColumn = updated_since ? 'updated_at' : 'created_at';
  const position = cursor === undefined ? undefined : readCursor(cursor, sortColumn);
  let filtered = db.selectFrom('orders').where('tenant_id', '=', tenantId);
  if (status) filtered = filtered.where('status', '=', status);
  if (has_issues !== undefined) filtered = filtered.where('has_issues', '=', has_issues);
  if (created_since) filtered = filtered.where('created_at', '>=', new Date(created_since));
  if (updated_since) {
    // Only up to where no write is still running (db/settled.ts): a sync resuming from the last
    // updatedAt it saw then misses nothing that commits late.
    const settled = await settledBefore(db);
    filtered = filtered.where('updated_at', '>=', new Date(updated_since)).where(sql<boolean>`updated_at < ${settled}::timestamptz`);
  }

  let page = filtered.selectAll().select(sql<string>`${sql.ref(sortColumn)}::text`.as('sort_key'));
  if (position) page = page.where(sql<boolean>`(${sql.ref(sortColumn)}, id) > (${position.key}::timestamptz, ${position.id}::uuid)`);
  const [rows, total] = await Promise.all([
    page.orderBy(sortColumn).orderBy('id').limit(limit + 1).execute(),
    position
      ? position.total
      : filtered
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirstOrThrow()
          .then((counted) => Number(counted.total)),
  ]);
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  const items = await itemsOf(db, tenantId, shown.map((row) => row.id));
  const last = shown.at(-1);
  return {
    orders: shown.map((row) => orderView(row, items.get(row.id) ?? [])),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor([sortColumn, last.sort_key, last.id, total]) : null,
    total,
  };
}
