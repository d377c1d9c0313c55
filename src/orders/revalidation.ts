import { sql } from 'kysely';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { issueEvents, issueKey } from './assessment';
import { statusChanged } from './lifecycle';
import { lockProductKeys, type OrderRow } from './store';
import type { OrderIssue } from './tables';

/*
 * Re-checks of waiting orders (PENDING_VALIDATION, or PENDING with an issue), a few statements whatever the number of orders
 * waiting, none of them per order:
 *
 * - PENDING orders short of stock of a product queue for it, oldest first. One statement serves
 *   the queue of each changed product: the stock not held by the orders outside the queue goes to
 *   the oldest queued orders while it covers their quantities (a running sum), and only the orders
 *   served are written. An order the stock does not cover costs a row of that statement's read.
 * - PENDING_VALIDATION orders with an issue on a changed product are checked from scratch, as
 *   intake would check them, in one statement for all of them, then written in two.
 *
 * The queue is served first: its orders were accepted earlier and already hold their stock.
 */

/** What `prepareRecheck` found, to re-check once the caller's own writes are done. */
export interface PreparedRecheck {
  tenantId: string;
  productExternalIds: string[];
  /** The order the caller rewrites itself, left out of the re-check. */
  exceptOrderId: string | undefined;
  /** PENDING_VALIDATION orders with an issue on one of the products. */
  validationOrderIds: string[];
}

/**
 * First half of a re-check of the orders waiting on the given products. Takes the products' keys
 * (none when the transaction holds them) and finds the PENDING_VALIDATION orders with an issue on
 * one of them. Call it before locking any order row (see the lock order in store.ts).
 *
 * A PENDING_VALIDATION order that resolves starts holding stock of all its products, so their
 * keys are taken too; they come as a second batch of keys, the one exception to "all keys in one
 * statement" (a cycle with another transaction is then possible and PostgreSQL's deadlock check
 * aborts one of the two). A PENDING order holds its stock already: serving it only clears stock
 * issues, which needs no key of its other products.
 */
export async function prepareRecheck(tx: Tx, tenantId: string, productExternalIds: string[], exceptOrderId?: string): Promise<PreparedRecheck> {
  const ids = [...new Set(productExternalIds)];
  const prepared = { tenantId, productExternalIds: ids, exceptOrderId, validationOrderIds: [] };
  if (ids.length === 0) return prepared;
  await lockProductKeys(tx, tenantId, ids);
  // A later statement than the keys': it sees every order committed under them.
  const { rows } = await sql<{ id: string; products: string[] }>`
    SELECT o.id,
      ARRAY(SELECT i.product_external_id FROM order_items i WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id) AS products
    FROM orders o
    WHERE o.tenant_id = ${tenantId} AND o.status = 'PENDING_VALIDATION'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(o.issues) AS issue WHERE issue->>'productExternalId' = ANY (${ids}::text[]))
      ${exceptOrderId ? sql`AND o.id <> ${exceptOrderId}` : sql``}`.execute(tx);
  await lockProductKeys(tx, tenantId, rows.flatMap((row) => row.products));
  return { ...prepared, validationOrderIds: rows.map((row) => row.id) };
}

/** Second half: serves the stock queues, then re-checks the PENDING_VALIDATION orders, oldest first. Returns the events to emit. */
export async function runRecheck(tx: Tx, prepared: PreparedRecheck): Promise<DomainEvent[]> {
  if (prepared.productExternalIds.length === 0) return [];
  const events = await serveStockQueues(tx, prepared);
  if (prepared.validationOrderIds.length > 0) events.push(...(await recheckValidationOrders(tx, prepared)));
  return events;
}

/**
 * Re-checks the orders waiting on the given products: call it when a product was created or
 * corrected (sku), or when stock became available (restock, cancel, short pick, smaller order),
 * and the transaction holds no order row. Returns the events to emit.
 */
export async function recheckWaitingOrders(tx: Tx, tenantId: string, productExternalIds: string[], exceptOrderId?: string): Promise<DomainEvent[]> {
  return runRecheck(tx, await prepareRecheck(tx, tenantId, productExternalIds, exceptOrderId));
}

/**
 * Serves each product's queue in one statement: the PENDING orders with an INSUFFICIENT_STOCK
 * issue on it, oldest first, while the stock left by the other holders (PENDING and IN_PICKING
 * orders not in the queue) covers their running sum. A served order loses that issue and keeps
 * any other; it is never flagged anew, so later orders cannot push earlier ones into trouble.
 * The rows are locked in age order, as every re-check locks them, so two re-checks never deadlock.
 */
async function serveStockQueues(tx: Tx, { tenantId, productExternalIds, exceptOrderId }: PreparedRecheck): Promise<DomainEvent[]> {
  const queued = sql<boolean>`o.status = 'PENDING' AND o.short_of ? t.external_id ${exceptOrderId ? sql`AND o.id <> ${exceptOrderId}` : sql``}`;
  // Computed on the row as locked, not as the statement's snapshot saw it: a re-check of another
  // product may have served the order meanwhile.
  const kept = sql<boolean>`NOT (issue->>'type' = 'INSUFFICIENT_STOCK' AND issue->>'productExternalId' = ANY (s.products))`;
  const { rows } = await sql<Pick<OrderRow, 'external_id' | 'order_number' | 'status' | 'has_issues'>>`
    WITH target AS (
      SELECT tenant_id, id, external_id, stock FROM products
      WHERE tenant_id = ${tenantId} AND external_id = ANY (${productExternalIds}::text[])
    ), lines AS MATERIALIZED (
      -- The lines holding the products, read once, through the products (not in the order of the
      -- queue, which would walk every order of the tenant when the whole queue fits).
      SELECT t.id AS product_id, o.id AS order_id, o.created_at, i.quantity, ${queued} AS queued
      FROM target t
      JOIN order_items i ON i.tenant_id = t.tenant_id AND i.product_id = t.id
      JOIN orders o ON o.tenant_id = i.tenant_id AND o.id = i.order_id
      WHERE o.status IN ('PENDING', 'IN_PICKING')
    ), free AS MATERIALIZED (
      SELECT t.id, t.external_id,
        t.stock - coalesce((SELECT sum(l.quantity) FROM lines l WHERE l.product_id = t.id AND NOT l.queued), 0) AS free
      FROM target t
    ), head AS (
      -- Each queued line asks for at least one unit: the queue's head is at most that many orders.
      SELECT f.external_id, q.order_id, f.free,
        sum(q.quantity) OVER (PARTITION BY f.id ORDER BY q.created_at, q.order_id ROWS UNBOUNDED PRECEDING) AS needed
      FROM free f CROSS JOIN LATERAL (
        SELECT l.order_id, l.created_at, l.quantity FROM lines l
        WHERE l.product_id = f.id AND l.queued
        ORDER BY l.created_at, l.order_id
        LIMIT greatest(floor(f.free), 0)::bigint
      ) AS q
    ), served AS (
      SELECT order_id, array_agg(external_id) AS products FROM head WHERE needed <= free GROUP BY order_id
    ), locked AS (
      SELECT o.id, s.products FROM orders o JOIN served s ON o.id = s.order_id
      WHERE o.tenant_id = ${tenantId} AND o.status = 'PENDING'
      ORDER BY o.created_at, o.id
      FOR UPDATE OF o
    ), updated AS (
      UPDATE orders o SET
        issues = (SELECT coalesce(jsonb_agg(issue ORDER BY position), '[]'::jsonb) FROM jsonb_array_elements(o.issues) WITH ORDINALITY AS e(issue, position) WHERE ${kept}),
        has_issues = EXISTS (SELECT 1 FROM jsonb_array_elements(o.issues) AS e(issue) WHERE ${kept}),
        updated_at = now()
      FROM locked s
      WHERE o.tenant_id = ${tenantId} AND o.id = s.id
      RETURNING o.id, o.external_id, o.order_number, o.status, o.has_issues, o.created_at
    )
    SELECT external_id, order_number, status, has_issues FROM updated ORDER BY created_at, id`.execute(tx);
  return rows.map((order) => ({
    event: 'order.issue_resolved',
    data: {
      externalId: order.external_id,
      orderNumber: order.order_number,
      status: order.status,
      hasIssues: order.has_issues,
      resolvedIssues: ['INSUFFICIENT_STOCK'],
    },
  }));
}

interface CheckedLine {
  position: number;
  productExternalId: string;
  productSku: string;
  /** The product the line resolves to now, and the one it was stored with. */
  productId: string | null;
  previousProductId: string | null;
  short: boolean;
}

/**
 * Checks the PENDING_VALIDATION orders from scratch, as intake would (assessment.ts), in one
 * statement for all of them: a line resolves when a product has its externalId and sku; an order
 * all of whose lines resolve becomes PENDING and holds its quantities from then on, so that, oldest
 * first, each order's lines count what the orders resolved before it hold (a running sum per
 * product). Then one statement writes the orders that changed and one the lines that resolved.
 */
async function recheckValidationOrders(tx: Tx, { tenantId, validationOrderIds }: PreparedRecheck): Promise<DomainEvent[]> {
  // The status is checked again under the row lock: an order may have moved since it was found.
  const { rows } = await sql<Pick<OrderRow, 'id' | 'status' | 'issues'> & { checked: CheckedLine[] }>`
    WITH candidates AS MATERIALIZED (
      SELECT o.* FROM orders o
      WHERE o.tenant_id = ${tenantId} AND o.id = ANY (${validationOrderIds}::uuid[]) AND o.status = 'PENDING_VALIDATION'
      ORDER BY o.created_at, o.id
      FOR UPDATE
    ), lines AS (
      SELECT c.id AS order_id, c.created_at, c.status, c.issues, i.position, i.product_external_id, i.product_sku, i.quantity,
        i.product_id AS previous_product_id, p.id AS product_id, p.stock,
        bool_and(p.id IS NOT NULL) OVER (PARTITION BY c.id) AS resolved
      FROM candidates c
      JOIN order_items i ON i.tenant_id = c.tenant_id AND i.order_id = c.id
      LEFT JOIN products p ON p.tenant_id = i.tenant_id AND p.external_id = i.product_external_id AND p.sku = i.product_sku
    ), held AS (
      SELECT i.product_id, sum(i.quantity) AS held
      FROM order_items i JOIN orders o ON o.tenant_id = i.tenant_id AND o.id = i.order_id
      WHERE i.tenant_id = ${tenantId} AND i.product_id IN (SELECT product_id FROM lines) AND o.status IN ('PENDING', 'IN_PICKING')
      GROUP BY i.product_id
    ), checked AS (
      SELECT l.order_id, l.created_at, l.status, l.issues, l.position, l.product_external_id, l.product_sku, l.product_id, l.previous_product_id,
        l.quantity > l.stock - coalesce(h.held, 0) - coalesce(sum(l.quantity) FILTER (WHERE l.resolved) OVER (
          PARTITION BY l.product_id ORDER BY l.created_at, l.order_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), 0) AS short
      FROM lines l LEFT JOIN held h ON h.product_id = l.product_id
    )
    SELECT order_id AS id, status, issues, json_agg(json_build_object(
        'position', position, 'productExternalId', product_external_id, 'productSku', product_sku,
        'productId', product_id, 'previousProductId', previous_product_id, 'short', coalesce(short, false)
      ) ORDER BY position) AS checked
    FROM checked
    GROUP BY order_id, created_at, status, issues
    ORDER BY created_at, order_id`.execute(tx);

  const changed = rows.flatMap(({ checked, ...order }) => {
    const issues = checked.flatMap((line): OrderIssue[] => {
      const issue = { productExternalId: line.productExternalId, productSku: line.productSku };
      if (line.productId === null) return [{ type: 'UNRESOLVED_PRODUCT', ...issue }];
      return line.short ? [{ type: 'INSUFFICIENT_STOCK', ...issue }] : [];
    });
    const status = checked.every((line) => line.productId !== null) ? 'PENDING' : 'PENDING_VALIDATION';
    const unchanged = status === order.status && issues.map(issueKey).join('\n') === order.issues.map(issueKey).join('\n');
    return unchanged ? [] : [{ order, status, issues, resolvedLines: checked.filter((line) => line.productId !== line.previousProductId) }];
  });
  if (changed.length === 0) return [];

  const orders = JSON.stringify(changed.map(({ order, status, issues }) => ({ id: order.id, status, issues, has_issues: issues.length > 0 })));
  const { rows: updated } = await sql<OrderRow>`
    UPDATE orders o SET status = u.status, issues = u.issues, has_issues = u.has_issues, updated_at = now()
    FROM jsonb_to_recordset(${orders}::jsonb) AS u(id uuid, status text, issues jsonb, has_issues boolean)
    WHERE o.tenant_id = ${tenantId} AND o.id = u.id
    RETURNING o.*`.execute(tx);
  const lines = changed.flatMap(({ order, resolvedLines }) => resolvedLines.map((line) => ({ order_id: order.id, position: line.position, product_id: line.productId })));
  if (lines.length > 0) {
    await sql`
      UPDATE order_items i SET product_id = u.product_id
      FROM jsonb_to_recordset(${JSON.stringify(lines)}::jsonb) AS u(order_id uuid, position integer, product_id uuid)
      WHERE i.tenant_id = ${tenantId} AND i.order_id = u.order_id AND i.position = u.position`.execute(tx);
  }
  const byId = new Map(updated.map((row) => [row.id, row]));
  return changed.flatMap(({ order }) => {
    const after = byId.get(order.id) as OrderRow;
    const events = issueEvents(after, order.issues);
    if (after.status !== order.status) events.push(statusChanged(after, order.status));
    return events;
  });
}
