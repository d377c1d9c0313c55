import { sql, type RawBuilder } from 'kysely';
import type { Tx } from '../db';
import { productKeySql } from '../db/locks';
import type { Bindable } from '../db/prepared';
import { noteProductKeys, productKeysSql } from './store';

/*
 * How catalog writes reach orders. The catalog calls these inside its write transaction;
 * the orders feature owns what they do.
 *
 * A catalog write that can resolve or free something for orders (a create, an sku change, a
 * restock) takes the product's key (store.ts) after its product row lock and before the checks
 * below, which then see every order that intake committed under that key; an order that intake
 * decides after the key is granted sees the product as written. No other key is taken between.
 */

/** SQL yielding whether orders wait for any of the products; call it only once their keys are held. */
function ordersWaitingForSql(tenantId: Bindable<string>, externalIds: RawBuilder<string[]>): RawBuilder<boolean> {
  // orders_waiting_for (migration 008) reads with a fresh snapshot: it sees orders committed while
  // the calling statement waited for the keys, which the statement's own snapshot would not.
  return sql<boolean>`EXISTS (SELECT 1 FROM orders_waiting_for(${tenantId}::uuid, ${externalIds}))`;
}

/**
 * For the catalog's single-product write statement: SQL that, when `condition` holds (the write
 * created the product, changed its sku or raised its stock), takes the product's key and then
 * tells whether orders wait for the product; NULL when the condition does not hold and no key
 * was taken. Evaluate it after the statement locked or wrote the product row; when it is not
 * NULL, tell `productKeysTaken`.
 */
export function productKeyAndWaitingOrdersWhen(tenantId: Bindable<string>, externalId: Bindable<string>, condition: RawBuilder<boolean>): RawBuilder<boolean | null> {
  // CASE evaluates its branches in order: the key is held before the orders are looked for.
  return sql<boolean | null>`CASE WHEN ${condition} THEN
      CASE WHEN ${productKeySql(tenantId, sql<string>`${externalId}::text`)} THEN ${ordersWaitingForSql(tenantId, sql<string[]>`ARRAY[${externalId}::text]`)} END
    END`;
}

/** Records that the catalog's statement took these products' keys. */
export function productKeysTaken(tx: Tx, tenantId: string, externalIds: string[]): void {
  noteProductKeys(tx, tenantId, externalIds);
}

/**
 * For a catalog batch's statements: SQL that takes, at once and sorted, the keys of the products
 * the batch creates, re-skus or restocks (`externalIds`, an SQL array; evaluate it after their rows
 * are locked or written, before `productsInOpenOrders`), then tells whether orders wait for any of
 * them: when none do, the batch needs no re-check. Tell `productKeysTaken` once it ran.
 */
export function productKeysAndWaitingOrdersSql(tenantId: string, externalIds: RawBuilder<string[]>): RawBuilder<boolean> {
  return sql<boolean>`CASE WHEN ${productKeysSql(tenantId, externalIds)} >= 0 THEN ${ordersWaitingForSql(tenantId, externalIds)} END`;
}

/** `productKeysAndWaitingOrdersSql` as a statement of its own, for a batch that creates nothing. */
export async function lockProductsForOrders(tx: Tx, tenantId: string, productExternalIds: string[]): Promise<boolean> {
  const ids = [...new Set(productExternalIds)];
  if (ids.length === 0) return false;
  const { rows } = await sql<{ waiting: boolean }>`
    SELECT ${productKeysAndWaitingOrdersSql(tenantId, sql<string[]>`${ids}::text[]`)} AS waiting`.execute(tx);
  noteProductKeys(tx, tenantId, ids);
  return rows[0]?.waiting === true;
}

/**
 * Ids of the given products that open orders (neither DISPATCHED nor CANCELLED) reference:
 * their sku must not change while an open order references the product. Only lines that resolved to the
 * product count: a line that names the product with another sku is waiting for exactly that fix.
 * The caller holds the products' keys, so that no order resolves against the old sku between
 * this check and the commit.
 */
export async function productsInOpenOrders(tx: Tx, tenantId: string, productIds: string[]): Promise<Set<string>> {
  if (productIds.length === 0) return new Set();
  const rows = await tx
    .selectFrom('order_items as i')
    .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'i.tenant_id').onRef('o.id', '=', 'i.order_id'))
    .select('i.product_id')
    .distinct()
    .where('i.tenant_id', '=', tenantId)
    .where('i.product_id', 'in', productIds)
    .where('o.status', 'not in', ['DISPATCHED', 'CANCELLED'])
    .execute();
  return new Set(rows.map((row) => row.product_id as string));
}
