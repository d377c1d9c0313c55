import { sql } from 'kysely';
import { MAX_STOCK } from '../catalog/schemas';
import { stockUpdated } from '../catalog/stock-events';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { conflict, notFound, validationError } from '../http/errors';
import { recheckWaitingOrders } from '../orders/revalidation';

export interface StockAdjustment {
  productId: string;
  externalId: string;
  sku: string;
  name: string;
  previousStock: number;
  stock: number;
}

/** The change a request body asks for: exactly one of `stock` and `delta` (400 otherwise). */
export function stockChange(body: { stock?: number | undefined; delta?: number | undefined }): { stock: number } | { delta: number } {
  if (body.stock !== undefined && body.delta === undefined) return { stock: body.stock };
  if (body.delta !== undefined && body.stock === undefined) return { delta: body.delta };
  throw validationError([{ field: 'body', message: 'must have exactly one of stock and delta' }]);
}

/**
 * Sets (`stock`) or adjusts (`delta`) a product's stock, never outside 0 … MAX_STOCK (409 then,
 * nothing changed). Returns the adjustment and its events: `product.stock_updated` with reason
 * MANUAL_ADJUSTMENT when the value changed, and, on a rise, those of the waiting orders it serves.
 */
export async function adjustStock(
  tx: Tx,
  tenantId: string,
  externalId: string,
  change: { stock: number } | { delta: number },
): Promise<{ adjustment: StockAdjustment; events: DomainEvent[] }> {
  const product = await tx
    .selectFrom('products')
    .select(['id', 'external_id', 'sku', 'name', 'stock'])
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId)
    .forUpdate()
    .executeTakeFirst();
  if (!product) throw notFound(`Product ${externalId}`);
  const previousStock = Number(product.stock);
  const target = 'stock' in change ? sql<number>`${change.stock}::numeric` : sql<number>`stock + ${change.delta}::numeric`;
  const updated = await tx
    .updateTable('products')
    .set({ stock: target, updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', product.id)
    .where(sql<boolean>`${target} BETWEEN 0 AND ${MAX_STOCK}`)
    .returning('stock')
    .executeTakeFirst();
  if (!updated) {
    const delta = 'delta' in change ? change.delta : undefined;
    throw conflict(`Stock of ${product.external_id} is ${previousStock}; a delta of ${delta} would take it outside 0 … ${MAX_STOCK}`);
  }
  const newStock = Number(updated.stock);
  const events: DomainEvent[] = [];
  if (newStock !== previousStock) {
    events.push(stockUpdated(product, previousStock, newStock, 'MANUAL_ADJUSTMENT'));
  }
  // More stock may satisfy orders waiting on it.
  if (newStock > previousStock) events.push(...(await recheckWaitingOrders(tx, tenantId, [product.external_id])));
  return {
    adjustment: { productId: product.id, externalId: product.external_id, sku: product.sku, name: product.name, previousStock, stock: newStock },
    events,
  };
}
