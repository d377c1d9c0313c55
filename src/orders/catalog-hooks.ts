import type { Tx } from '../db';

/*
 * How catalog writes reach orders. The catalog calls these inside its write transaction;
 * the orders feature owns what they do.
 */

/**
 * Ids of the given products that open orders (neither DISPATCHED nor CANCELLED) reference:
 * their sku must not change (spec §2.1 rule 3, DESIGN.md §3).
 */
export async function productsInOpenOrders(_tx: Tx, _tenantId: string, _productIds: string[]): Promise<Set<string>> {
  // Orders do not exist yet; the orders feature replaces this body.
  return new Set();
}

/**
 * Re-checks waiting orders after products were created, corrected (sku) or restocked, so that a
 * PENDING_VALIDATION order whose items now all resolve moves to PENDING (DESIGN.md §3).
 */
export async function revalidateOrdersForProducts(_tx: Tx, _tenantId: string, _productExternalIds: string[]): Promise<void> {
  // Orders do not exist yet; the orders feature replaces this body.
}
