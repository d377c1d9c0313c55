import { sql, type RawBuilder } from 'kysely';

/**
 * `column = value` as a read of at most one row through the unique index whose last column is
 * `column` (the other columns compared for equality beside it): the end of a WHERE clause.
 *
 * A named statement keeps the generic plan it was given on its connection. Made on an empty or
 * small table without statistics, every index leading with tenant_id costs the same for a plain
 * equality, and the planner took products_by_update (tenant_id, updated_at, id), which then read
 * all of a tenant's rows per probe as the catalog grew. A range asking for rows in `column` order
 * is served presorted only by that unique index; any other plan has to read and sort rows, which
 * costs more once the table is analyzed or holds a few hundred rows. It does not win a tie made on
 * a fresh table without statistics whose primary key is still one page while the unique index of
 * long keys is a level taller: every index then reads one estimated row, the sort of one row costs
 * almost nothing, and the shorter tree is cheaper to descend, so the primary key and a sort are
 * planned and kept on the connection until the table is analyzed. BETWEEN v AND v is v under the
 * database's deterministic collation.
 */
export function keyProbe(column: RawBuilder<unknown>, value: unknown): RawBuilder<unknown> {
  return sql`${column} BETWEEN ${value} AND ${value} ORDER BY ${column} LIMIT 1`;
}
