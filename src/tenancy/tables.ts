import type { Generated } from 'kysely';

export interface TenancyTables {
  tenants: {
    id: Generated<string>;
    slug: string;
    name: string;
    created_at: Generated<Date>;
  };
  api_keys: {
    tenant_id: string;
    id: Generated<string>;
    name: string | null;
    key_hash: string;
    prefix: string;
    permissions: string[];
    rate_limit_per_minute: number;
    daily_limit: number;
    allowed_ips: string[] | null;
    expires_at: Date | null;
    revoked_at: Date | null;
    created_at: Generated<Date>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends TenancyTables {}
}
