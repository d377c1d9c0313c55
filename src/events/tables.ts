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
