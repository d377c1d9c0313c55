import type { ColumnType, Generated } from 'kysely';

export interface HttpTables {
  idempotency_keys: {
    tenant_id: string;
    api_key_id: string;
    idempotency_key: string;
    fingerprint: string;
    state: 'in_progress' | 'done';
    request_id: string;
    locked_until: Date;
    status_code: number | null;
    headers: ColumnType<Record<string, string> | null, string | null, string | null>;
    body: string | null;
    expires_at: Date;
    created_at: Generated<Date>;
  };
}
