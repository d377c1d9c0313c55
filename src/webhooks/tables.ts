import type { ColumnType, Generated } from 'kysely';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dead_letter' | 'replayed';

export interface WebhooksTables {
  webhooks: {
    tenant_id: string;
    id: string;
    url: string;
    events: string[];
    secret_ciphertext: string;
    /** The secret the last rotation replaced, signing next to the current one until it expires. */
    previous_secret_ciphertext: string | null;
    previous_secret_expires_at: Date | null;
    is_active: Generated<boolean>;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  webhook_deliveries: {
    tenant_id: string;
    id: string;
    webhook_id: string;
    seq: ColumnType<number, never, never>;
    event_id: string;
    event: string;
    attempt: Generated<number>;
    status: Generated<DeliveryStatus>;
    test: Generated<boolean>;
    next_attempt_at: Date | null;
    lease_id: string | null;
    status_code: number | null;
    duration_ms: number | null;
    error: string | null;
    response_body: string | null;
    attempted_at: Date | null;
    created_at: Generated<Date>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends WebhooksTables {}
}
