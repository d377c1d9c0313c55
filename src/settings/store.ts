import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import type { Settings, SettingsChange } from './schemas';

/** What a warehouse that never changed a setting gets. */
export const DEFAULT_SETTINGS: Settings = { toteLabels: false, confirmLocation: true, packOnLastScan: false, pickFromReserve: false, minShelfLifeDays: 0 };

export async function readSettings(db: Executor, tenantId: string): Promise<Settings> {
  const row = await db
    .selectFrom('warehouse_settings')
    .select(['tote_labels', 'confirm_location', 'pack_on_last_scan', 'pick_from_reserve', 'min_shelf_life_days'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? { toteLabels: row.tote_labels, confirmLocation: row.confirm_location, packOnLastScan: row.pack_on_last_scan, pickFromReserve: row.pick_from_reserve, minShelfLifeDays: row.min_shelf_life_days } : DEFAULT_SETTINGS;
}

/** Changes the settings named in `change` (the others keep their value) and answers them all. */
export async function changeSettings(tx: Tx, tenantId: string, change: SettingsChange): Promise<{ settings: Settings }> {
  const settings = { ...(await readSettings(tx, tenantId)), ...change };
  const row = { tote_labels: settings.toteLabels, confirm_location: settings.confirmLocation, pack_on_last_scan: settings.packOnLastScan, pick_from_reserve: settings.pickFromReserve, min_shelf_life_days: settings.minShelfLifeDays };
  await tx
    .insertInto('warehouse_settings')
    .values({ tenant_id: tenantId, ...row })
    .onConflict((conflict) => conflict.column('tenant_id').doUpdateSet({ ...row, updated_at: sql<Date>`now()` }))
    .execute();
  return { settings };
}
