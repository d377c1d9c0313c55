import type { ColumnType, Generated } from 'kysely';

export interface EventsTables {
  events: {
    tenant_id: string;
    id: Generated<string>;
    event: string;
    data: ColumnType<unknown, string, string>;
    occurred_at: Generated<Date>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends EventsTables {}
}
