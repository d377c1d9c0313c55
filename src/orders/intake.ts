import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { conflict, validationError } from '../http/errors';
import { assessItems, issueEvents } from './assessment';
import { canMove, statusChanged } from './lifecycle';
import { prepareRecheck, runRecheck } from './revalidation';
import type { OrderInput } from './schemas';
import {
  holdsProductKeys,
  itemsOf,
  lockOrder,
  missingProductKeys,
  noteProductKeys,
  productKeysSql,
  replaceItems,
  type OrderRow,
} from './store';

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

const concurrentChange = (externalId: string) =>
  conflict(`Order ${externalId} was changed by a concurrent request; retry the request`);

interface Match {
  id: string;
  externalId: string;
  /** The products of the order's items (as of the lookup's snapshot). */
  products: string[];
}

/**
 * Looks up the order by externalId and whoever holds the orderNumber, in one statement that also
 * takes the product keys (store.ts) of the order's new items and of its current ones, unless the
 * transaction took its keys already (a batch takes them for all its orders at once). The lookup
 * reads the snapshot from before the keys were granted; what it misses is caught later: a
 * concurrent create by the insert's ON CONFLICT, concurrently changed items by `updateOrder`.
 */
async function lookup(tx: Tx, tenantId: string, input: OrderInput, takeKeys: boolean): Promise<Match[]> {
  const wanted = input.items.map((item) => item.productExternalId);
  const keys = productKeysSql(
    tenantId,
    sql<string[]>`ARRAY(SELECT unnest(${wanted}::text[]) UNION SELECT unnest(m.products) FROM matches m WHERE m.external_id = ${input.externalId})`,
  );
  const { rows } = await sql<{ matches: Match[] }>`
    WITH matches AS (
      SELECT o.id, o.external_id,
        ARRAY(SELECT i.product_external_id FROM order_items i WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id) AS products
      FROM orders o
      WHERE o.tenant_id = ${tenantId} AND (o.external_id = ${input.externalId} OR o.order_number = ${input.orderNumber})
    )
    SELECT (SELECT coalesce(json_agg(json_build_object('id', m.id, 'externalId', m.external_id, 'products', m.products)), '[]') FROM matches m) AS matches
      ${takeKeys ? sql`, ${keys} AS keys` : sql``}`.execute(tx);
  const matches = rows[0]?.matches ?? [];
  if (takeKeys) {
    const current = matches.find((match) => match.externalId === input.externalId)?.products ?? [];
    noteProductKeys(tx, tenantId, [...wanted, ...current]);
  }
  return matches;
}

/**
 * Takes, in one statement, the product keys every order of a batch needs (new items and current
 * ones), so that the orders of the batch do not take keys one after another.
 */
export async function lockKeysForOrders(tx: Tx, tenantId: string, inputs: OrderInput[]): Promise<void> {
  const wanted = [...new Set(inputs.flatMap((input) => input.items.map((item) => item.productExternalId)))];
  const externalIds = inputs.map((input) => input.externalId);
  const current = sql<string[]>`ARRAY(
    SELECT i.product_external_id FROM orders o
    JOIN order_items i ON i.tenant_id = o.tenant_id AND i.order_id = o.id
    WHERE o.tenant_id = ${tenantId} AND o.external_id = ANY(${externalIds}::text[]))`;
  const { rows } = await sql<{ current: string[] }>`
    WITH current AS (SELECT ${current} AS ids)
    SELECT (SELECT ids FROM current) AS current,
      ${productKeysSql(tenantId, sql<string[]>`ARRAY(SELECT unnest(${wanted}::text[]) UNION SELECT unnest(ids) FROM current)`)} AS keys`.execute(tx);
  noteProductKeys(tx, tenantId, [...wanted, ...(rows[0]?.current ?? [])]);
}

/**
 * POST /orders: creates the order or updates it by `externalId` (spec §2.2, §3.2), inside the
 * caller's transaction. Returns the events to emit; throws ApiError when the upsert is refused.
 * A create costs three statements: lookup + keys, catalog + holds, order + items.
 */
export async function upsertOrder(tx: Tx, tenantId: string, input: OrderInput): Promise<UpsertOutcome> {
  rejectRepeatedProducts(input.items);
  const matches = await lookup(tx, tenantId, input, !holdsProductKeys(tx));
  const existing = matches.find((match) => match.externalId === input.externalId);
  if (existing) return updateOrder(tx, tenantId, input, existing);
  const holder = matches[0];
  if (holder) throw conflict(`orderNumber ${input.orderNumber} already belongs to order ${holder.externalId}`);
  const created = await createOrder(tx, tenantId, input);
  if (created) return created;

  // A concurrent request created this externalId or took this orderNumber after the lookup's
  // snapshot, and has committed (the insert waited for it): decide again against what it wrote.
  const again = await lookup(tx, tenantId, input, false);
  const other = again.find((match) => match.externalId === input.externalId);
  if (other) return updateOrder(tx, tenantId, input, other);
  const taker = again[0];
  if (taker) throw conflict(`orderNumber ${input.orderNumber} already belongs to order ${taker.externalId}`);
  throw concurrentChange(input.externalId);
}

/** The new order and its items in one statement; undefined when the externalId or orderNumber was taken meanwhile. */
async function createOrder(tx: Tx, tenantId: string, input: OrderInput): Promise<UpsertOutcome | undefined> {
  const assessment = await assessItems(tx, tenantId, input.items);
  const lines = assessment.lines.map((line, position) => ({
    position,
    product_external_id: line.productExternalId,
    product_sku: line.productSku,
    quantity: line.quantity,
    product_id: line.productId,
  }));
  const order = await tx
    .with('o', (db) =>
      db
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
        .onConflict((oc) => oc.doNothing())
        .returningAll(),
    )
    .with('i', (db) =>
      db
        .insertInto('order_items')
        .columns(['tenant_id', 'order_id', 'position', 'product_external_id', 'product_sku', 'quantity', 'product_id'])
        .expression(
          sql`SELECT o.tenant_id, o.id, l.position, l.product_external_id, l.product_sku, l.quantity, l.product_id
            FROM o CROSS JOIN jsonb_to_recordset(${json(lines)}::jsonb)
              AS l(position integer, product_external_id text, product_sku text, quantity numeric, product_id uuid)`,
        ),
    )
    .selectFrom('o')
    .selectAll()
    .executeTakeFirst();
  if (!order) return undefined;
  return { action: 'created', order, itemsCount: input.items.length, warnings: assessment.warnings, events: issueEvents(order, []) };
}

/**
 * Upsert rules of spec §3.2: PENDING and PENDING_VALIDATION orders take every mutable field (a
 * field left out keeps its value, as for products); later or cancelled orders are refused.
 * `channel` and `orderDate` describe the original sale and are kept from the first request.
 */
async function updateOrder(tx: Tx, tenantId: string, input: OrderInput, match: Match): Promise<UpsertOutcome> {
  // The keys of the items the lookup saw are held (or, after a lost race, this answers 409);
  // waiting orders are found before the order row is locked (the lock order of store.ts).
  if (missingProductKeys(tx, tenantId, [...input.items.map((item) => item.productExternalId), ...match.products]).length > 0) {
    throw concurrentChange(input.externalId);
  }
  const released = await prepareRecheck(tx, tenantId, match.products, match.id);
  const existing = await lockOrder(tx, tenantId, input.externalId);
  if (existing.status !== 'PENDING' && existing.status !== 'PENDING_VALIDATION') {
    throw conflict(`Order ${existing.external_id} is ${existing.status}; only PENDING and PENDING_VALIDATION orders can be updated`);
  }
  if (input.orderNumber !== existing.order_number) {
    throw conflict(`orderNumber cannot change: order ${existing.external_id} has orderNumber ${existing.order_number}`);
  }
  const previousItems = (await itemsOf(tx, tenantId, [existing.id])).get(existing.id) ?? [];
  // Items other than those the lookup saw: another request updated the order meanwhile, and
  // taking more keys now could deadlock.
  const seen = new Set(match.products);
  if (existing.id !== match.id || previousItems.some((item) => !seen.has(item.product_external_id))) {
    throw concurrentChange(existing.external_id);
  }
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
    events.push(...(await runRecheck(tx, released)));
  }
  return { action: 'updated', order, itemsCount: input.items.length, warnings: assessment.warnings, events };
}
