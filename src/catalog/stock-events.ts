import { sql } from 'kysely';
import type { DomainEvent, StockChangeReason } from '../events/types';

/**
 * `product.stock_updated`: the one payload, whatever changed the stock (a sync, a pick, a manual
 * adjustment). Recorded only when the stock did change.
 */
export function stockUpdated(product: { id: string; sku: string }, previousStock: number, newStock: number, reason: StockChangeReason): DomainEvent {
  return { event: 'product.stock_updated', data: { productId: product.id, sku: product.sku, previousStock, newStock, reason } };
}

/**
 * The same event built in SQL, for a single upsert that records its own event in its statement
 * (upsertStatement): `[stockUpdated(written, old.stock, written.stock, 'INVENTORY_SYNC')]` from the
 * statement's `written` row and locked `old` row, or NULL when the stock did not change. Same keys,
 * same values: test/catalog/stock-events.test.ts holds the two to it.
 */
export const stockUpdatedEventSql = sql`(
  SELECT jsonb_build_array(jsonb_build_object('event', 'product.stock_updated', 'data', jsonb_build_object(
    'productId', written.id, 'sku', written.sku, 'previousStock', old.stock, 'newStock', written.stock, 'reason', 'INVENTORY_SYNC')))
  FROM written JOIN old ON true
  WHERE written.stock <> old.stock)`;
