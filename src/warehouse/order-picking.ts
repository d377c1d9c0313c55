import { sql } from 'kysely';
import type { Tx } from '../db';
import { stockUpdated } from '../catalog/stock-events';
import type { DomainEvent } from '../events/types';
import { conflict, notFound, validationError } from '../http/errors';
import { moveOrder, statusChanged } from '../orders/lifecycle';
import { prepareRecheck, runRecheck } from '../orders/revalidation';
import { findOrder, itemsOf, lockOrder, type OrderItemRow, type OrderRow } from '../orders/store';

export interface PickedLine {
  productExternalId: string;
  pickedQuantity: number;
}

/** PENDING → IN_PICKING: the order is assigned to picking on its own, outside a wave. */
export async function startPicking(tx: Tx, tenantId: string, externalId: string): Promise<{ order: OrderRow; events: DomainEvent[] }> {
  const moved = await moveOrder(tx, await lockOrder(tx, tenantId, externalId), 'IN_PICKING');
  return { order: moved.order, events: [moved.event] };
}

/**
 * IN_PICKING → PICKED for one order, with what was picked of each product (a product left out was
 * picked whole): completePickedOrders for a set of one. Returns the picked order and the events.
 */
export async function completePicking(
  tx: Tx,
  tenantId: string,
  externalId: string,
  lines: PickedLine[] = [],
): Promise<{ order: OrderRow; events: DomainEvent[] }> {
  // An IN_PICKING order's items no longer change, so they are read before any lock.
  const order = await findOrder(tx, tenantId, externalId);
  if (!order) throw notFound(`Order ${externalId}`);
  if (order.status !== 'IN_PICKING') throw notPicking(externalId, order.status);
  const items = (await itemsOf(tx, tenantId, [order.id])).get(order.id) ?? [];
  const picked = pickedQuantities(items.map((item) => ({ externalId: item.product_external_id, quantity: item.quantity })), lines);
  const done = await completePickedOrders(tx, tenantId, [{ id: order.id, externalId, items, picked }]);
  return { order: done.orders[0]!, events: done.events };
}

const notPicking = (externalId: string, status: string) => conflict(`Order ${externalId} is ${status}; only an IN_PICKING order can complete picking`);

/** An item of an order to complete. */
export type ItemToPick = Pick<OrderItemRow, 'position' | 'product_external_id' | 'product_sku' | 'quantity' | 'product_id'>;

/** An order to complete: its items, by position, and the picked quantity by product externalId (an item left out was picked whole). */
export interface OrderToComplete {
  id: string;
  externalId: string;
  items: ItemToPick[];
  picked: Map<string, number>;
}

/**
 * IN_PICKING → PICKED for a set of orders (one order's complete-picking, or a wave's), in the same
 * few statements whatever their number. Stock of each product drops by what was picked, never
 * below zero (a picker who finds more than the books say proves the books wrong); a line picked
 * short lowers the order's item, and the stock it no longer holds goes to the orders waiting for
 * it, in one re-check. Locks in the order of orders/store.ts: product rows, product keys (the
 * re-check's), order rows; 409 when an order is no longer IN_PICKING.
 *
 * Events, order by order as given: order.status_changed, product.stock_updated for each of its
 * items in turn (from the stock the previous item left), order.items_adjusted; then the re-check's.
 */
export async function completePickedOrders(tx: Tx, tenantId: string, orders: OrderToComplete[]): Promise<{ orders: OrderRow[]; events: DomainEvent[] }> {
  if (orders.length === 0) return { orders: [], events: [] };
  const lines = orders.flatMap((order) =>
    order.items.map((item) => ({ order, item, quantity: order.picked.get(item.product_external_id) ?? item.quantity })),
  );
  const productIds = [...new Set(lines.flatMap(({ item }) => (item.product_id ? [item.product_id] : [])))].sort();
  if (productIds.length > 0) {
    await tx.selectFrom('products').select('id').where('tenant_id', '=', tenantId).where('id', 'in', productIds).orderBy('id').forUpdate().execute();
  }
  const short = lines.filter((line) => line.quantity < line.item.quantity);
  // The waiting orders' keys, and the orders found, before any order row is locked.
  const freed = short.length > 0 ? await prepareRecheck(tx, tenantId, short.map((line) => line.item.product_external_id)) : undefined;
  const moved = await moveToPicked(tx, tenantId, orders);

  if (short.length > 0) {
    await sql`
      UPDATE order_items i SET quantity = s.quantity
      FROM unnest(${short.map((line) => line.order.id)}::uuid[], ${short.map((line) => line.item.position)}::integer[],
        ${short.map((line) => line.quantity)}::numeric[]) AS s(order_id, position, quantity)
      WHERE i.tenant_id = ${tenantId} AND i.order_id = s.order_id AND i.position = s.position`.execute(tx);
  }
  const stockEvents = await takeStock(tx, tenantId, lines.map((line) => (line.quantity > 0 ? line.item.product_id : null)), lines.map((line) => line.quantity));

  const events: DomainEvent[] = [];
  let line = 0; // `lines` holds the orders' items in turn
  orders.forEach((order, index) => {
    const picked = moved[index]!;
    events.push(statusChanged(picked, 'IN_PICKING'));
    const adjusted = [];
    for (const item of order.items) {
      const { quantity } = lines[line]!;
      const stockEvent = stockEvents.get(line++);
      if (stockEvent) events.push(stockEvent);
      if (quantity < item.quantity) {
        adjusted.push({ productExternalId: item.product_external_id, productSku: item.product_sku, previousQuantity: item.quantity, quantity });
      }
    }
    if (adjusted.length > 0) {
      events.push({
        event: 'order.items_adjusted',
        data: { externalId: picked.external_id, orderNumber: picked.order_number, status: picked.status, items: adjusted, reason: 'SHORT_PICK' },
      });
    }
  });
  if (freed) events.push(...(await runRecheck(tx, freed)));
  return { orders: moved, events };
}

/** Locks the orders (sorted by id, as a wave's writes lock theirs) and moves them to PICKED; returns them in the order given. */
async function moveToPicked(tx: Tx, tenantId: string, orders: OrderToComplete[]): Promise<OrderRow[]> {
  const ids = orders.map((order) => order.id);
  const locked = await tx.selectFrom('orders').select(['id', 'status']).where('tenant_id', '=', tenantId).where('id', 'in', ids).orderBy('id').forUpdate().execute();
  const status = new Map(locked.map((order) => [order.id, order.status]));
  for (const order of orders) {
    const now = status.get(order.id);
    if (!now) throw notFound(`Order ${order.externalId}`);
    if (now !== 'IN_PICKING') throw notPicking(order.externalId, now);
  }
  const moved = await tx
    .updateTable('orders')
    .set({ status: 'PICKED', updated_at: sql<Date>`now()`, picked_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .returningAll()
    .execute();
  const byId = new Map(moved.map((order) => [order.id, order]));
  return ids.map((id) => byId.get(id)!);
}

/**
 * Takes the picked quantities off the products' stock in one statement: entry i of `productIds`
 * (null: nothing to take) and `quantities` is a line, in the order the lines are applied. Stock
 * never goes below zero. Returns the product.stock_updated event of each line that changed a
 * stock, by its index, from the stock the lines before it left (PostgreSQL's numeric arithmetic).
 */
async function takeStock(tx: Tx, tenantId: string, productIds: (string | null)[], quantities: number[]): Promise<Map<number, DomainEvent>> {
  if (productIds.every((id) => id === null)) return new Map();
  // The main query reads the stock as it was before the UPDATE in the same statement.
  const { rows } = await sql<{ line: number; id: string; sku: string; previous: number; stock: number }>`
    WITH lines AS (
      SELECT l.line - 1 AS line, l.product_id, l.quantity,
        sum(l.quantity) OVER (PARTITION BY l.product_id ORDER BY l.line) AS taken
      FROM unnest(${productIds}::uuid[], ${quantities}::numeric[]) WITH ORDINALITY AS l(product_id, quantity, line)
      WHERE l.product_id IS NOT NULL
    ), updated AS (
      UPDATE products p SET stock = greatest(p.stock - t.taken, 0), updated_at = now()
      FROM (SELECT product_id, sum(quantity) AS taken FROM lines GROUP BY product_id) AS t
      WHERE p.tenant_id = ${tenantId} AND p.id = t.product_id
    )
    SELECT l.line, p.id, p.sku, greatest(p.stock - (l.taken - l.quantity), 0) AS previous, greatest(p.stock - l.taken, 0) AS stock
    FROM lines l JOIN products p ON p.tenant_id = ${tenantId} AND p.id = l.product_id
    WHERE greatest(p.stock - (l.taken - l.quantity), 0) <> greatest(p.stock - l.taken, 0)`.execute(tx);
  return new Map(
    rows.map((row) => [Number(row.line), stockUpdated(row, Number(row.previous), Number(row.stock), 'ORDER_PICKED')]),
  );
}

/** The picked quantity per product; a line for a product the order lacks, or above what was ordered, is a 400. */
function pickedQuantities(items: { externalId: string; quantity: number }[], lines: PickedLine[]): Map<string, number> {
  const ordered = new Map(items.map((item) => [item.externalId, item.quantity]));
  const picked = new Map<string, number>();
  const problems = lines.flatMap((line, index) => {
    const field = `lines[${index}]`;
    const quantity = ordered.get(line.productExternalId);
    if (quantity === undefined) return [{ field: `${field}.productExternalId`, message: 'is not an item of this order' }];
    if (picked.has(line.productExternalId)) return [{ field: `${field}.productExternalId`, message: 'appears twice' }];
    picked.set(line.productExternalId, line.pickedQuantity);
    return line.pickedQuantity > quantity ? [{ field: `${field}.pickedQuantity`, message: `must be at most the ordered ${quantity}` }] : [];
  });
  if (problems.length > 0) throw validationError(problems);
  return picked;
}
