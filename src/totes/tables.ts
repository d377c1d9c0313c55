import type { Generated } from 'kysely';

export interface ToteTables {
  tote_labels: {
    tenant_id: string;
    label: string;
    wave_id: string;
    order_id: string;
    bound_at: Generated<Date>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends ToteTables {}
}
