import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { ApiError, concurrentUpdate, notFound } from '../http/errors';
import { moveOrder } from './lifecycle';
import { prepareRecheck, runRecheck } from './revalidation';
import { findOrder, itemsOf, lockOrder, lockProductKeys, type OrderRow } from './store';

/**
 * Cancels a PENDING or PENDING_VALIDATION order; cancelling a cancelled order changes nothing
 * and answers it as it is. What the order held is free again for orders waiting on stock, so
 * they are re-checked in the same transaction.
 *
 * Locks in the order of store.ts: the keys of the order's products, then the order. Waiting
 * orders are found before the order row is locked. An order whose items changed meanwhile
 * (another request updated it) gets CONCURRENT_UPDATE rather than a second batch of keys.
 */
export async function cancelOrder(tx: Tx, tenantId: string, externalId: string): Promise<{ order: OrderRow; events: DomainEvent[] }> {
  const unlocked = await findOrder(tx, tenantId, externalId);
  if (!unlocked) throw notFound(`Order ${externalId}`);
  const products = ((await itemsOf(tx, tenantId, [unlocked.id])).get(unlocked.id) ?? []).map((item) => item.product_external_id);
  await lockProductKeys(tx, tenantId, products);
  const freed = unlocked.status === 'PENDING' || unlocked.status === 'PENDING_VALIDATION' ? await prepareRecheck(tx, tenantId, products) : undefined;
  const order = await lockOrder(tx, tenantId, externalId);
  if (order.status === 'CANCELLED') return { order, events: [] };
  if (order.status !== 'PENDING' && order.status !== 'PENDING_VALIDATION') {
    throw new ApiError('ORDER_IN_PROGRESS', `Order ${order.external_id} is ${order.status}; the warehouse has it and it can no longer be cancelled`);
  }
  const items = (await itemsOf(tx, tenantId, [order.id])).get(order.id) ?? [];
  if (!freed || items.some((item) => !products.includes(item.product_external_id))) {
    throw concurrentUpdate(`Order ${order.external_id} was changed by a concurrent request; retry the request`);
  }
  const moved = await moveOrder(tx, order, 'CANCELLED', 'cancelled_at');
  return { order: moved.order, events: [moved.event, ...(await runRecheck(tx, freed))] };
}
