import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { assessItems, issueEvents, issueKey } from './assessment';
import { statusChanged } from './lifecycle';
import { itemsOf, lockProductKeys, type OrderItemRow, type OrderRow } from './store';

/** Waiting orders found by `prepareRecheck`, to re-check once the caller's own writes are done. */
export interface PreparedRecheck {
  tenantId: string;
  orderIds: string[];
}

/**
 * First half of a re-check of the waiting orders that reference the given products (DESIGN.md
 * §3): orders in PENDING_VALIDATION, and PENDING orders with a stock issue. Takes the products'
 * keys (none when the transaction holds them) and finds the waiting orders with one plain query:
 * when nothing waits, that query is all a re-check costs. Call it before locking any order row
 * (see the lock order in store.ts).
 *
 * A PENDING_VALIDATION order that resolves starts holding stock of all its products, so their
 * keys are taken too; they come as a second batch of keys, the one exception to "all keys in one
 * statement" (a cycle with another transaction is then possible and PostgreSQL's deadlock check
 * aborts one of the two). A PENDING order holds its stock already: re-checking it only clears
 * stock issues, which needs no key of its other products.
 */
export async function prepareRecheck(
  tx: Tx,
  tenantId: string,
  productExternalIds: string[],
  exceptOrderId?: string,
): Promise<PreparedRecheck> {
  const ids = [...new Set(productExternalIds)];
  if (ids.length === 0) return { tenantId, orderIds: [] };
  await lockProductKeys(tx, tenantId, ids);
  const { rows } = await sql<{ id: string; status: string; products: string[] }>`
    SELECT o.id, o.status,
      ARRAY(SELECT i.product_external_id FROM order_items i WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id) AS products
    FROM orders o
    WHERE o.tenant_id = ${tenantId}
      AND o.id IN (SELECT orders_waiting_for(${tenantId}::uuid, ${ids}::text[]))
      ${exceptOrderId ? sql`AND o.id <> ${exceptOrderId}` : sql``}`.execute(tx);
  await lockProductKeys(
    tx,
    tenantId,
    rows.flatMap((row) => (row.status === 'PENDING_VALIDATION' ? row.products : [])),
  );
  return { tenantId, orderIds: rows.map((row) => row.id) };
}

/** Second half: re-checks the prepared orders, oldest first. Returns the events to emit. */
export async function runRecheck(tx: Tx, prepared: PreparedRecheck): Promise<DomainEvent[]> {
  const { tenantId, orderIds } = prepared;
  if (orderIds.length === 0) return [];
  // Oldest first: when stock comes back, the orders that waited longest get it. The status is
  // checked again under the row lock: an order may have moved since it was found.
  const waiting = await tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', orderIds)
    .where((eb) => eb.or([eb('status', '=', 'PENDING_VALIDATION'), eb.and([eb('status', '=', 'PENDING'), eb('has_issues', '=', true)])]))
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
  const items = await itemsOf(tx, tenantId, waiting.map((order) => order.id));
  const events: DomainEvent[] = [];
  for (const order of waiting) events.push(...(await recheckOrder(tx, order, items.get(order.id) ?? [])));
  return events;
}

/**
 * Re-checks the waiting orders that reference the given products: call it when a product was
 * created or corrected (sku), or when stock became available (restock, cancel, short pick,
 * smaller order), and the transaction holds no order row. Returns the events to emit.
 */
export async function recheckWaitingOrders(tx: Tx, tenantId: string, productExternalIds: string[], exceptOrderId?: string): Promise<DomainEvent[]> {
  return runRecheck(tx, await prepareRecheck(tx, tenantId, productExternalIds, exceptOrderId));
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
