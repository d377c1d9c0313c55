import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { assessItems, issueEvents, issueKey } from './assessment';
import { statusChanged } from './lifecycle';
import { itemsOf, lockOrderBook, type OrderItemRow, type OrderRow } from './store';

/**
 * Re-checks the waiting orders that reference the given products (DESIGN.md §3): orders in
 * PENDING_VALIDATION, and PENDING orders with a stock issue. Call it when a product was created or
 * corrected, or when stock became available (restock, cancel, short pick, smaller order).
 * Returns the events to emit.
 */
export async function recheckWaitingOrders(
  tx: Tx,
  tenantId: string,
  productExternalIds: string[],
  exceptOrderId?: string,
): Promise<DomainEvent[]> {
  const ids = [...new Set(productExternalIds)];
  if (ids.length === 0) return [];
  await lockOrderBook(tx, tenantId);
  let query = tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('status', '=', 'PENDING_VALIDATION'), eb.and([eb('status', '=', 'PENDING'), eb('has_issues', '=', true)])]))
    .where('id', 'in', (eb) =>
      eb.selectFrom('order_items').select('order_id').where('tenant_id', '=', tenantId).where('product_external_id', 'in', ids),
    );
  if (exceptOrderId) query = query.where('id', '!=', exceptOrderId);
  // Oldest first: when stock comes back, the orders that waited longest get it.
  const waiting = await query.orderBy('created_at').orderBy('id').forUpdate().execute();
  const items = await itemsOf(tx, tenantId, waiting.map((order) => order.id));
  const events: DomainEvent[] = [];
  for (const order of waiting) events.push(...(await recheckOrder(tx, order, items.get(order.id) ?? [])));
  return events;
}

async function recheckOrder(tx: Tx, order: OrderRow, items: OrderItemRow[]): Promise<DomainEvent[]> {
  const lines = items.map((item) => ({ productExternalId: item.product_external_id, productSku: item.product_sku, quantity: item.quantity }));
  const assessment = await assessItems(tx, order.tenant_id, lines, order.id);
  const status = assessment.resolved ? 'PENDING' : 'PENDING_VALIDATION';
  // A PENDING order only loses the stock issues now satisfied: re-checking never flags an order
  // that was accepted, so later orders cannot push earlier ones into trouble.
  const fresh = new Set(assessment.issues.map(issueKey));
  const issues = order.status === 'PENDING' ? order.issues.filter((issue) => fresh.has(issueKey(issue))) : assessment.issues;
  const unchanged = status === order.status && issues.map(issueKey).join('\n') === order.issues.map(issueKey).join('\n');
  if (unchanged) return [];

  const updated = await tx
    .updateTable('orders')
    .set({ status, issues: JSON.stringify(issues), has_issues: issues.length > 0, updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', order.tenant_id)
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const [position, line] of assessment.lines.entries()) {
    const item = items[position];
    if (item && item.product_id !== line.productId) {
      await tx
        .updateTable('order_items')
        .set({ product_id: line.productId })
        .where('tenant_id', '=', order.tenant_id)
        .where('order_id', '=', order.id)
        .where('position', '=', item.position)
        .execute();
    }
  }
  const events = issueEvents(updated, order.issues);
  if (status !== order.status) events.push(statusChanged(updated, order.status));
  return events;
}
