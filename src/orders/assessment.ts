import type { Executor } from '../db';
import type { DomainEvent, OrderStatus } from '../events/types';
import type { ItemLine, OrderRow } from './store';
import type { OrderIssue } from './tables';

/** Orders in these states hold the stock their items ask for (DESIGN.md §3). */
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

/**
 * Checks an order's lines against the catalog (spec §2.2): each must match a product by both
 * externalId and sku, and ask for no more than the stock other orders leave available.
 */
export async function assessItems(db: Executor, tenantId: string, items: ItemLine[], exceptOrderId?: string): Promise<Assessment> {
  const externalIds = [...new Set(items.map((item) => item.productExternalId))];
  // Each product with the stock that orders other than this one hold of it, in one query.
  const products = await db
    .selectFrom('products as p')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('order_items as i')
          .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'i.tenant_id').onRef('o.id', '=', 'i.order_id'))
          .select((sub) => sub.fn.sum<number>('i.quantity').as('held'))
          .whereRef('i.tenant_id', '=', 'p.tenant_id')
          .whereRef('i.product_id', '=', 'p.id')
          .where('o.status', 'in', HOLDING_STATUSES)
          .$if(exceptOrderId !== undefined, (sub) => sub.where('o.id', '!=', exceptOrderId as string))
          .as('h'),
      (join) => join.onTrue(),
    )
    .select(['p.id', 'p.external_id', 'p.sku', 'p.stock', 'h.held'])
    .where('p.tenant_id', '=', tenantId)
    .where('p.external_id', 'in', externalIds)
    .execute();
  const byExternalId = new Map(products.map((product) => [product.external_id, product]));
  const lines = items.map((item) => {
    const product = byExternalId.get(item.productExternalId);
    return { ...item, productId: product && product.sku === item.productSku ? product.id : null };
  });

  const issues: OrderIssue[] = [];
  const warnings: string[] = [];
  lines.forEach((line, index) => {
    const issue = { productExternalId: line.productExternalId, productSku: line.productSku };
    const product = byExternalId.get(line.productExternalId);
    if (!product || !line.productId) {
      issues.push({ type: 'UNRESOLVED_PRODUCT', ...issue });
      warnings.push(
        product
          ? `items[${index}]: product ${line.productExternalId} has sku ${product.sku}, not ${line.productSku}`
          : `items[${index}]: no product with externalId ${line.productExternalId} in the catalog`,
      );
      return;
    }
    const available = Number(product.stock) - Number(product.held ?? 0);
    if (line.quantity > available) {
      issues.push({ type: 'INSUFFICIENT_STOCK', ...issue });
      warnings.push(
        `items[${index}]: quantity ${line.quantity} of ${line.productExternalId} exceeds the available stock (${Math.max(available, 0)})`,
      );
    }
  });
  return { lines, issues, warnings, resolved: lines.every((line) => line.productId !== null) };
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
