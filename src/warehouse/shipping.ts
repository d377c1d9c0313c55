import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { moveOrder } from '../orders/lifecycle';
import { lockOrder, type OrderRow } from '../orders/store';

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
