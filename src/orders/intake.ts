import { sql, type RawBuilder } from 'kysely';
import type { Executor, Tx } from '../db';
import { isUniqueViolation, WriteRaced } from '../db/errors';
import { prepared } from '../db/prepared';
import { uniqueKeyRow } from '../db/key-probe';
import { executeTogether } from '../db/together';
import type { DomainEvent } from '../events/types';
import { ApiError, concurrentUpdate, conflict, validationError, type FieldProblem } from '../http/errors';
import { assessItems, assessLines, catalogFor, catalogOf, catalogQuery, HOLDING_STATUSES, issueEvents, type Assessment, type CatalogProduct } from './assessment';
import { canMove, statusChanged } from './lifecycle';
import { prepareRecheck, runRecheck } from './revalidation';
import type { OrderInput } from './schemas';
import { holdsProductKeys, itemsOf, lockOrder, missingProductKeys, noteProductKeys, productKeysSql, replaceItems, type OrderRow } from './store';

export interface UpsertOutcome {
  action: 'created' | 'updated';
  order: OrderRow;
  itemsCount: number;
  warnings: string[];
  events: DomainEvent[];
}

/** What intake made of one order of a request: its outcome, or why it was refused. */
export type OrderResult = UpsertOutcome | ApiError;

const json = (value: unknown) => JSON.stringify(value);

/** One line per product: picking, short picks and stock holds are all per product. */
function repeatedProducts(items: OrderInput['items']): ApiError | undefined {
  const firstIndex = new Map<string, number>();
  const problems = items.flatMap((item, index) => {
    const first = firstIndex.get(item.productExternalId);
    if (first === undefined) {
      firstIndex.set(item.productExternalId, index);
      return [];
    }
    return [{ field: `items[${index}].productExternalId`, message: `repeats items[${first}]; send one line per product` }];
  });
  return problems.length > 0 ? validationError(problems) : undefined;
}

const concurrentChange = (externalId: string) =>
  concurrentUpdate(`Order ${externalId} was changed by a concurrent request; retry the request`);

const numberTaken = (orderNumber: string, holder: string) => conflict(`orderNumber ${orderNumber} already belongs to order ${holder}`);

interface Match {
  id: string;
  externalId: string;
  orderNumber: string;
  /** The products of the order's items (as of the lookup's snapshot). */
  products: string[];
}

/** A new order decided in a batch, waiting to be written with the orders decided next to it. */
interface Creation {
  index: number;
  input: OrderInput;
  match: Match;
}

/**
 * Order intake, for POST /orders (a batch of one) and POST /orders/batch alike (docs/orders.md),
 * inside the caller's transaction. Returns each order's result, by index: the outcome with
 * the events to emit, or the ApiError that refused it (`invalid` holds the problems of the orders
 * their schema refused). A refused order writes nothing, so the others commit without savepoints.
 *
 * Orders are decided in index order, exactly as if they came one after another, but by statements
 * for the whole batch: one looks up every order named by externalId or orderNumber and takes the
 * product keys of all of them (store.ts), one reads the catalog and the holds of all the products
 * of a run of new orders (for the first run, sent with the lookup: one round trip for both), one
 * inserts those orders with their items; then the caller emits the
 * events in one more. Within a run, each order's stock check counts what the orders before it in
 * the run hold. An update of an existing order (or of one the batch created: the same externalId
 * twice is a create then an update) runs on its own (`updateOrder`), after the new orders before
 * it are written, since it may free stock and serve waiting orders. A batch of new orders is
 * therefore three statements in two round trips before COMMIT, whatever its size; a single create
 * is the same.
 */
export async function upsertOrders(
  tx: Tx,
  tenantId: string,
  orders: readonly unknown[],
  invalid: ReadonlyMap<number, FieldProblem[]> = new Map(),
): Promise<OrderResult[]> {
  const results: OrderResult[] = [];
  const valid = orders.flatMap((order, index) => (invalid.has(index) ? [] : [order as OrderInput]));
  const known = new Map<string, Match>();
  const numberHolders = new Map<string, string>();
  const found = await lookup(tx, tenantId, valid);
  for (const match of found.matches) {
    known.set(match.externalId, match);
    numberHolders.set(match.orderNumber, match.externalId);
  }
  // The catalog as read with the lookup: what a run decides by, until the batch first writes.
  let catalogRead: Map<string, CatalogProduct> | undefined = found.catalog;

  let run: Creation[] = [];
  const writeRun = async () => {
    if (run.length === 0) return;
    const created = await createOrders(tx, tenantId, run, catalogRead);
    catalogRead = undefined;
    created.forEach((outcome, i) => (results[run[i]!.index] = outcome));
    run = [];
  };

  for (const [index, order] of orders.entries()) {
    const input = order as OrderInput;
    const problems = invalid.get(index);
    const refusal = problems ? validationError(problems) : repeatedProducts(input.items);
    if (refusal) {
      results[index] = refusal;
      continue;
    }
    const existing = known.get(input.externalId);
    if (existing) {
      await writeRun();
      // An update changes what its order holds, and may move waiting orders to PENDING.
      catalogRead = undefined;
      try {
        const outcome = await updateOrder(tx, tenantId, input, existing);
        results[index] = outcome;
        existing.products = input.items.map((item) => item.productExternalId);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
        results[index] = error;
      }
      continue;
    }
    const holder = numberHolders.get(input.orderNumber);
    if (holder !== undefined) {
      results[index] = numberTaken(input.orderNumber, holder);
      continue;
    }
    // The id is the insert's; an update later in the batch comes after the run is written.
    const match = { id: '', externalId: input.externalId, orderNumber: input.orderNumber, products: input.items.map((item) => item.productExternalId) };
    known.set(input.externalId, match);
    numberHolders.set(input.orderNumber, input.externalId);
    run.push({ index, input, match });
  }
  await writeRun();
  return results;
}

/** POST /orders: `upsertOrders` for one order; throws the ApiError when the upsert is refused. */
export async function upsertOrder(tx: Tx, tenantId: string, input: OrderInput): Promise<UpsertOutcome> {
  const [result] = await upsertOrders(tx, tenantId, [input]);
  if (result instanceof ApiError) throw result;
  return result as UpsertOutcome;
}

/**
 * Looks up, in one statement, the orders the inputs name by externalId and those holding their
 * orderNumbers, and takes the product keys (store.ts) of the inputs' items and of the current
 * items of the orders they update, sorted, unless the transaction holds keys already (it must not
 * take a second batch). The lookup reads the snapshot from before the keys were granted; what it
 * misses is caught later: a concurrent create by the insert's unique indexes (`createOrders`),
 * concurrently changed items by `updateOrder`.
 *
 * The catalog and the holds of the inputs' products (`catalogFor`) are read by the next statement,
 * sent in the same write (db/together.ts): it starts once the lookup has finished, so its snapshot
 * has what the holders of those keys committed. A first run of new orders is checked against it,
 * which saves every new order a round trip; an update ignores it.
 */
async function lookup(tx: Tx, tenantId: string, inputs: OrderInput[]): Promise<{ matches: Match[]; catalog: Map<string, CatalogProduct> }> {
  if (inputs.length === 0) return { matches: [], catalog: new Map() };
  const externalIds = inputs.map((input) => input.externalId);
  const orderNumbers = inputs.map((input) => input.orderNumber);
  const wanted = [...new Set(inputs.flatMap((input) => input.items.map((item) => item.productExternalId)))];
  const takeKeys = !holdsProductKeys(tx);
  const keys = productKeysSql(
    tenantId,
    sql<string[]>`ARRAY(SELECT unnest(${wanted}::text[]) UNION SELECT unnest(m.products) FROM matches m WHERE m.external_id = ANY (${externalIds}::text[]))`,
  );
  const lookupQuery = prepared(
    takeKeys ? 'orders_lookup_taking_keys' : 'orders_lookup',
    sql<{ matches: Match[] }>`
      WITH found AS (
        -- One probe of a unique index per name (a subquery with LIMIT is never merged into a join,
        -- which the planner could answer with a scan of the tenant's orders).
        SELECT o.* FROM unnest(${externalIds}::text[]) AS e CROSS JOIN LATERAL (
          SELECT tenant_id, id, external_id, order_number FROM ${uniqueKeyRow('orders', 'external_id', tenantId, sql`e`)} AS named
        ) AS o
        UNION
        SELECT o.* FROM unnest(${orderNumbers}::text[]) AS n CROSS JOIN LATERAL (
          SELECT tenant_id, id, external_id, order_number FROM ${uniqueKeyRow('orders', 'order_number', tenantId, sql`n`)} AS named
        ) AS o
      ), matches AS (
        SELECT o.id, o.external_id, o.order_number,
          ARRAY(SELECT i.product_external_id FROM order_items i WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id) AS products
        FROM found o
      )
      SELECT (SELECT coalesce(json_agg(json_build_object('id', m.id, 'externalId', m.external_id, 'orderNumber', m.order_number, 'products', m.products)), '[]') FROM matches m) AS matches
        ${takeKeys ? sql`, ${keys} AS keys` : sql``}`,
  ).compile(tx);
  const [{ rows }, catalog] = await executeTogether(tx, lookupQuery, catalogQuery(tx, tenantId, wanted));
  const matches = rows[0]?.matches ?? [];
  if (takeKeys) {
    const named = new Set(externalIds);
    noteProductKeys(tx, tenantId, [...wanted, ...matches.flatMap((match) => (named.has(match.externalId) ? match.products : []))]);
  }
  return { matches, catalog: catalogOf(catalog.rows) };
}

/**
 * Writes a run of new orders: one statement reads the catalog and the holds of all their products
 * (unless `catalogRead` has them as they stand: read with the lookup, nothing written since),
 * each order is checked in index order counting what the PENDING orders before it in the run hold
 * (as if they had been written one after another), and one statement inserts the orders and their
 * items. Records each order's id in its match, for an update of it later in the batch.
 */
async function createOrders(tx: Tx, tenantId: string, run: Creation[], catalogRead?: Map<string, CatalogProduct>): Promise<UpsertOutcome[]> {
  const catalog = catalogRead ?? (await catalogFor(tx, tenantId, run.flatMap(({ input }) => input.items.map((item) => item.productExternalId))));
  const heldBefore = new Map<string, number>();
  const assessed = run.map(({ input }) => {
    const assessment = assessLines(input.items, catalog, heldBefore);
    // A PENDING order holds all its lines, also those short of stock.
    if (assessment.resolved) {
      for (const line of assessment.lines) heldBefore.set(line.productId!, (heldBefore.get(line.productId!) ?? 0) + line.quantity);
    }
    return assessment;
  });
  const rows = await insertOrders(tx, tenantId, run.map(({ input }, i) => ({ input, assessment: assessed[i]! })));
  return run.map(({ input, match }, i) => {
    const order = rows.get(input.externalId) as OrderRow;
    match.id = order.id;
    return { action: 'created', order, itemsCount: input.items.length, warnings: assessed[i]!.warnings, events: issueEvents(order, []) };
  });
}

/**
 * Inserts the given new orders and their items in one statement, returning the orders by
 * externalId. A plain INSERT: an order another request created (or an orderNumber it took) after
 * the lookup's snapshot fails the statement on a unique index, and the write runs again from the
 * start (`WriteRaced`), deciding with that order in view.
 */
export async function insertOrders(tx: Tx, tenantId: string, orders: { input: OrderInput; assessment: Assessment }[]): Promise<Map<string, OrderRow>> {
  const documents = orders.map(({ input, assessment }, ord) => orderDocument(input, assessment.resolved ? 'PENDING' : 'PENDING_VALIDATION', assessment.issues, ord));
  const lines = orders.flatMap(({ input, assessment }) => lineDocuments(input, assessment.lines.map((line) => line.productId)));
  const { rows } = await prepared('orders_insert_with_items', insertWithItems(tenantId, documents, lines)).execute(tx).catch(raced);
  return new Map(rows.map((row) => [row.external_id, row]));
}

/** An order as the insert reads it (a row of a jsonb array), `ord` its place in the statement. */
const orderDocument = (input: OrderInput, status: string, issues: Assessment['issues'], ord: number) => ({
  ord,
  external_id: input.externalId,
  order_number: input.orderNumber,
  status,
  issues,
  has_issues: issues.length > 0,
  priority: input.priority ?? null,
  channel: input.channel ?? null,
  order_date: input.orderDate ?? null,
  due_date: input.dueDate ?? null,
  shipping_method: input.shippingMethod ?? null,
  shipping_address: input.shippingAddress ?? null,
  notes: input.notes ?? null,
  customer: input.customer ?? null,
  metadata: input.metadata ?? null,
});

/** An order's lines as the inserts read them, each with the product it resolved to (null: unresolved, or left to `create_order`). */
const lineDocuments = (input: OrderInput, productIds: (string | null)[]) =>
  input.items.map((item, position) => ({
    external_id: input.externalId,
    position,
    product_external_id: item.productExternalId,
    product_sku: item.productSku,
    quantity: item.quantity,
    product_id: productIds[position] ?? null,
  }));

/** The INSERT of orders and their items, yielding the orders. */
function insertWithItems(tenantId: string, documents: object[], lines: object[]): RawBuilder<OrderRow> {
  return sql<OrderRow>`
      WITH o AS (
        INSERT INTO orders (tenant_id, external_id, order_number, status, issues, has_issues, priority, channel, order_date,
          due_date, shipping_method, shipping_address, notes, customer, metadata)
        SELECT ${tenantId}::uuid, r.external_id, r.order_number, r.status, r.issues, r.has_issues, r.priority, r.channel, r.order_date,
          r.due_date, r.shipping_method, r.shipping_address, r.notes, r.customer, r.metadata
        FROM jsonb_to_recordset(${json(documents)}::jsonb) AS r(ord integer, external_id text, order_number text, status text,
          issues jsonb, has_issues boolean, priority text, channel text, order_date timestamptz, due_date timestamptz,
          shipping_method text, shipping_address text, notes text, customer jsonb, metadata jsonb)
        ORDER BY r.ord
        RETURNING *
      ), i AS (
        INSERT INTO order_items (tenant_id, order_id, position, product_external_id, product_sku, quantity, product_id)
        SELECT o.tenant_id, o.id, l.position, l.product_external_id, l.product_sku, l.quantity, l.product_id
        FROM jsonb_to_recordset(${json(lines)}::jsonb)
          AS l(external_id text, position integer, product_external_id text, product_sku text, quantity numeric, product_id uuid)
        JOIN o ON o.external_id = l.external_id
      )
      SELECT * FROM o`;
}

/**
 * POST /orders of a new order as one autocommitted statement, which is all most new orders need
 * (docs/orders.md): it takes the keys of the order's products (store.ts) and then calls
 * `create_order` (migration 031), which, in fresh snapshots, finds every line resolved and its
 * stock available, and writes the order, PENDING without issues (no events), unless an order holds
 * its externalId or orderNumber (its insert does nothing on that conflict). It saves BEGIN, COMMIT
 * and a round trip for the insert, and the function's statements keep their plans for the
 * connection. Anything else (an update, a taken orderNumber, a line with an issue, a repeated
 * product, an order created concurrently) writes nothing and resolves to undefined: `upsertOrder`
 * decides it in a transaction and words the answer.
 */
export async function createOrderAlone(db: Executor, tenantId: string, input: OrderInput): Promise<UpsertOutcome | undefined> {
  if (repeatedProducts(input.items)) return undefined;
  const products = input.items.map((item) => item.productExternalId);
  // The lines are an argument of the function only once the keys are taken (it is STRICT).
  const { rows } = await prepared(
    'orders_create_alone',
    sql<OrderRow>`SELECT * FROM create_order(${tenantId}::uuid, ${json(orderDocument(input, 'PENDING', [], 0))}::jsonb,
      CASE WHEN ${productKeysSql(tenantId, products)} >= 0 THEN ${json(lineDocuments(input, []))}::jsonb END, ${HOLDING_STATUSES}::text[])`,
  ).execute(db);
  const order = rows[0];
  return order && { action: 'created', order, itemsCount: input.items.length, warnings: [], events: [] };
}

/** A concurrent request created one of the orders, or took its orderNumber, after the lookup. */
function raced(error: unknown): never {
  if (isUniqueViolation(error, 'orders_tenant_id_external_id_key') || isUniqueViolation(error, 'orders_tenant_id_order_number_key')) {
    throw new WriteRaced(error);
  }
  throw error;
}

/**
 * The update rules of an existing order: PENDING and PENDING_VALIDATION orders take every mutable field (a
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
