import type { ColumnType, Generated } from 'kysely';
import type { IssueType, OrderStatus } from '../events/types';

export interface OrderIssue {
  type: IssueType;
  productExternalId: string;
  productSku: string;
}

export interface OrderCustomer {
  externalId: string;
  name?: string;
  email?: string;
  phone?: string;
}

/** jsonb: written as JSON text, read back parsed. */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface OrdersTables {
  orders: {
    tenant_id: string;
    id: Generated<string>;
    external_id: string;
    order_number: string;
    status: OrderStatus;
    issues: Json<OrderIssue[]>;
    has_issues: boolean;
    /** productExternalIds of the INSUFFICIENT_STOCK issues; the database derives it from issues. */
    short_of: ColumnType<string[], never, never>;
    priority: string | null;
    channel: string | null;
    order_date: Timestamp | null;
    due_date: Timestamp | null;
    shipping_method: string | null;
    shipping_address: string | null;
    notes: string | null;
    customer: NullableJson<OrderCustomer>;
    metadata: NullableJson<Record<string, unknown>>;
    carrier: string | null;
    tracking_number: string | null;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
    cancelled_at: Timestamp | null;
    picked_at: Timestamp | null;
    dispatched_at: Timestamp | null;
  };
  order_items: {
    tenant_id: string;
    order_id: string;
    position: number;
    product_external_id: string;
    product_sku: string;
    quantity: ColumnType<number, number | string, number | string>;
    product_id: string | null;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends OrdersTables {}
}
