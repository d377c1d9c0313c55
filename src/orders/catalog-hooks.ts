import type { Tx } from '../db';
import { emit } from '../events/outbox';
import { recheckWaitingOrders } from './revalidation';
import { lockOrderBook } from './store';

/*
 * How catalog writes reach orders. The catalog calls these inside its write transaction;
 * the orders feature owns what they do.
 */

/**
 * Ids of the given products that open orders (neither DISPATCHED nor CANCELLED) reference:
 * their sku must not change (spec §2.1 rule 3, DESIGN.md §3). Only lines that resolved to the
 * product count: a line that names the product with another sku is waiting for exactly that fix.
 */
export async function productsInOpenOrders(tx: Tx, tenantId: string, productIds: string[]): Promise<Set<string>> {
  if (productIds.length === 0) return new Set();
  // Taken so that no order resolves against the old sku between this check and the commit.
  await lockOrderBook(tx, tenantId);
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

/**
 * Re-checks waiting orders after products were created, corrected (sku) or restocked, so that a
 * PENDING_VALIDATION order whose items now all resolve moves to PENDING (DESIGN.md §3).
 */
export async function revalidateOrdersForProducts(tx: Tx, tenantId: string, productExternalIds: string[]): Promise<void> {
  await emit(tx, tenantId, await recheckWaitingOrders(tx, tenantId, productExternalIds));
}
