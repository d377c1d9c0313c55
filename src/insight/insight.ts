import { sql } from 'kysely';
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

/** Picks and units per placed location in the period; picks elsewhere (unplaced lines, locations since removed) counted apart. */
export async function loadHeatMap(db: Executor, tenantId: string, { from, to }: Period): Promise<HeatMap> {
  const [layout, { locations }, picks] = await Promise.all([
    findLayout(db, tenantId),
    listLocations(db, tenantId),
    sql<{ location_code: string | null; picks: number; units: string }>`
      SELECT location_code, count(*)::int AS picks, coalesce(sum(picked_quantity), 0) AS units
      FROM wave_lines
      WHERE tenant_id = ${tenantId} AND picked_at >= ${from} AND picked_at < ${to}
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

/** Orders counted per bucket by one timestamp column of orders. */
function ordersPerBucket(db: Executor, tenantId: string, column: 'created_at' | 'picked_at' | 'dispatched_at', { from, to }: Period, bucket: Bucket) {
  return sql<{ start: Date; n: number }>`
    SELECT date_trunc(${bucket}, ${sql.ref(column)}, 'UTC') AS start, count(*)::int AS n
    FROM orders
    WHERE tenant_id = ${tenantId} AND ${sql.ref(column)} >= ${from} AND ${sql.ref(column)} < ${to}
    GROUP BY 1
  `.execute(db);
}

/** The charts of the period, one point per bucket. */
export async function loadCharts(db: Executor, tenantId: string, period: Period, bucket: Bucket): Promise<Charts> {
  const { from, to } = period;
  const [received, picked, dispatched, packed, picks, walks, shorts] = await Promise.all([
    ordersPerBucket(db, tenantId, 'created_at', period, bucket),
    ordersPerBucket(db, tenantId, 'picked_at', period, bucket),
    ordersPerBucket(db, tenantId, 'dispatched_at', period, bucket),
    // An order's move to PACKED leaves no timestamp on the order: its status event is the record.
    sql<{ start: Date; n: number }>`
      SELECT date_trunc(${bucket}, occurred_at, 'UTC') AS start, count(*)::int AS n
      FROM events
      WHERE tenant_id = ${tenantId} AND event = 'order.status_changed' AND data->>'status' = 'PACKED'
        AND occurred_at >= ${from} AND occurred_at < ${to}
      GROUP BY 1
    `.execute(db),
    // Per bucket and picker: picks, units, and the clock hours in which the picker recorded any.
    // The picks are summed per wave and hour before they meet their wave: a few rows per wave
    // instead of one per pick.
    sql<{ start: Date; picker_id: string; name: string; lines: number; units: string; hours: number }>`
      SELECT date_trunc(${bucket}, p.hour, 'UTC') AS start, w.picker_id, u.name, sum(p.lines)::int AS lines, sum(p.units) AS units,
        count(DISTINCT p.hour)::int AS hours
      FROM (
        SELECT wave_id, date_trunc('hour', picked_at, 'UTC') AS hour, count(*) AS lines, sum(picked_quantity) AS units
        FROM wave_lines
        WHERE tenant_id = ${tenantId} AND picked_at >= ${from} AND picked_at < ${to}
        GROUP BY 1, 2
      ) AS p
      JOIN waves w ON w.tenant_id = ${tenantId} AND w.id = p.wave_id
      JOIN staff_users u ON u.tenant_id = w.tenant_id AND u.id = w.picker_id
      GROUP BY 1, 2, 3
    `.execute(db),
    sql<{ start: Date; waves: number; orders: number; distance: string; s_shape: string }>`
      SELECT date_trunc(${bucket}, w.created_at, 'UTC') AS start, count(*)::int AS waves, sum(o.n)::int AS orders,
        sum(w.distance) AS distance, sum(w.s_shape_distance) AS s_shape
      FROM waves w
      CROSS JOIN LATERAL (SELECT count(*) AS n FROM wave_orders wo WHERE wo.tenant_id = w.tenant_id AND wo.wave_id = w.id) AS o
      WHERE w.tenant_id = ${tenantId} AND w.status = 'COMPLETED' AND w.created_at >= ${from} AND w.created_at < ${to}
      GROUP BY 1
    `.execute(db),
    sql<{ start: Date; reason: string; n: number }>`
      SELECT date_trunc(${bucket}, picked_at, 'UTC') AS start, coalesce(reason, ${NO_REASON}) AS reason, count(*)::int AS n
      FROM wave_lines
      WHERE tenant_id = ${tenantId} AND picked_at >= ${from} AND picked_at < ${to} AND picked_quantity < quantity
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
