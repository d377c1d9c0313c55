import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Executor, Tx } from '../db';
import { productKey } from '../db/locks';
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

/*
 * Product keys: what keeps the stock holds of orders and the catalog consistent.
 *
 * Every write that decides or changes what orders hold of a product, or how an order line
 * resolves against it, takes the product's key: a transaction-scoped advisory lock on
 * hashtextextended(tenant_id || ':' || productExternalId, 0). Order intake, cancel, the re-check
 * of waiting orders, picking short, and the catalog writes that can resolve or free something
 * (create, sku change, restock) all take it, so that of two of them on one product the second
 * reads what the first committed. Writes on different products no longer wait for each other.
 *
 * A key only helps a statement that starts after it was taken: under READ COMMITTED a statement
 * reads the snapshot of its start, so a statement that waited for a key inside itself does not see
 * what the holder committed meanwhile. Whatever must see it (the catalog + holds query of intake,
 * the waiting-orders query of a re-check, the sku-change check) runs as a later statement.
 *
 * LOCK ORDER, everywhere (no deadlocks):
 *   1. product rows (FOR UPDATE, or the row an INSERT/UPDATE of products writes): catalog upsert
 *      and batch, picking, stock adjustments;
 *   2. product keys, ALL the keys a transaction needs in ONE statement, sorted by key (the SQL
 *      sorts the hashed keys before taking them); a transaction never asks for keys it does not
 *      hold once it holds some (intake answers 409 rather than doing so, see intake.ts);
 *   3. order rows (FOR UPDATE on orders).
 * Never the other way round: no product row lock after a key, no key after an order row.
 * start-picking, pack and dispatch change no holds and only lock the order row.
 */

/** The keys held by each open transaction, as `tenantId:externalId`. */
const heldKeys = new WeakMap<Tx, Set<string>>();
const keyName = (tenantId: string, externalId: string) => `${tenantId}:${externalId}`;

/**
 * SQL that takes the keys of the given products, sorted, and yields how many it took. Fold it
 * into a statement that runs anyway; record the keys with `noteProductKeys` once it ran.
 */
export function productKeysSql(tenantId: string, externalIds: RawBuilder<string[]> | string[]): RawBuilder<number> {
  const ids = Array.isArray(externalIds) ? sql`${externalIds}::text[]` : externalIds;
  return sql<number>`(SELECT count(*) FROM (
      SELECT pg_advisory_xact_lock(k) FROM (
        SELECT DISTINCT ${productKey(tenantId, sql`e`)} AS k FROM unnest(${ids}) AS e
      ) AS keys ORDER BY k
    ) AS locked)`;
}

export function noteProductKeys(tx: Tx, tenantId: string, externalIds: Iterable<string>): void {
  const held = heldKeys.get(tx) ?? new Set<string>();
  for (const id of externalIds) held.add(keyName(tenantId, id));
  heldKeys.set(tx, held);
}

/** Whether the transaction already took some product keys (it must not take another batch). */
export const holdsProductKeys = (tx: Tx) => (heldKeys.get(tx)?.size ?? 0) > 0;

/** The given products whose keys the transaction does not hold. */
export function missingProductKeys(tx: Tx, tenantId: string, externalIds: Iterable<string>): string[] {
  const held = heldKeys.get(tx);
  return [...new Set(externalIds)].filter((id) => !held?.has(keyName(tenantId, id)));
}

/**
 * Takes the keys of the given products the transaction does not hold yet, in one statement (none
 * when it holds them all). Call it once per transaction, before any order row lock.
 */
export async function lockProductKeys(tx: Tx, tenantId: string, externalIds: Iterable<string>): Promise<void> {
  const missing = missingProductKeys(tx, tenantId, externalIds);
  if (missing.length === 0) return;
  await sql`SELECT ${productKeysSql(tenantId, missing)}`.execute(tx);
  noteProductKeys(tx, tenantId, missing);
}

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
