import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { recheckWaitingOrders } from '../orders/revalidation';
import { stockUpdated } from './stock-events';

/** What one accepted upsert did, as the write's consequences need it. */
export interface WrittenProduct {
  id: string;
  externalId: string;
  sku: string;
  created: boolean;
  skuChanged: boolean;
  /** null when the product was created. */
  previousStock: number | null;
  stock: number;
}

/**
 * The consequences of a request's writes, inside its transaction and once per request, as the events to record:
 * `product.stock_updated` for existing products whose stock changed, and a re-check of waiting
 * orders for products that were created, got another sku or more stock.
 * `ordersWaiting` is what the statement that took those products' keys found: when no order waits
 * for them, there is nothing to re-check. A single upsert done alone records its event in its own
 * statement (`stockUpdatedEventSql`), the same event.
 */
export async function afterProductWrites(tx: Tx, tenantId: string, written: WrittenProduct[], ordersWaiting: boolean): Promise<DomainEvent[]> {
  const events: DomainEvent[] = [];
  const revalidate: string[] = [];
  for (const product of written) {
    const { previousStock } = product;
    if (previousStock !== null && previousStock !== product.stock) {
      events.push(stockUpdated(product, previousStock, product.stock, 'INVENTORY_SYNC'));
    }
    if (product.created || product.skuChanged || (previousStock !== null && product.stock > previousStock)) {
      revalidate.push(product.externalId);
    }
  }
  if (ordersWaiting && revalidate.length > 0) events.push(...(await recheckWaitingOrders(tx, tenantId, revalidate)));
  return events;
}
