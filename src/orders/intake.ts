import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { conflict, validationError } from '../http/errors';
import { assessItems, issueEvents } from './assessment';
import { canMove, statusChanged } from './lifecycle';
import { recheckWaitingOrders } from './revalidation';
import type { OrderInput } from './schemas';
import { insertItems, itemsOf, lockOrderBook, replaceItems, type OrderRow } from './store';

export interface UpsertOutcome {
  action: 'created' | 'updated';
  order: OrderRow;
  itemsCount: number;
  warnings: string[];
  events: DomainEvent[];
}

const json = (value: unknown) => JSON.stringify(value);

/** One line per product: picking, short picks and stock holds are all per product. */
function rejectRepeatedProducts(items: OrderInput['items']): void {
  const firstIndex = new Map<string, number>();
  const problems = items.flatMap((item, index) => {
    const first = firstIndex.get(item.productExternalId);
    if (first === undefined) {
      firstIndex.set(item.productExternalId, index);
      return [];
    }
    return [{ field: `items[${index}].productExternalId`, message: `repeats items[${first}]; send one line per product` }];
  });
  if (problems.length > 0) throw validationError(problems);
}

/**
 * POST /orders: creates the order or updates it by `externalId` (spec §2.2, §3.2), inside the
 * caller's transaction. Returns the events to emit; throws ApiError when the upsert is refused.
 */
export async function upsertOrder(tx: Tx, tenantId: string, input: OrderInput): Promise<UpsertOutcome> {
  rejectRepeatedProducts(input.items);
  await lockOrderBook(tx, tenantId);
  // The order itself and whichever order holds the orderNumber, in one query.
  const matches = await tx
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('external_id', '=', input.externalId), eb('order_number', '=', input.orderNumber)]))
    .forUpdate()
    .execute();
  const existing = matches.find((row) => row.external_id === input.externalId);
  if (existing) return updateOrder(tx, tenantId, existing, input);
  const holder = matches[0];
  if (holder) throw conflict(`orderNumber ${input.orderNumber} already belongs to order ${holder.external_id}`);
  return createOrder(tx, tenantId, input);
}

async function createOrder(tx: Tx, tenantId: string, input: OrderInput): Promise<UpsertOutcome> {
  const assessment = await assessItems(tx, tenantId, input.items);
  const order = await tx
    .insertInto('orders')
    .values({
      tenant_id: tenantId,
      external_id: input.externalId,
      order_number: input.orderNumber,
      status: assessment.resolved ? 'PENDING' : 'PENDING_VALIDATION',
      issues: json(assessment.issues),
      has_issues: assessment.issues.length > 0,
      priority: input.priority ?? null,
      channel: input.channel ?? null,
      order_date: input.orderDate ?? null,
      due_date: input.dueDate ?? null,
      shipping_method: input.shippingMethod ?? null,
      shipping_address: input.shippingAddress ?? null,
      notes: input.notes ?? null,
      customer: input.customer ? json(input.customer) : null,
      metadata: input.metadata ? json(input.metadata) : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertItems(tx, tenantId, order.id, assessment.lines);
  return { action: 'created', order, itemsCount: input.items.length, warnings: assessment.warnings, events: issueEvents(order, []) };
}

/**
 * Upsert rules of spec §3.2: PENDING and PENDING_VALIDATION orders take every mutable field (a
 * field left out keeps its value, as for products); later or cancelled orders are refused.
 * `channel` and `orderDate` describe the original sale and are kept from the first request.
 */
async function updateOrder(tx: Tx, tenantId: string, existing: OrderRow, input: OrderInput): Promise<UpsertOutcome> {
  if (existing.status !== 'PENDING' && existing.status !== 'PENDING_VALIDATION') {
    throw conflict(`Order ${existing.external_id} is ${existing.status}; only PENDING and PENDING_VALIDATION orders can be updated`);
  }
  if (input.orderNumber !== existing.order_number) {
    throw conflict(`orderNumber cannot change: order ${existing.external_id} has orderNumber ${existing.order_number}`);
  }
  const previousItems = (await itemsOf(tx, tenantId, [existing.id])).get(existing.id) ?? [];
  const assessment = await assessItems(tx, tenantId, input.items, existing.id);
  const status = assessment.resolved ? 'PENDING' : 'PENDING_VALIDATION';
  if (status !== existing.status && !canMove(existing.status, status)) {
    throw conflict(`Order ${existing.external_id} cannot move from ${existing.status} to ${status}`);
  }
  const order = await tx
    .updateTable('orders')
    .set({
      status,
      issues: json(assessment.issues),
      has_issues: assessment.issues.length > 0,
      updated_at: sql<Date>`now()`,
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      ...(input.dueDate !== undefined ? { due_date: input.dueDate } : {}),
      ...(input.shippingMethod !== undefined ? { shipping_method: input.shippingMethod } : {}),
      ...(input.shippingAddress !== undefined ? { shipping_address: input.shippingAddress } : {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.customer !== undefined ? { customer: json(input.customer) } : {}),
      ...(input.metadata !== undefined ? { metadata: json(input.metadata) } : {}),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', existing.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await replaceItems(tx, tenantId, order.id, assessment.lines);

  const events = issueEvents(order, existing.issues);
  if (status !== existing.status) events.push(statusChanged(order, existing.status));
  // What a PENDING order held before the update may now be free for orders waiting on stock.
  if (existing.status === 'PENDING') {
    events.push(...(await recheckWaitingOrders(tx, tenantId, previousItems.map((item) => item.product_external_id), existing.id)));
  }
  return { action: 'updated', order, itemsCount: input.items.length, warnings: assessment.warnings, events };
}
