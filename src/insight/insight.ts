import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db';
import { findLayout } from '../floor/layout-store';
import { listLocations } from '../floor/locations';
import type { Period } from '../http/period';
import type { Bucket, Charts, HeatMap } from './schemas';

/*
 * The supervisor's insight (docs/console.md, Insight): where the picks happen and how the work
 * flows, counted from what the service records anyway: orders' own timestamps, the PACKED status
 * events, waves and their recorded picks. Both the warehouse API and the console answer from here.
 */

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest period each read covers: it bounds the rows a request reads and the points a chart draws. */
export const MAX_PERIOD_DAYS = { hour: 7, day: 92, heatMap: 92 } as const;
/** Short picks recorded without a reason (the warehouse API does not ask for one). */
export const NO_REASON = 'NO_REASON';

/** The start of every bucket the period touches, in UTC, oldest first. */
export function bucketStarts({ from, to }: Period, bucket: Bucket): Date[] {
  const width = bucket === 'hour' ? HOUR_MS : DAY_MS;
  const starts: Date[] = [];
  for (let start = Math.floor(from.getTime() / width) * width; start < to.getTime(); start += width) starts.push(new Date(start));
  return starts;
}

const perHour = (count: number, hours: number) => (hours > 0 ? Math.round((count / hours) * 100) / 100 : null);
const perOrder = (distance: number, orders: number) => (orders > 0 ? Math.round((distance / orders) * 100) / 100 : null);

/**
 * The part of a period the rollup (rollup.ts) answers: from its first whole hour (or day) to where
 * the tenant's hours are rolled up (`through`), or to its last whole hour (day) when the rollup
 * reaches past the period's end (a day's row holds the hours rolled so far, so a period reaching
 * `through` takes the row of the day it falls in). The rest, at both ends, is counted from the
 * rows. Empty when nothing inside is rolled.
 */
async function rolledSpan(db: Executor, tenantId: string, { from, to }: Period, widthMs: number): Promise<Period & { through: Date | undefined }> {
  const { rows } = await sql<{ rolled_through: Date }>`SELECT rolled_through FROM insight_rollups WHERE tenant_id = ${tenantId}`.execute(db);
  const through = rows[0]?.rolled_through;
  const start = Math.ceil(from.getTime() / widthMs) * widthMs;
  const end = through === undefined ? start : through <= to ? through.getTime() : Math.floor(to.getTime() / widthMs) * widthMs;
  return start < end ? { from: new Date(start), to: new Date(end), through } : { from: to, to, through };
}

/**
 * The days of a rolled span whose per-day rows it may sum instead of their hours': whole days
 * inside it, and the day the rollup stopped in when the span reaches that far (its rows hold the
 * hours rolled so far). Empty, at the span's start, when there are none.
 */
function rolledDays(rolled: Period & { through: Date | undefined }): Period {
  const start = Math.ceil(rolled.from.getTime() / DAY_MS) * DAY_MS;
  const end = rolled.to.getTime() === rolled.through?.getTime() ? rolled.to.getTime() : Math.floor(rolled.to.getTime() / DAY_MS) * DAY_MS;
  return start < end ? { from: new Date(start), to: new Date(end) } : { from: rolled.from, to: rolled.from };
}

/**
 * `select` (a statement selecting rows by a time range) for the two ends of the period outside its
 * rolled span, as one UNION ALL: each a plain range, which its index answers alone (an OR of the
 * two would make PostgreSQL visit the table's rows).
 */
const unrolled = ({ from, to }: Period, rolled: Period, select: (range: Period) => RawBuilder<unknown>) =>
  sql`${select({ from, to: rolled.from })} UNION ALL ${select({ from: rolled.to, to })}`;

/**
 * The picks the rollup does not hold: recorded in the period outside its rolled span, and inside
 * it, those of the waves left out while PICKING.
 */
const unrolledPicks = (tenantId: string, period: Period, rolled: Period) => sql`(
  ${unrolled(period, rolled, (range) => sql`
    SELECT wave_id, picked_at, location_code, quantity, picked_quantity, reason FROM wave_lines
    WHERE tenant_id = ${tenantId} AND picked_at >= ${range.from} AND picked_at < ${range.to}
  `)}
  UNION ALL
  SELECT l.wave_id, l.picked_at, l.location_code, l.quantity, l.picked_quantity, l.reason
  FROM insight_open_waves o JOIN wave_lines l ON l.tenant_id = o.tenant_id AND l.wave_id = o.wave_id
  WHERE o.tenant_id = ${tenantId} AND l.picked_at >= ${rolled.from} AND l.picked_at < ${rolled.to}
)`;

/** Picks and units per placed location in the period; picks elsewhere (unplaced lines, locations since removed) counted apart. */
export async function loadHeatMap(db: Executor, tenantId: string, period: Period): Promise<HeatMap> {
  const { from, to } = period;
  const rolled = await rolledSpan(db, tenantId, period, DAY_MS);
  const [layout, { locations }, picks] = await Promise.all([
    findLayout(db, tenantId),
    listLocations(db, tenantId),
    sql<{ location_code: string | null; picks: number; units: string }>`
      SELECT location_code, sum(picks)::int AS picks, coalesce(sum(units), 0) AS units
      FROM (
        SELECT location_code, picks, units FROM insight_location_days WHERE tenant_id = ${tenantId} AND day >= ${rolled.from} AND day < ${rolled.to}
        UNION ALL
        SELECT location_code, count(*), sum(picked_quantity) FROM ${unrolledPicks(tenantId, period, rolled)} AS l GROUP BY 1
      ) AS counted
      GROUP BY location_code
    `.execute(db),
  ]);
  const byCode = new Map(picks.rows.map((row) => [row.location_code, row]));
  const placed = locations
    .map(({ code, aisle, position }) => {
      const row = byCode.get(code);
      byCode.delete(code);
      return { code, aisle, position, picks: row?.picks ?? 0, units: Number(row?.units ?? 0) };
    })
    .sort((a, b) => b.picks - a.picks || a.code.localeCompare(b.code));
  const elsewhere = [...byCode.values()];
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    layout: layout ?? null,
    locations: placed,
    unplaced: { picks: elsewhere.reduce((sum, row) => sum + row.picks, 0), units: elsewhere.reduce((sum, row) => sum + Number(row.units), 0) },
  };
}

/** One count of insight_hours per bucket: the rolled hours', plus what `live` counts per hour (columns hour, n) outside them. */
function hourCountPerBucket(db: Executor, tenantId: string, column: 'received' | 'picked' | 'packed' | 'dispatched', rolled: Period, bucket: Bucket, live: RawBuilder<unknown>) {
  return sql<{ start: Date; n: number }>`
    SELECT date_trunc(${bucket}, hour, 'UTC') AS start, sum(n)::int AS n
    FROM (
      SELECT hour, ${sql.ref(column)} AS n FROM insight_hours WHERE tenant_id = ${tenantId} AND hour >= ${rolled.from} AND hour < ${rolled.to}
      UNION ALL
      ${live}
    ) AS counted
    GROUP BY 1
  `.execute(db);
}

/** Orders counted per bucket by one timestamp column of orders. */
function ordersPerBucket(db: Executor, tenantId: string, series: 'received' | 'picked' | 'dispatched', period: Period, rolled: Period, bucket: Bucket) {
  const column = sql.ref({ received: 'created_at', picked: 'picked_at', dispatched: 'dispatched_at' }[series]);
  return hourCountPerBucket(db, tenantId, series, rolled, bucket, unrolled(period, rolled, (range) => sql`
    SELECT date_trunc('hour', ${column}, 'UTC'), count(*) FROM orders WHERE tenant_id = ${tenantId} AND ${column} >= ${range.from} AND ${column} < ${range.to} GROUP BY 1
  `));
}

/** The charts of the period, one point per bucket. */
export async function loadCharts(db: Executor, tenantId: string, period: Period, bucket: Bucket): Promise<Charts> {
  const { from, to } = period;
  const rolled = await rolledSpan(db, tenantId, period, HOUR_MS);
  // By the hour, every rolled hour is read from its row.
  const days = bucket === 'day' ? rolledDays(rolled) : { from: rolled.from, to: rolled.from };
  const picksNotRolled = unrolledPicks(tenantId, period, rolled);
  const [received, picked, dispatched, packed, picks, walks, shorts] = await Promise.all([
    ordersPerBucket(db, tenantId, 'received', period, rolled, bucket),
    ordersPerBucket(db, tenantId, 'picked', period, rolled, bucket),
    ordersPerBucket(db, tenantId, 'dispatched', period, rolled, bucket),
    // An order's move to PACKED leaves no timestamp on the order: its status event is the record.
    hourCountPerBucket(db, tenantId, 'packed', rolled, bucket, unrolled(period, rolled, (range) => sql`
      SELECT date_trunc('hour', occurred_at, 'UTC'), count(*) FROM events
      WHERE tenant_id = ${tenantId} AND event = 'order.status_changed' AND data->>'status' = 'PACKED' AND occurred_at >= ${range.from} AND occurred_at < ${range.to}
      GROUP BY 1
    `)),
    // Per bucket and picker: picks, units, and the clock hours in which the picker recorded any.
    // By the day, whole rolled days come from their day rows, the other rolled hours from their
    // hour rows. The picks not rolled up are summed per wave and hour before they meet their wave
    // (a few rows per wave instead of one per pick), then per hour and picker: such an hour counts
    // unless the rollup already counts it (a wave left out while PICKING, picking in a rolled hour).
    sql<{ start: Date; picker_id: string; name: string; lines: number; units: string; hours: number }>`
      SELECT b.start, b.picker_id, u.name, b.lines, b.units, b.hours
      FROM (
        SELECT date_trunc(${bucket}, start, 'UTC') AS start, picker_id, sum(lines)::int AS lines, sum(units) AS units, sum(hours)::int AS hours
        FROM (
          SELECT day AS start, picker_id, lines, units, hours FROM insight_picker_days
          WHERE tenant_id = ${tenantId} AND day >= ${days.from} AND day < ${days.to}
          UNION ALL
          ${unrolled(rolled, days, (range) => sql`
            SELECT hour, picker_id, lines, units, 1 FROM insight_picker_hours WHERE tenant_id = ${tenantId} AND hour >= ${range.from} AND hour < ${range.to}
          `)}
          UNION ALL
          SELECT p.hour, w.picker_id, sum(p.lines), sum(p.units),
            CASE WHEN p.hour >= ${rolled.from} AND p.hour < ${rolled.to} AND EXISTS (
              SELECT FROM insight_picker_hours r WHERE r.tenant_id = ${tenantId} AND r.hour = p.hour AND r.picker_id = w.picker_id
            ) THEN 0 ELSE 1 END
          FROM (
            SELECT wave_id, date_trunc('hour', picked_at, 'UTC') AS hour, count(*) AS lines, sum(picked_quantity) AS units
            FROM ${picksNotRolled} AS l
            GROUP BY 1, 2
          ) AS p
          JOIN waves w ON w.tenant_id = ${tenantId} AND w.id = p.wave_id
          WHERE w.picker_id IS NOT NULL
          GROUP BY p.hour, w.picker_id
        ) AS picks
        GROUP BY 1, 2
      ) AS b
      JOIN staff_users u ON u.tenant_id = ${tenantId} AND u.id = b.picker_id
    `.execute(db),
    sql<{ start: Date; waves: number; orders: number; distance: string; s_shape: string }>`
      SELECT date_trunc(${bucket}, hour, 'UTC') AS start, sum(waves)::int AS waves, sum(orders)::int AS orders, sum(distance) AS distance, sum(s_shape) AS s_shape
      FROM (
        SELECT hour, waves, orders, distance, s_shape FROM insight_hours
        WHERE tenant_id = ${tenantId} AND hour >= ${rolled.from} AND hour < ${rolled.to} AND waves > 0
        UNION ALL
        SELECT date_trunc('hour', w.created_at, 'UTC'), 1, o.n, w.distance, w.s_shape_distance
        FROM (
          ${unrolled(period, rolled, (range) => sql`
            SELECT id, created_at, distance, s_shape_distance FROM waves
            WHERE tenant_id = ${tenantId} AND status = 'COMPLETED' AND created_at >= ${range.from} AND created_at < ${range.to}
          `)}
          UNION ALL
          SELECT w.id, w.created_at, w.distance, w.s_shape_distance
          FROM insight_open_waves ow JOIN waves w ON w.tenant_id = ow.tenant_id AND w.id = ow.wave_id
          WHERE ow.tenant_id = ${tenantId} AND w.status = 'COMPLETED' AND w.created_at >= ${rolled.from} AND w.created_at < ${rolled.to}
        ) AS w
        CROSS JOIN LATERAL (SELECT count(*) AS n FROM wave_orders wo WHERE wo.tenant_id = ${tenantId} AND wo.wave_id = w.id) AS o
      ) AS counted
      GROUP BY 1
    `.execute(db),
    sql<{ start: Date; reason: string; n: number }>`
      SELECT date_trunc(${bucket}, hour, 'UTC') AS start, coalesce(reason, ${NO_REASON}) AS reason, sum(n)::int AS n
      FROM (
        SELECT hour, reason, picks AS n FROM insight_short_picks WHERE tenant_id = ${tenantId} AND hour >= ${rolled.from} AND hour < ${rolled.to}
        UNION ALL
        SELECT date_trunc('hour', picked_at, 'UTC'), reason, count(*) FROM ${picksNotRolled} AS l WHERE picked_quantity < quantity GROUP BY 1, 2
      ) AS counted
      GROUP BY 1, 2
    `.execute(db),
  ]);

  const points = new Map(
    bucketStarts(period, bucket).map((start) => [
      start.getTime(),
      { start: start.toISOString(), received: 0, picked: 0, packed: 0, dispatched: 0, linesPicked: 0, unitsPicked: 0, pickerHours: 0, waves: 0, orders: 0, distance: 0, sShape: 0, shortPicks: {} as Record<string, number> },
    ]),
  );
  const at = (start: Date) => points.get(new Date(start).getTime())!;
  for (const row of received.rows) at(row.start).received = row.n;
  for (const row of picked.rows) at(row.start).picked = row.n;
  for (const row of packed.rows) at(row.start).packed = row.n;
  for (const row of dispatched.rows) at(row.start).dispatched = row.n;
  const pickers = new Map<string, { id: string; name: string; linesPicked: number; unitsPicked: number; pickerHours: number }>();
  for (const row of picks.rows) {
    const point = at(row.start);
    point.linesPicked += row.lines;
    point.unitsPicked += Number(row.units);
    point.pickerHours += row.hours;
    const picker = pickers.get(row.picker_id) ?? { id: row.picker_id, name: row.name, linesPicked: 0, unitsPicked: 0, pickerHours: 0 };
    picker.linesPicked += row.lines;
    picker.unitsPicked += Number(row.units);
    picker.pickerHours += row.hours;
    pickers.set(row.picker_id, picker);
  }
  for (const row of walks.rows) Object.assign(at(row.start), { waves: row.waves, orders: row.orders, distance: Number(row.distance), sShape: Number(row.s_shape) });
  const reasonTotals = new Map<string, number>();
  for (const row of shorts.rows) {
    at(row.start).shortPicks[row.reason] = row.n;
    reasonTotals.set(row.reason, (reasonTotals.get(row.reason) ?? 0) + row.n);
  }

  return {
    from: from.toISOString(),
    to: to.toISOString(),
    bucket,
    points: [...points.values()].map(({ waves, orders, distance, sShape, ...point }) => ({
      ...point,
      linesPerPickerHour: perHour(point.linesPicked, point.pickerHours),
      unitsPerPickerHour: perHour(point.unitsPicked, point.pickerHours),
      wavesCompleted: waves,
      walkPerOrder: perOrder(distance, orders),
      sShapeWalkPerOrder: perOrder(sShape, orders),
    })),
    shortReasons: [...reasonTotals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([reason]) => reason),
    pickers: [...pickers.values()]
      .map((picker) => ({ ...picker, linesPerPickerHour: perHour(picker.linesPicked, picker.pickerHours) }))
      .sort((a, b) => (b.linesPerPickerHour ?? 0) - (a.linesPerPickerHour ?? 0) || a.name.localeCompare(b.name)),
  };
}
