/** The five event kinds and their `data` payloads (docs/webhooks.md). */

export type OrderStatus = 'PENDING' | 'PENDING_VALIDATION' | 'IN_PICKING' | 'PICKED' | 'PACKED' | 'DISPATCHED' | 'CANCELLED';
export type IssueType = 'UNRESOLVED_PRODUCT' | 'INSUFFICIENT_STOCK';
export type StockChangeReason = 'ORDER_PICKED' | 'MANUAL_ADJUSTMENT' | 'INVENTORY_SYNC';

export interface EventPayloads {
  'order.status_changed': {
    externalId: string;
    orderNumber: string;
    previousStatus: OrderStatus;
    status: OrderStatus;
    updatedAt: string;
    /** Only when status is DISPATCHED. */
    carrier?: string | null;
    trackingNumber?: string | null;
  };
  'order.issue_detected': {
    externalId: string;
    orderNumber: string;
    status: OrderStatus;
    hasIssues: boolean;
    issues: { type: IssueType; productExternalId: string; productSku: string }[];
  };
  'order.issue_resolved': {
    externalId: string;
    orderNumber: string;
    status: OrderStatus;
    hasIssues: boolean;
    resolvedIssues: IssueType[];
  };
  'order.items_adjusted': {
    externalId: string;
    orderNumber: string;
    status: OrderStatus;
    items: { productExternalId: string; productSku: string; previousQuantity: number; quantity: number }[];
    reason: string;
  };
  'product.stock_updated': {
    productId: string;
    sku: string;
    previousStock: number;
    newStock: number;
    reason: StockChangeReason;
  };
}

export type EventName = keyof EventPayloads;
export const EVENT_NAMES = [
  'order.status_changed',
  'order.issue_detected',
  'order.issue_resolved',
  'order.items_adjusted',
  'product.stock_updated',
] as const satisfies readonly EventName[];

/** One event as a feature raises it. */
export type DomainEvent = { [E in EventName]: { event: E; data: EventPayloads[E] } }[EventName];
