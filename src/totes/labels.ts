import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { isUniqueViolation, WriteRaced } from '../db/errors';
import { conflict, notFound } from '../http/errors';

/**
 * A tote's label holds while its order is on the floor: being picked in the label's wave, or
 * picked and waiting at the pack station. Packing (or cancelling, or releasing the wave) frees it.
 */
const LIVE = sql<boolean>`(o.status = 'PICKED' OR (o.status = 'IN_PICKING' AND v.status = 'PICKING'))`;

/** The label's row with its order, wave and tote, and whether it holds. */
const LABELLED = sql`
  tote_labels t
  JOIN orders o ON o.tenant_id = t.tenant_id AND o.id = t.order_id
  JOIN waves v ON v.tenant_id = t.tenant_id AND v.id = t.wave_id
  JOIN wave_orders w ON w.tenant_id = t.tenant_id AND w.wave_id = t.wave_id AND w.order_id = t.order_id`;

/**
 * Binds `label` to the wave's first tote without one, and answers which. 409 when the label is on
 * an order still on the floor (saying which), or when every tote of the wave has its label.
 */
export async function bindToteLabel(tx: Tx, tenantId: string, waveId: string, label: string): Promise<{ tote: number; events: [] }> {
  // One bind of a wave at a time: two scans at once label two totes, not one tote twice.
  const wave = await tx.selectFrom('waves').select('status').where('tenant_id', '=', tenantId).where('id', '=', waveId).forUpdate().executeTakeFirst();
  if (!wave) throw notFound(`Wave ${waveId}`);
  if (wave.status !== 'PICKING') throw conflict(`Wave ${waveId} is ${wave.status}; only a PICKING wave's totes are labelled`);

  const { rows: holders } = await sql<{ order_number: string; tote: number; same_wave: boolean; live: boolean }>`
    SELECT o.order_number, w.tote, t.wave_id = ${waveId} AS same_wave, ${LIVE} AS live
    FROM ${LABELLED}
    WHERE t.tenant_id = ${tenantId} AND t.label = ${label}
    FOR UPDATE OF t`.execute(tx);
  const holder = holders[0];
  if (holder?.live) {
    const where = holder.same_wave ? `tote ${holder.tote} of this wave` : `tote ${holder.tote} of another wave`;
    throw conflict(`Label ${label} is already on ${where} (order ${holder.order_number}, not packed yet): use another label`);
  }

  const next = await tx
    .selectFrom('wave_orders as w')
    .innerJoin('orders as o', (join) => join.onRef('o.tenant_id', '=', 'w.tenant_id').onRef('o.id', '=', 'w.order_id'))
    .select(['w.order_id', 'w.tote'])
    .where('w.tenant_id', '=', tenantId)
    .where('w.wave_id', '=', waveId)
    .where('o.status', '=', 'IN_PICKING')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('tote_labels as t').select('t.label').where('t.tenant_id', '=', tenantId).where('t.wave_id', '=', waveId).whereRef('t.order_id', '=', 'w.order_id'))),
    )
    .orderBy('w.tote')
    .executeTakeFirst();
  if (!next) throw conflict(`Every tote of wave ${waveId} has its label`);

  if (holder) await tx.deleteFrom('tote_labels').where('tenant_id', '=', tenantId).where('label', '=', label).execute();
  try {
    await tx.insertInto('tote_labels').values({ tenant_id: tenantId, label, wave_id: waveId, order_id: next.order_id }).execute();
  } catch (error) {
    // Another wave took the label meanwhile: run again, and refuse it then.
    if (isUniqueViolation(error, 'tote_labels_pkey')) throw new WriteRaced(error);
    throw error;
  }
  return { tote: next.tote, events: [] };
}

/** The labels of the given waves' totes, by wave. */
export async function labelsOfWaves(db: Executor, tenantId: string, waveIds: string[]): Promise<Map<string, { tote: number; label: string }[]>> {
  const byWave = new Map<string, { tote: number; label: string }[]>(waveIds.map((id) => [id, []]));
  if (waveIds.length === 0) return byWave;
  const rows = await db
    .selectFrom('tote_labels as t')
    .innerJoin('wave_orders as w', (join) =>
      join.onRef('w.tenant_id', '=', 't.tenant_id').onRef('w.wave_id', '=', 't.wave_id').onRef('w.order_id', '=', 't.order_id'),
    )
    .select(['t.wave_id', 't.label', 'w.tote'])
    .where('t.tenant_id', '=', tenantId)
    .where('t.wave_id', '=', sql<string>`ANY (${waveIds}::uuid[])`)
    .orderBy('w.tote')
    .execute();
  for (const row of rows) byWave.get(row.wave_id)?.push({ tote: row.tote, label: row.label });
  return byWave;
}

/** The order whose tote holds `label` now, if any. */
export async function orderIdByToteLabel(db: Executor, tenantId: string, label: string): Promise<string | undefined> {
  const { rows } = await sql<{ order_id: string }>`
    SELECT t.order_id FROM ${LABELLED}
    WHERE t.tenant_id = ${tenantId} AND t.label = ${label} AND ${LIVE}`.execute(db);
  return rows[0]?.order_id;
}

/** The tote an order was last picked into, and its label while that holds; null for an order never in a wave. */
export async function toteOfOrder(db: Executor, tenantId: string, orderId: string): Promise<{ number: number; label: string | null } | null> {
  const { rows } = await sql<{ tote: number; label: string | null }>`
    SELECT w.tote, CASE WHEN ${LIVE} THEN t.label END AS label
    FROM wave_orders w
    JOIN waves v ON v.tenant_id = w.tenant_id AND v.id = w.wave_id
    JOIN orders o ON o.tenant_id = w.tenant_id AND o.id = w.order_id
    LEFT JOIN tote_labels t ON t.tenant_id = w.tenant_id AND t.wave_id = w.wave_id AND t.order_id = w.order_id
    WHERE w.tenant_id = ${tenantId} AND w.order_id = ${orderId}
    ORDER BY v.created_at DESC, v.id DESC
    LIMIT 1`.execute(db);
  const row = rows[0];
  return row ? { number: row.tote, label: row.label } : null;
}
