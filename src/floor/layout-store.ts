import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { LOCK_CLASS, lockInClass } from '../db/locks';
import { ApiError, conflict } from '../http/errors';
import { layoutProblems, type CrossAisle, type Layout } from './plan/layout';

/**
 * Serializes the writes of one tenant's floor description (layout and locations): each replaces a
 * whole set, and two replacements interleaved under READ COMMITTED would each insert into the
 * other's empty set.
 */
export async function lockFloor(tx: Tx, tenantId: string): Promise<void> {
  await lockInClass(tx, LOCK_CLASS.floor, tenantId);
}

/** A layout as stored and answered: its middle cross aisles front to back, [] when there are none. */
export type StoredLayout = Layout & { crossAisles: CrossAisle[] };

export async function findLayout(db: Executor, tenantId: string): Promise<StoredLayout | undefined> {
  const row = await db.selectFrom('floor_layouts').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  return (
    row && {
      aisles: row.aisles,
      positionsPerAisle: row.positions_per_aisle,
      aisleSpacing: Number(row.aisle_spacing),
      positionSpacing: Number(row.position_spacing),
      crossAisleOffset: Number(row.cross_aisle_offset),
      depotAisle: row.depot_aisle,
      crossAisles: row.cross_aisles,
    }
  );
}

/** The tenant's layout; 409 when none is stored, since routes and waves are measured on it. */
export async function requireLayout(db: Executor, tenantId: string): Promise<StoredLayout> {
  const layout = await findLayout(db, tenantId);
  if (!layout) throw conflict('This warehouse has no layout yet; describe it with PUT /layout first');
  return layout;
}

/**
 * Stores the layout (400 naming every unusable field at once). A layout that would leave placed
 * locations off the floor is refused with 409: move those locations first (PUT /locations).
 */
export async function saveLayout(tx: Tx, tenantId: string, sent: Layout): Promise<StoredLayout> {
  const problems = layoutProblems(sent);
  if (problems.length > 0) throw new ApiError('VALIDATION_ERROR', `Invalid layout: ${problems.map((p) => p.message).join('; ')}`, problems);
  // Only their two fields, front to back whatever order they were sent in.
  const crossAisles = (sent.crossAisles ?? []).map(({ afterPosition, width }) => ({ afterPosition, width })).sort((a, b) => a.afterPosition - b.afterPosition);
  const layout = { ...sent, crossAisles };
  await lockFloor(tx, tenantId);
  const outside = await tx
    .selectFrom('warehouse_locations')
    .select(['code', 'aisle', 'position'])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('aisle', '>', layout.aisles), eb('position', '>', layout.positionsPerAisle)]))
    .orderBy('code')
    .limit(5)
    .execute();
  if (outside.length > 0) {
    const listed = outside.map((l) => `${l.code} (aisle ${l.aisle}, position ${l.position})`).join(', ');
    throw conflict(`Locations would be off this layout: ${listed}; place them inside it with PUT /locations first`);
  }
  const row = {
    aisles: layout.aisles,
    positions_per_aisle: layout.positionsPerAisle,
    aisle_spacing: layout.aisleSpacing,
    position_spacing: layout.positionSpacing,
    cross_aisle_offset: layout.crossAisleOffset,
    depot_aisle: layout.depotAisle,
    cross_aisles: JSON.stringify(crossAisles),
  };
  await tx
    .insertInto('floor_layouts')
    .values({ tenant_id: tenantId, ...row })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...row, updated_at: sql<Date>`now()` }))
    .execute();
  return layout;
}
