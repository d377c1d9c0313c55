import type { Generated } from 'kysely';

export type StaffRole = 'picker' | 'packer' | 'supervisor';

export interface StaffTables {
  staff_users: {
    tenant_id: string;
    id: Generated<string>;
    username: string;
    name: string;
    role: StaffRole;
    pin_hash: string;
    disabled_at: Date | null;
    created_at: Generated<Date>;
  };
  staff_sessions: {
    token_hash: string;
    tenant_id: string;
    user_id: string;
    created_at: Generated<Date>;
    idle_expires_at: Date;
    expires_at: Date;
  };
  staff_sign_in_failures: {
    key: string;
    failures: number;
    window_ends_at: Date;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends StaffTables {}
}
