import type { ColumnType, Generated } from 'kysely';

export interface HttpTables {
  idempotency_keys: {
    tenant_id: string;
    api_key_id: string;
    idempotency_key: string;
    fingerprint: string;
    request_id: string;
    status_code: number;
    headers: ColumnType<Record<string, string>, string, string>;
    body: string;
    expires_at: Date;
    created_at: Generated<Date>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends HttpTables {}
}
