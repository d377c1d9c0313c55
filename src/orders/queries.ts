import { sql } from 'kysely';
import type { Executor } from '../db';
import { settledBefore } from '../db/settled';
import { decodeCursor, isCount } from '../http/cursor';
import { keysetAfter, pageOf } from '../http/pagination';
import { UUID } from '../http/uuid';
import type { ListQuery, OrderView } from './schemas';
import { itemsOf, orderView } from './store';

export interface OrderListing {
  orders: OrderView[];
  hasMore: boolean;
  nextCursor: string | null;
  total: number;
}

/** Where the previous page ended (the key, in the listing's order), and the listing's total. */
function readCursor(cursor: string, sortColumn: string): { key: [string, string]; total: number } {
  const [, key, id, total] = decodeCursor<[string, string, string, number]>(
    cursor,
    ['string', 'string', 'string', 'number'],
    ([mode, , id, total]) => mode === sortColumn && UUID.test(id) && isCount(total),
  );
  return { key: [key, id], total };
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
  if (position) page = page.where(keysetAfter([{ name: sortColumn, type: 'timestamptz' }, { name: 'id', type: 'uuid' }], position.key));
  const [fetched, total] = await Promise.all([
    page.orderBy(sortColumn).orderBy('id').limit(limit + 1).execute(),
    position
      ? position.total
      : filtered
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirstOrThrow()
          .then((counted) => Number(counted.total)),
  ]);
  const { rows, hasMore, nextCursor } = pageOf(fetched, limit, (last) => [sortColumn, last.sort_key, last.id, total]);
  const items = await itemsOf(db, tenantId, rows.map((row) => row.id));
  return { orders: rows.map((row) => orderView(row, items.get(row.id) ?? [])), hasMore, nextCursor, total };
}
