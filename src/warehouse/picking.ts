import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { stockUpdated } from '../catalog/stock-events';
import { conflict, notFound, validationError } from '../http/errors';
import { moveOrder } from '../orders/lifecycle';
import { prepareRecheck, runRecheck } from '../orders/revalidation';
import { findOrder, itemsOf, lockOrder, type OrderRow } from '../orders/store';

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
 * IN_PICKING → PICKED. Stock of each product drops by what was picked, never below
 * zero (a picker who finds more than the books say proves the books wrong); a line picked short
 * changes the order's items. Returns the picked order and the events to emit.
 */
export async function completePicking(
  tx: Tx,
  tenantId: string,
  externalId: string,
  lines: PickedLine[] = [],
): Promise<{ order: OrderRow; events: DomainEvent[] }> {
  // Product rows, then product keys, then the order (the lock order of orders/store.ts); an
  // IN_PICKING order's items no longer change, so they can be read first.
  const unlocked = await findOrder(tx, tenantId, externalId);
  if (!unlocked) throw notFound(`Order ${externalId}`);
  const notPicking = (status: string) => conflict(`Order ${externalId} is ${status}; only an IN_PICKING order can complete picking`);
  if (unlocked.status !== 'IN_PICKING') throw notPicking(unlocked.status);
  const items = (await itemsOf(tx, tenantId, [unlocked.id])).get(unlocked.id) ?? [];
  const picked = pickedQuantities(items.map((item) => ({ externalId: item.product_external_id, quantity: item.quantity })), lines);
  const productIds = [...new Set(items.flatMap((item) => (item.product_id ? [item.product_id] : [])))].sort();
  const products = productIds.length
    ? await tx
        .selectFrom('products')
        .select(['id', 'sku', 'stock'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', productIds)
        .orderBy('id')
        .forUpdate()
        .execute()
    : [];
  // A line picked short frees stock the order held, for orders waiting on it: their keys, and the
  // waiting orders found, before the order row is locked.
  const short = items.filter((item) => (picked.get(item.product_external_id) ?? item.quantity) < item.quantity);
  const freed = short.length > 0 ? await prepareRecheck(tx, tenantId, short.map((item) => item.product_external_id)) : undefined;
  const order = await lockOrder(tx, tenantId, externalId);
  if (order.status !== 'IN_PICKING') throw notPicking(order.status);

  const moved = await moveOrder(tx, order, 'PICKED', 'picked_at');
  const events: DomainEvent[] = [moved.event];
  const adjusted: { productExternalId: string; productSku: string; previousQuantity: number; quantity: number }[] = [];
  for (const item of items) {
    const quantity = picked.get(item.product_external_id) ?? item.quantity;
    if (quantity < item.quantity) {
      await tx
        .updateTable('order_items')
        .set({ quantity })
        .where('tenant_id', '=', tenantId)
        .where('order_id', '=', order.id)
        .where('position', '=', item.position)
        .execute();
      adjusted.push({ productExternalId: item.product_external_id, productSku: item.product_sku, previousQuantity: item.quantity, quantity });
    }
    const product = products.find((p) => p.id === item.product_id);
    if (!product || quantity === 0) continue;
    const { stock } = await tx
      .updateTable('products')
      .set({ stock: sql`greatest(stock - ${quantity}, 0)`, updated_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', product.id)
      .returning('stock')
      .executeTakeFirstOrThrow();
    if (Number(stock) !== Number(product.stock)) {
      events.push(stockUpdated(product, Number(product.stock), Number(stock), 'ORDER_PICKED'));
    }
  }
  if (adjusted.length > 0) {
    events.push({
      event: 'order.items_adjusted',
      data: { externalId: order.external_id, orderNumber: order.order_number, status: moved.order.status, items: adjusted, reason: 'SHORT_PICK' },
    });
    if (freed) events.push(...(await runRecheck(tx, freed)));
  }
  return { order: moved.order, events };
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
