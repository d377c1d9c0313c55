import { sql, type CompiledQuery } from 'kysely';
import type { Executor } from '../db';
import { prepared } from '../db/prepared';
import { uniqueKeyRow } from '../db/key-probe';
import type { DomainEvent, OrderStatus } from '../events/types';
import type { ItemLine, OrderRow } from './store';
import type { OrderIssue } from './tables';

/** Orders in these states hold the stock their items ask for: stock held by one is not available to another. */
export const HOLDING_STATUSES: OrderStatus[] = ['PENDING', 'IN_PICKING'];

export interface AssessedLine extends ItemLine {
  /** The catalog product the line resolved to; null when it does not resolve. */
  productId: string | null;
}

export interface Assessment {
  lines: AssessedLine[];
  issues: OrderIssue[];
  /** One readable sentence per issue, for the `warnings` of the response. */
  warnings: string[];
  /** Whether every line resolved against the catalog (the order can be PENDING). */
  resolved: boolean;
}

/** A catalog product as intake sees it: the stock, and what orders hold of it. */
export interface CatalogProduct {
  id: string;
  external_id: string;
  sku: string;
  stock: number;
  /** What PENDING and IN_PICKING orders (but the one being rewritten) hold of it; null when none. */
  held: number | null;
}

/**
 * The named products, each with the stock that orders other than `exceptOrderId` hold of it, in
 * one statement whatever their number (a named prepared statement: its text never changes).
 */
export async function catalogFor(db: Executor, tenantId: string, externalIds: string[], exceptOrderId?: string): Promise<Map<string, CatalogProduct>> {
  return catalogOf((await db.executeQuery(catalogQuery(db, tenantId, externalIds, exceptOrderId))).rows);
}

/** The products `catalogQuery` read, by externalId. */
export const catalogOf = (rows: readonly CatalogProduct[]) => new Map(rows.map((row) => [row.external_id, row]));

/** The statement of `catalogFor`, for a caller that sends it along with another one (db/together.ts). */
export function catalogQuery(db: Executor, tenantId: string, externalIds: string[], exceptOrderId?: string): CompiledQuery<CatalogProduct> {
  return prepared(
    'orders_catalog_and_holds',
    sql<CatalogProduct>`
      SELECT p.id, p.external_id, p.sku, p.stock, h.held
      FROM unnest(${[...new Set(externalIds)]}::text[]) AS named(external_id)
      -- One probe of the unique index per name (a subquery with LIMIT is never merged into a join):
      -- as a filter on the tenant's products, the planner, misled by the statistics of a catalog
      -- being synced, read the whole catalog.
      CROSS JOIN LATERAL ${uniqueKeyRow('products', 'external_id', tenantId, sql`named.external_id`)} AS p
      -- What the holding orders (but the one rewritten) hold of it: migration 031, inlined here.
      LEFT JOIN LATERAL held_stock(p.tenant_id, p.id, ${HOLDING_STATUSES}::text[], ${exceptOrderId ?? null}::uuid) AS h ON true`,
  ).compile(db);
}

/**
 * Checks an order's lines against the catalog (docs/orders.md): each must match a product by both
 * externalId and sku, and ask for no more than the stock other orders leave available. `heldBefore`
 * adds what orders decided earlier in the same batch hold (by product id), beyond `catalog`'s read.
 */
export function assessLines(items: ItemLine[], catalog: ReadonlyMap<string, CatalogProduct>, heldBefore?: ReadonlyMap<string, number>): Assessment {
  const lines = items.map((item) => {
    const product = catalog.get(item.productExternalId);
    return { ...item, productId: product && product.sku === item.productSku ? product.id : null };
  });

  const issues: OrderIssue[] = [];
  const warnings: string[] = [];
  lines.forEach((line, index) => {
    const issue = { productExternalId: line.productExternalId, productSku: line.productSku };
    const product = catalog.get(line.productExternalId);
    if (!product || !line.productId) {
      issues.push({ type: 'UNRESOLVED_PRODUCT', ...issue });
      warnings.push(
        product
          ? `items[${index}]: product ${line.productExternalId} has sku ${product.sku}, not ${line.productSku}`
          : `items[${index}]: no product with externalId ${line.productExternalId} in the catalog`,
      );
      return;
    }
    const available = Number(product.stock) - Number(product.held ?? 0) - (heldBefore?.get(product.id) ?? 0);
    if (line.quantity > available) {
      issues.push({ type: 'INSUFFICIENT_STOCK', ...issue });
      warnings.push(
        `items[${index}]: quantity ${line.quantity} of ${line.productExternalId} exceeds the available stock (${Math.max(available, 0)})`,
      );
    }
  });
  return { lines, issues, warnings, resolved: lines.every((line) => line.productId !== null) };
}

/** `assessLines` against a fresh read of the catalog: the re-check of one order being updated. */
export async function assessItems(db: Executor, tenantId: string, items: ItemLine[], exceptOrderId?: string): Promise<Assessment> {
  return assessLines(items, await catalogFor(db, tenantId, items.map((item) => item.productExternalId), exceptOrderId));
}

export const issueKey = (issue: OrderIssue) => `${issue.type}\u0000${issue.productExternalId}\u0000${issue.productSku}`;

/**
 * The issue events of an order whose issues went from `before` to the order's current issues:
 * `order.issue_detected` (with every open issue) when new ones appeared, `order.issue_resolved`
 * (with the kinds that went away) when some were resolved.
 */
export function issueEvents(order: OrderRow, before: OrderIssue[]): DomainEvent[] {
  const after = order.issues;
  const beforeKeys = new Set(before.map(issueKey));
  const afterKeys = new Set(after.map(issueKey));
  const base = { externalId: order.external_id, orderNumber: order.order_number, status: order.status, hasIssues: order.has_issues };
  const events: DomainEvent[] = [];
  if (after.some((issue) => !beforeKeys.has(issueKey(issue)))) {
    events.push({ event: 'order.issue_detected', data: { ...base, issues: after } });
  }
  const resolved = before.filter((issue) => !afterKeys.has(issueKey(issue)));
  if (resolved.length > 0) {
    events.push({ event: 'order.issue_resolved', data: { ...base, resolvedIssues: [...new Set(resolved.map((issue) => issue.type))] } });
  }
  return events;
}
