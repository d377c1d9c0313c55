import type { Executor, Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { orderViewWithLots } from '../floor/lots';
import { moveOrder } from '../orders/lifecycle';
import { notFound } from '../http/errors';
import { lockOrder, type OrderRow } from '../orders/store';
import { orderIdByToteLabel, toteOfOrder } from '../totes/labels';

/** PICKED → PACKED (409 from any other status). */
export async function packOrder(tx: Tx, tenantId: string, externalId: string): Promise<{ order: OrderRow; events: DomainEvent[] }> {
  const moved = await moveOrder(tx, await lockOrder(tx, tenantId, externalId), 'PACKED');
  return { order: moved.order, events: [moved.event] };
}

/** PACKED → DISPATCHED with the shipment's carrier and tracking number, which its event carries too. */
export async function dispatchOrder(
  tx: Tx,
  tenantId: string,
  externalId: string,
  shipment: { carrier?: string | undefined; trackingNumber?: string | undefined },
): Promise<{ order: OrderRow; events: DomainEvent[] }> {
  const moved = await moveOrder(tx, await lockOrder(tx, tenantId, externalId), 'DISPATCHED', 'dispatched_at', {
    carrier: shipment.carrier ?? null,
    tracking_number: shipment.trackingNumber ?? null,
  });
  return { order: moved.order, events: [moved.event] };
}

/**
 * The public order view, each item with its product's name, barcode and packagings for the packer
 * to check and the lots it got, and the tote it came in.
 */
export async function packOrderView(db: Executor, tenantId: string, order: OrderRow) {
  const view = await orderViewWithLots(db, tenantId, order);
  const ids = view.items.map((item) => item.productExternalId);
  const [products, tote] = await Promise.all([
    ids.length
      ? db.selectFrom('products').select(['external_id', 'name', 'barcode', 'packagings']).where('tenant_id', '=', tenantId).where('external_id', 'in', ids).execute()
      : [],
    toteOfOrder(db, tenantId, order.id),
  ]);
  const byId = new Map(products.map((product) => [product.external_id, product]));
  const items = view.items.map((item) => {
    const product = byId.get(item.productExternalId);
    return { ...item, name: product?.name ?? null, barcode: product?.barcode ?? null, packagings: product?.packagings ?? [] };
  });
  return { ...view, items, tote };
}

/** An order by its orderNumber, else by its externalId, else by the label of the tote holding it; 404 when none. */
export async function orderByRef(db: Executor, tenantId: string, ref: string): Promise<OrderRow> {
  const rows = await db
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('order_number', '=', ref), eb('external_id', '=', ref)]))
    .execute();
  const labelled = rows.length === 0 ? await orderIdByToteLabel(db, tenantId, ref) : undefined;
  const order =
    rows.find((row) => row.order_number === ref) ??
    rows[0] ??
    (labelled ? await db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', labelled).executeTakeFirst() : undefined);
  if (!order) throw notFound(`Order or tote label ${ref}`);
  return order;
}
