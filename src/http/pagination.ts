import { sql, type RawBuilder } from 'kysely';
import { encodeCursor } from './cursor';

/**
 * Keyset pagination, the one way lists page: a page is the rows after the last one shown in the
 * listing's order, which stays correct and cheap however deep the listing goes (no OFFSET).
 *
 *   const key = cursor === undefined ? undefined : decodeCursor(cursor, shape, valid);
 *   rows = … .where(keysetAfter(columns, key)) .orderBy(columns) .limit(limit + 1)
 *   const { rows, hasMore, nextCursor } = pageOf(fetched, limit, (last) => [last.key, last.id]);
 */

/** A column of a listing's order, and the type its value in a cursor is read as. */
export interface KeyColumn {
  name: string;
  type: 'uuid' | 'timestamptz' | 'bigint' | 'text';
}

/**
 * Rows past `key` in a listing ordered by `columns`, all ascending (or all descending): a row-value
 * comparison, answered from an index on those columns. `key` holds one value per column, in order.
 */
export function keysetAfter(columns: readonly KeyColumn[], key: readonly (string | number)[], direction: 'asc' | 'desc' = 'asc'): RawBuilder<boolean> {
  const names = sql.join(columns.map((column) => sql.ref(column.name)));
  const values = sql.join(columns.map((column, i) => sql`${key[i]}::${sql.raw(column.type)}`));
  return direction === 'asc' ? sql<boolean>`(${names}) > (${values})` : sql<boolean>`(${names}) < (${values})`;
}

export interface KeysetPage<R> {
  rows: R[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * A page from the `limit + 1` rows a keyset query fetched: the extra row only tells that more
 * follow. The next cursor is what `cursorOf` makes of the last row shown.
 */
export function pageOf<R>(fetched: R[], limit: number, cursorOf: (last: R) => readonly (string | number)[]): KeysetPage<R> {
  const rows = fetched.slice(0, limit);
  const hasMore = fetched.length > limit;
  const last = rows.at(-1);
  return { rows, hasMore, nextCursor: hasMore && last !== undefined ? encodeCursor(cursorOf(last)) : null };
}
