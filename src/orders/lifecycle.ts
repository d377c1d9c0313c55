import type { Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent, OrderStatus } from '../events/types';
import { conflict } from '../http/errors';
import type { OrderRow } from './store';
import type { OrdersTables } from './tables';

/**
 * The order state machine (docs/orders.md). PENDING → PENDING_VALIDATION happens when an upsert brings
 * an item that does not resolve; DISPATCHED and CANCELLED are terminal.
 */
const NEXT: Record<OrderStatus, readonly OrderStatus[]> = {
  PENDING: ['IN_PICKING', 'CANCELLED', 'PENDING_VALIDATION'],
  PENDING_VALIDATION: ['PENDING', 'CANCELLED'],
  // Back to PENDING only when the wave it was picked in is released (src/floor/wave-commands.ts).
  IN_PICKING: ['PICKED', 'PENDING'],
  PICKED: ['PACKED'],
  PACKED: ['DISPATCHED'],
  DISPATCHED: [],
  CANCELLED: [],
};

export const canMove = (from: OrderStatus, to: OrderStatus) => NEXT[from].includes(to);

export function statusChanged(order: OrderRow, previousStatus: OrderStatus): DomainEvent {
  return {
    event: 'order.status_changed',
    data: {
      externalId: order.external_id,
      orderNumber: order.order_number,
      previousStatus,
      status: order.status,
      updatedAt: order.updated_at.toISOString(),
      // A dispatched order tells where it went (additive to the spec's payload).
      ...(order.status === 'DISPATCHED' ? { carrier: order.carrier, trackingNumber: order.tracking_number } : {}),
    },
  };
}

/** Timestamps a transition records, besides updated_at. */
type Milestone = 'cancelled_at' | 'picked_at' | 'dispatched_at';

/**
 * Moves a locked order to `to` (409 CONFLICT when the state machine does not allow it), stamping
 * the milestone and setting any extra columns; returns the updated row and its
 * `order.status_changed` event.
 */
export async function moveOrder(
  tx: Tx,
  order: OrderRow,
  to: OrderStatus,
  milestone?: Milestone,
  extra: Updateable<OrdersTables['orders']> = {},
): Promise<{ order: OrderRow; event: DomainEvent }> {
  if (!canMove(order.status, to)) {
    throw conflict(`Order ${order.external_id} is ${order.status}; it cannot move to ${to}`);
  }
  const moved = await tx
    .updateTable('orders')
    .set({ ...extra, status: to, updated_at: sql<Date>`now()`, ...(milestone ? { [milestone]: sql<Date>`now()` } : {}) })
    .where('tenant_id', '=', order.tenant_id)
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { order: moved, event: statusChanged(moved, order.status) };
}

/**
 * Moves locked orders to `to` as moveOrder does, in one statement (a wave's orders, made or
 * released together); their events in the order given.
 */
export async function moveOrders(tx: Tx, orders: readonly OrderRow[], to: OrderStatus): Promise<DomainEvent[]> {
  const refused = orders.find((order) => !canMove(order.status, to));
  if (refused) throw conflict(`Order ${refused.external_id} is ${refused.status}; it cannot move to ${to}`);
  if (orders.length === 0) return [];
  const moved = await tx
    .updateTable('orders')
    .set({ status: to, updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', orders[0]!.tenant_id)
    .where('id', 'in', orders.map((order) => order.id))
    .returningAll()
    .execute();
  const byId = new Map(moved.map((order) => [order.id, order]));
  return orders.map((order) => statusChanged(byId.get(order.id)!, order.status));
}
