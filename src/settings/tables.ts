import type { Generated } from 'kysely';

export interface SettingsTables {
  warehouse_settings: {
    tenant_id: string;
    tote_labels: boolean;
    confirm_location: boolean;
    pack_on_last_scan: boolean;
    pick_from_reserve: boolean;
    min_shelf_life_days: number;
    updated_at: Generated<Date>;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends SettingsTables {}
}
