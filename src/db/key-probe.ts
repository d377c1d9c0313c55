import { sql, type RawBuilder } from 'kysely';

/*
 * A named statement keeps the generic plan it was given on its connection until its tables are
 * analyzed, so a read by a key must take the key's index in every state a table goes through:
 * empty, analyzed, and anything between without statistics. Made on an empty or small table
 * without statistics, a plain equality costs the same on every index leading with tenant_id, and
 * the planner took products_by_update (tenant_id, updated_at, id), which then read all of a
 * tenant's rows per probe as the catalog grew.
 */

/**
 * The row of the tenant's `table` whose unique key `column` is `value`, if any: a derived table to
 * select from or join laterally (`FROM ${uniqueKeyRow(…)} AS p`).
 *
 * The first row at or after (tenant, value) in the order of the unique index (tenant_id, column),
 * kept when it is that key. A row comparison is an index condition only of an index that leads with
 * both columns; any other index could only read every tenant from this one on and sort them, which
 * costs more in every state, even on a fresh table whose primary key is still one page while the
 * unique index of long keys is a level taller (there, an equality or a range on the key estimated
 * one row on every index, and the shorter tree won). Not for FOR UPDATE: the row read first may be
 * another key's; lock by id afterwards (`primaryKeyProbe`).
 */
export function uniqueKeyRow(table: string, column: string, tenantId: unknown, value: unknown): RawBuilder<unknown> {
  const key = sql.ref(column);
  return sql`(SELECT * FROM (
      SELECT * FROM ${sql.table(table)} WHERE (tenant_id, ${key}) >= (${tenantId}, ${value}) ORDER BY tenant_id, ${key} LIMIT 1
    ) AS nearest WHERE nearest.tenant_id = ${tenantId} AND nearest.${key} = ${value})`;
}

/**
 * `id = value` as a read of at most one row through the primary key (tenant_id, id): the end of a
 * WHERE clause that compares tenant_id for equality. A range asking for rows in id order is served
 * presorted only by the primary key, which is also the shortest tree leading with tenant_id, so it
 * wins in every state. BETWEEN v AND v is v.
 */
export function primaryKeyProbe(value: unknown): RawBuilder<unknown> {
  return sql`id BETWEEN ${value} AND ${value} ORDER BY id LIMIT 1`;
}
