import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockUpdated, stockUpdatedEventSql } from '../../src/catalog/stock-events';
import type { DatabaseHandle } from '../../src/db';
import { openTestDatabase } from '../helpers/context';

let opened: Awaited<ReturnType<typeof openTestDatabase>>;
let database: DatabaseHandle;
let productId: string;

beforeAll(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  const tenant = await database.db.insertInto('tenants').values({ slug: 'stock-events', name: 'Stock events' }).returning('id').executeTakeFirstOrThrow();
  const product = await database.db
    .insertInto('products')
    .values({ tenant_id: tenant.id, external_id: 'P-1', sku: 'SKU-1', name: 'One', stock: 10 })
    .returning('id')
    .executeTakeFirstOrThrow();
  productId = product.id;
});
afterAll(() => opened.drop());

/** The SQL event of a stock sync from `previous` to `next`, and the TypeScript one, both as the outbox's jsonb stores them. */
async function bothEvents(previous: number, next: number) {
  const { rows } = await sql<{ fromSql: string | null; fromTs: string }>`
    WITH old AS (SELECT id, sku, ${previous}::numeric AS stock FROM products WHERE id = ${productId}),
    written AS (SELECT id, sku, ${next}::numeric AS stock FROM products WHERE id = ${productId})
    SELECT ${stockUpdatedEventSql}::text AS "fromSql",
      ${JSON.stringify([stockUpdated({ id: productId, sku: 'SKU-1' }, previous, next, 'INVENTORY_SYNC')])}::jsonb::text AS "fromTs"`.execute(database.db);
  return rows[0]!;
}

describe('product.stock_updated', () => {
  it('is the same JSON whether built in SQL (a single upsert) or in TypeScript', async () => {
    for (const [previous, next] of [[10, 7], [0, 3], [2.5, 4]] as const) {
      const { fromSql, fromTs } = await bothEvents(previous, next);
      expect(fromSql).toBe(fromTs);
    }
  });

  it('is not built in SQL when the stock did not change', async () => {
    expect((await bothEvents(4, 4)).fromSql).toBeNull();
  });
});
