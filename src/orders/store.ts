import { sql, type Selectable } from 'kysely';
import type { Executor, Tx } from '../db';
import { notFound } from '../http/errors';
import type { OrderView } from './schemas';
import type { OrderIssue, OrdersTables } from './tables';

export type OrderRow = Selectable<OrdersTables['orders']>;
export type OrderItemRow = Selectable<OrdersTables['order_items']>;

/** An item line as the client sends it. */
export interface ItemLine {
  productExternalId: string;
  productSku: string;
  quantity: number;
}

/**
 * Serializes the writes that decide or change what orders hold of the stock (intake, cancel,
 * re-validation, picking) within one tenant, so two orders can never both take the last units.
 * Lock order everywhere: product rows, then this lock, then order rows; never the other way.
 */
export async function lockOrderBook(tx: Tx, tenantId: string): Promise<void> {
  // Held until the transaction ends, so a batch asks once, not once per order.
  const held = lockedBooks.get(tx);
  if (held?.has(tenantId)) return;
  await sql`SELECT pg_advisory_xact_lock(hashtext('pickport.orders'), hashtext(${tenantId}))`.execute(tx);
  lockedBooks.set(tx, (held ?? new Set()).add(tenantId));
}
const lockedBooks = new WeakMap<Tx, Set<string>>();

/** The order, locked for the rest of the transaction; 404 when the tenant has no such order. */
export async function lockOrder(tx: Tx, tenantId: string, externalId: string): Promise<OrderRow> {
  const order = await tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId)
    .forUpdate()
    .executeTakeFirst();
  if (!order) throw notFound(`Order ${externalId}`);
  return order;
}

export async function findOrder(db: Executor, tenantId: string, externalId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('external_id', '=', externalId).executeTakeFirst();
}

/** Item lines of the given orders, in the order the client sent them. */
export async function itemsOf(db: Executor, tenantId: string, orderIds: string[]): Promise<Map<string, OrderItemRow[]>> {
  const byOrder = new Map<string, OrderItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db
    .selectFrom('order_items')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
  for (const row of rows) byOrder.get(row.order_id)?.push(row);
  return byOrder;
}

type ResolvedLine = ItemLine & { productId: string | null };

export async function insertItems(tx: Tx, tenantId: string, orderId: string, lines: ResolvedLine[]): Promise<void> {
  await tx
    .insertInto('order_items')
    .values(
      lines.map((line, position) => ({
        tenant_id: tenantId,
        order_id: orderId,
        position,
        product_external_id: line.productExternalId,
        product_sku: line.productSku,
        quantity: line.quantity,
        product_id: line.productId,
      })),
    )
    .execute();
}

export async function replaceItems(tx: Tx, tenantId: string, orderId: string, lines: ResolvedLine[]): Promise<void> {
  await tx.deleteFrom('order_items').where('tenant_id', '=', tenantId).where('order_id', '=', orderId).execute();
  await insertItems(tx, tenantId, orderId, lines);
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The fields POST /orders answers with. */
export function orderSummary(order: OrderRow, itemsCount: number) {
  const issues: OrderIssue[] = order.issues;
  return {
    id: order.id,
    externalId: order.external_id,
    orderNumber: order.order_number,
    status: order.status,
    hasIssues: order.has_issues,
    itemsCount,
    unresolvedProducts: issues
      .filter((issue) => issue.type === 'UNRESOLVED_PRODUCT')
      .map(({ productExternalId, productSku }) => ({ productExternalId, productSku })),
    issues,
  };
}

export function orderView(order: OrderRow, items: OrderItemRow[]): OrderView {
  return {
    ...orderSummary(order, items.length),
    items: items.map((item) => ({
      productExternalId: item.product_external_id,
      productSku: item.product_sku,
      quantity: item.quantity,
    })),
    customer: order.customer,
    priority: order.priority,
    channel: order.channel,
    orderDate: iso(order.order_date),
    dueDate: iso(order.due_date),
    shippingMethod: order.shipping_method,
    shippingAddress: order.shipping_address,
    notes: order.notes,
    metadata: order.metadata,
    carrier: order.carrier,
    trackingNumber: order.tracking_number,
    createdAt: order.created_at.toISOString(),
    updatedAt: order.updated_at.toISOString(),
    cancelledAt: iso(order.cancelled_at),
    pickedAt: iso(order.picked_at),
    dispatchedAt: iso(order.dispatched_at),
  };
}

/** The whole order with its items, for the API responses. */
export async function loadOrderView(db: Executor, tenantId: string, order: OrderRow): Promise<OrderView> {
  const items = await itemsOf(db, tenantId, [order.id]);
  return orderView(order, items.get(order.id) ?? []);
}
