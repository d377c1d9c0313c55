import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor } from '../db';
import { inTransaction } from '../db/transaction';

/*
 * The insight's rollup (docs/architecture.md, "Insight: closed hours rolled up, a live tail"): the
 * housekeeping loop counts each closed hour once into small per-hour tables (per day too for
 * the pickers, per day only for locations), and the reads (insight.ts) sum those and count only what is not rolled yet from the rows.
 * The order and picking paths write nothing more.
 *
 * An hour is closed when no transaction can still write a row stamped inside it. Every timestamp
 * the reads count is the database's clock at or after its transaction's start, so the watermark is
 * the start of the oldest transaction still open, and never later than a few minutes ago (for
 * sessions of other roles, whose start pg_stat_activity hides). It is read before the chunk's
 * snapshot is taken: a transaction that started before it was either listed, or committed by then.
 *
 * A wave's picks and walk change until it closes (re-recorded picks, another picker, COMPLETED):
 * a wave still PICKING when an hour of its is rolled is left out and listed in insight_open_waves;
 * once it is COMPLETED or RELEASED, a later pass adds what it left out.
 */

/** Hours per transaction: an install with years of history catches up a day at a time, never holding a long lock. */
const CHUNK_HOURS = 24;
const HOUR_MS = 60 * 60_000;
const PAUSE_BETWEEN_CHUNKS_MS = 20;
/** The oldest an hour's writes may be still uncommitted when pg_stat_activity cannot tell (another role's session). */
const ROLLUP_MARGIN_MINUTES = 5;

export interface RollupOptions {
  /** The database's clock unless a test moves it on; the open transactions hold the watermark back either way. */
  now?: Date;
  /** Between chunks, so the writes a chunk made wait get the database first. */
  pauseMs?: number;
  /** Ends the pass after the chunk under way. */
  signal?: AbortSignal;
}

/** The end of the last closed hour: see the watermark above. */
async function closedUntil(db: Db, now: Date | undefined): Promise<Date> {
  const { rows } = await sql<{ until: Date }>`
    SELECT date_trunc('hour', least(coalesce(${now ?? null}::timestamptz, now()) - make_interval(mins => ${ROLLUP_MARGIN_MINUTES}), (
      SELECT min(xact_start) FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
    )), 'UTC') AS until
  `.execute(db);
  return rows[0]!.until;
}

/**
 * Adds the picks `picks` selects (columns picker_id, picked_at, location_code, picked_quantity,
 * quantity, reason) to the rolled counts.
 */
async function addPicks(tx: Executor, tenantId: string, picks: RawBuilder<unknown>): Promise<void> {
  await sql`
    INSERT INTO insight_picker_hours AS r (tenant_id, hour, picker_id, lines, units)
    SELECT ${tenantId}, date_trunc('hour', picked_at, 'UTC'), picker_id, count(*), sum(picked_quantity)
    FROM (${picks}) AS p WHERE picker_id IS NOT NULL
    GROUP BY 2, 3
    ON CONFLICT (tenant_id, hour, picker_id) DO UPDATE SET lines = r.lines + excluded.lines, units = r.units + excluded.units
  `.execute(tx);
  // The days those picks fall in, counted again from their hours: a day's picker-hours are its rows above.
  await sql`
    INSERT INTO insight_picker_days AS r (tenant_id, day, picker_id, lines, units, hours)
    SELECT ${tenantId}, d.day, h.picker_id, sum(h.lines), sum(h.units), count(*)
    FROM (SELECT DISTINCT date_trunc('day', picked_at, 'UTC') AS day FROM (${picks}) AS p) AS d
    JOIN insight_picker_hours h ON h.tenant_id = ${tenantId} AND h.hour >= d.day AND h.hour < d.day + interval '24 hours'
    GROUP BY 2, 3
    ON CONFLICT (tenant_id, day, picker_id) DO UPDATE SET lines = excluded.lines, units = excluded.units, hours = excluded.hours
  `.execute(tx);
  await sql`
    INSERT INTO insight_short_picks AS r (tenant_id, hour, reason, picks)
    SELECT ${tenantId}, date_trunc('hour', picked_at, 'UTC'), reason, count(*)
    FROM (${picks}) AS p WHERE picked_quantity < quantity
    GROUP BY 2, 3
    ON CONFLICT ON CONSTRAINT insight_short_picks_key DO UPDATE SET picks = r.picks + excluded.picks
  `.execute(tx);
  await sql`
    INSERT INTO insight_location_days AS r (tenant_id, day, location_code, picks, units)
    SELECT ${tenantId}, date_trunc('day', picked_at, 'UTC'), location_code, count(*), coalesce(sum(picked_quantity), 0)
    FROM (${picks}) AS p
    GROUP BY 2, 3
    ON CONFLICT ON CONSTRAINT insight_location_days_key DO UPDATE SET picks = r.picks + excluded.picks, units = r.units + excluded.units
  `.execute(tx);
}

/** Adds the COMPLETED waves `waves` selects (from waves as w) to the walks of the hours they were made in. */
async function addWalks(tx: Executor, tenantId: string, waves: RawBuilder<unknown>): Promise<void> {
  await sql`
    INSERT INTO insight_hours AS r (tenant_id, hour, waves, orders, distance, s_shape)
    SELECT ${tenantId}, date_trunc('hour', w.created_at, 'UTC'), count(*), sum(o.n), sum(w.distance), sum(w.s_shape_distance)
    FROM (${waves}) AS w
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM wave_orders wo WHERE wo.tenant_id = ${tenantId} AND wo.wave_id = w.id) AS o
    WHERE w.status = 'COMPLETED'
    GROUP BY 2
    ON CONFLICT (tenant_id, hour) DO UPDATE
    SET waves = r.waves + excluded.waves, orders = r.orders + excluded.orders, distance = r.distance + excluded.distance, s_shape = r.s_shape + excluded.s_shape
  `.execute(tx);
}

const pickColumns = sql`w.picker_id, l.picked_at, l.location_code, l.picked_quantity, l.quantity, l.reason`;

/**
 * Rolls up the tenant's hours from where it stopped, at most CHUNK_HOURS of them, up to `until`,
 * and what the waves left out and closed since left out, in one transaction; answers the hours
 * rolled (0 once caught up). Two passes at once take turns
 * on the tenant's progress row, and the second finds the hours done.
 */
async function rollUpChunk(db: Db, tenantId: string, until: Date): Promise<number> {
  return inTransaction(db, async (tx) => {
    // One snapshot for the whole chunk: a wave closing meanwhile is either open in every statement or closed in every one.
    await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`.execute(tx);
    const { rows } = await sql<{ rolled_through: Date }>`SELECT rolled_through FROM insight_rollups WHERE tenant_id = ${tenantId} FOR UPDATE`.execute(tx);
    const from = rows[0]!.rolled_through;
    const to = new Date(Math.min(from.getTime() + CHUNK_HOURS * HOUR_MS, until.getTime()));

    // Waves left out earlier and closed since: what they left out, before `from`.
    const closed = await sql<{ id: string }>`
      DELETE FROM insight_open_waves o USING waves w
      WHERE o.tenant_id = ${tenantId} AND w.tenant_id = o.tenant_id AND w.id = o.wave_id AND w.status <> 'PICKING'
      RETURNING w.id
    `.execute(tx);
    if (closed.rows.length > 0) {
      const ids = sql.join(closed.rows.map((wave) => sql`${wave.id}::uuid`));
      await addPicks(tx, tenantId, sql`
        SELECT ${pickColumns} FROM waves w JOIN wave_lines l ON l.tenant_id = w.tenant_id AND l.wave_id = w.id
        WHERE w.tenant_id = ${tenantId} AND w.id IN (${ids}) AND l.picked_at < ${from}
      `);
      await addWalks(tx, tenantId, sql`SELECT * FROM waves w WHERE w.tenant_id = ${tenantId} AND w.id IN (${ids}) AND w.created_at < ${from}`);
    }

    if (to <= from) return 0;
    // The chunk's hours: orders, PACKED events, and the picks and walks of closed waves.
    await sql`
      INSERT INTO insight_hours AS r (tenant_id, hour, received, picked, packed, dispatched)
      SELECT ${tenantId}, date_trunc('hour', at, 'UTC'), count(*) FILTER (WHERE series = 'received'), count(*) FILTER (WHERE series = 'picked'),
        count(*) FILTER (WHERE series = 'packed'), count(*) FILTER (WHERE series = 'dispatched')
      FROM (
        SELECT 'received' AS series, created_at AS at FROM orders WHERE tenant_id = ${tenantId} AND created_at >= ${from} AND created_at < ${to}
        UNION ALL
        SELECT 'picked', picked_at FROM orders WHERE tenant_id = ${tenantId} AND picked_at >= ${from} AND picked_at < ${to}
        UNION ALL
        SELECT 'dispatched', dispatched_at FROM orders WHERE tenant_id = ${tenantId} AND dispatched_at >= ${from} AND dispatched_at < ${to}
        UNION ALL
        SELECT 'packed', occurred_at FROM events
        WHERE tenant_id = ${tenantId} AND event = 'order.status_changed' AND data->>'status' = 'PACKED' AND occurred_at >= ${from} AND occurred_at < ${to}
      ) AS counted
      GROUP BY 2
      ON CONFLICT (tenant_id, hour) DO UPDATE
      SET received = r.received + excluded.received, picked = r.picked + excluded.picked, packed = r.packed + excluded.packed, dispatched = r.dispatched + excluded.dispatched
    `.execute(tx);
    await addPicks(tx, tenantId, sql`
      SELECT ${pickColumns} FROM wave_lines l JOIN waves w ON w.tenant_id = l.tenant_id AND w.id = l.wave_id
      WHERE l.tenant_id = ${tenantId} AND l.picked_at >= ${from} AND l.picked_at < ${to} AND w.status <> 'PICKING'
    `);
    await addWalks(tx, tenantId, sql`SELECT * FROM waves w WHERE w.tenant_id = ${tenantId} AND w.created_at >= ${from} AND w.created_at < ${to}`);
    await sql`
      INSERT INTO insight_open_waves (tenant_id, wave_id)
      SELECT ${tenantId}, id FROM waves WHERE tenant_id = ${tenantId} AND status = 'PICKING' AND created_at < ${to}
        AND (created_at >= ${from} OR EXISTS (
          SELECT FROM wave_lines l WHERE l.tenant_id = waves.tenant_id AND l.wave_id = waves.id AND l.picked_at >= ${from} AND l.picked_at < ${to}
        ))
      ON CONFLICT DO NOTHING
    `.execute(tx);

    await sql`UPDATE insight_rollups SET rolled_through = ${to} WHERE tenant_id = ${tenantId}`.execute(tx);
    return (to.getTime() - from.getTime()) / HOUR_MS;
  });
}

/**
 * One rollup pass: every tenant's closed hours, chunk by chunk; answers the hours rolled. A tenant
 * seen for the first time starts at the hour of its first order (nothing the reads count is older).
 */
export async function rollUpInsight(db: Db, { now, pauseMs = PAUSE_BETWEEN_CHUNKS_MS, signal }: RollupOptions = {}): Promise<{ hoursRolled: number }> {
  const until = await closedUntil(db, now);
  await sql`
    INSERT INTO insight_rollups (tenant_id, rolled_through)
    SELECT t.id, coalesce((SELECT date_trunc('hour', min(created_at), 'UTC') FROM orders o WHERE o.tenant_id = t.id), ${until})
    FROM tenants t
    ON CONFLICT DO NOTHING
  `.execute(db);
  const tenants = await sql<{ tenant_id: string }>`
    SELECT tenant_id FROM insight_rollups r
    WHERE rolled_through < ${until} OR EXISTS (SELECT FROM insight_open_waves o WHERE o.tenant_id = r.tenant_id)
    ORDER BY tenant_id
  `.execute(db);
  let hoursRolled = 0;
  for (const { tenant_id: tenantId } of tenants.rows) {
    while (!signal?.aborted) {
      const hours = await rollUpChunk(db, tenantId, until);
      hoursRolled += hours;
      if (hours < CHUNK_HOURS) break;
      await sleep(pauseMs);
    }
  }
  return { hoursRolled };
}
