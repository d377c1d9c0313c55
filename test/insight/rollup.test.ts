import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { rollUpInsight } from '../../src/insight/rollup';
import type { Charts, HeatMap } from '../../src/insight/schemas';
import { startHousekeeping } from '../../src/housekeeping';
import { createTestContext, usingPostgres } from '../helpers/context';
import { signedIn } from '../console/helpers';
import { item, order, warehouse } from '../orders/helpers';
import { waitFor } from '../helpers/wait';
import { pickedDay } from './helpers';

/*
 * The rollup (src/insight/rollup.ts) against a day made through the APIs and then moved 30 hours
 * back, so that its hours are closed: every read answers what it answered from the rows alone,
 * whichever hours are rolled, and the rolled counts equal the rows counted here.
 */

const HOUR_MS = 3_600_000;
const ctx = await createTestContext();
afterAll(() => ctx.close());
const { db } = ctx.database;

const tenant = await ctx.tenant();
const other = await ctx.tenant();
const day = await pickedDay(ctx, tenant);

// A third picker starts a wave of two more orders and records one pick of it: a wave still
// PICKING when its hours are rolled up.
for (const id of ['O6', 'O7']) {
  const created = await tenant.api.post('/orders', order(id, [item('P1', 2), item('P2', 1)]));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}
const cy = await signedIn(ctx, tenant, 'picker');
const started = await cy.post('/picking/wave');
expect(started.status, JSON.stringify(started.body)).toBe(201);
type Line = { orderExternalId: string; productExternalId: string; quantity: number };
const cysLines: Line[] = started.body.data.stops.flatMap((stop: { lines: Line[] }) => stop.lines);
const record = async (line: Line, quantity = line.quantity) => {
  const recorded = await cy.post('/picking/wave/picks', { orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity, ...(quantity < line.quantity ? { reason: 'damaged' } : {}) });
  expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
};
await record(cysLines[0]!, cysLines[0]!.quantity - 1);

// The other warehouse receives orders too, in the same hours.
for (const id of ['X1', 'X2', 'X3']) expect((await other.api.post('/orders', order(id, [item('P1', 1)]))).status).toBe(201);

/** Moves everything a tenant recorded `hours` back in time, as if it had happened then. */
async function movedBack(tenantId: string, hours: number) {
  const by = sql`make_interval(hours => ${hours})`;
  await sql`UPDATE orders SET created_at = created_at - ${by}, updated_at = updated_at - ${by}, picked_at = picked_at - ${by}, dispatched_at = dispatched_at - ${by} WHERE tenant_id = ${tenantId}`.execute(db);
  await sql`UPDATE waves SET created_at = created_at - ${by}, updated_at = updated_at - ${by} WHERE tenant_id = ${tenantId}`.execute(db);
  await sql`UPDATE wave_lines SET picked_at = picked_at - ${by} WHERE tenant_id = ${tenantId}`.execute(db);
  await sql`UPDATE events SET occurred_at = occurred_at - ${by} WHERE tenant_id = ${tenantId}`.execute(db);
}
await movedBack(tenant.id, 30);
await movedBack(other.id, 30);
// And today's hours, not closed yet: one more order received.
expect((await tenant.api.post('/orders', order('O8', [item('P1', 1)]))).status).toBe(201);

// From 17 minutes past an hour 32 hours ago to the hour after now: whole hours rolled, both ends from the rows.
const from = new Date(Math.floor((Date.now() - 32 * HOUR_MS) / HOUR_MS) * HOUR_MS + 17 * 60_000);
const to = new Date(Date.now() + HOUR_MS);
const periodQuery = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
// And one ending mid-hour in the rolled hours, 28 hours ago: the rollup reaches past its end.
const pastQuery = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(new Date(Math.floor((Date.now() - 28 * HOUR_MS) / HOUR_MS) * HOUR_MS + 41 * 60_000).toISOString())}`;

/** Every read of the Insight screen over the period. */
async function reads(query = periodQuery) {
  const answers = await Promise.all(
    ['/insight/heat-map', '/insight/charts?bucket=hour&', '/insight/charts?bucket=day&'].map((path) =>
      day.api.get(`${path}${path.endsWith('&') ? '' : '?'}${query}`),
    ),
  );
  for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const [heatMap, byHour, byDay] = answers.map((answer) => (answer.body as { data: unknown }).data);
  return [heatMap as HeatMap, byHour as Charts, byDay as Charts] as const;
}

/** What the rollup holds, table by table, in a fixed order. */
async function rollupRows() {
  const tables = ['insight_rollups', 'insight_hours', 'insight_picker_hours', 'insight_picker_days', 'insight_short_picks', 'insight_location_days', 'insight_open_waves'];
  return Promise.all(tables.map(async (table) => (await sql`SELECT * FROM ${sql.table(table)} AS r ORDER BY r::text`.execute(db)).rows));
}

const rolledThrough = async (tenantId: string) =>
  (await sql<{ rolled_through: Date }>`SELECT rolled_through FROM insight_rollups WHERE tenant_id = ${tenantId}`.execute(db)).rows[0]?.rolled_through;

const total = (points: Charts['points'], series: 'received' | 'linesPicked') => points.reduce((sum, point) => sum + point[series], 0);

describe('the rollup', () => {
  const fromRowsAlone = reads();
  const pastFromRowsAlone = reads(pastQuery);
  let firstPass: Awaited<ReturnType<typeof reads>>;

  it('answers every read of a period spanning rolled and live hours as the rows alone do', async () => {
    const before = await fromRowsAlone;
    const { hoursRolled } = await rollUpInsight(db, { pauseMs: 0 });
    expect(hoursRolled).toBeGreaterThanOrEqual(29);
    expect((await rolledThrough(tenant.id))!.getTime()).toBeGreaterThan(from.getTime() + 28 * HOUR_MS);
    firstPass = await reads();
    expect(firstPass).toEqual(before);
    expect(await reads(pastQuery)).toEqual(await pastFromRowsAlone);

    // And the counts are the rows': orders received in the period (the day's seven, O8 today), picks recorded.
    const [heatMap, byHour] = firstPass;
    const received = await db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('tenant_id', '=', tenant.id).where('created_at', '>=', from).where('created_at', '<', to).executeTakeFirstOrThrow();
    expect(total(byHour.points, 'received')).toBe(Number(received.n));
    expect(Number(received.n)).toBe(8);
    const picks = await db.selectFrom('wave_lines').select((eb) => eb.fn.countAll<string>().as('n')).where('tenant_id', '=', tenant.id).where('picked_at', 'is not', null).executeTakeFirstOrThrow();
    expect(heatMap.locations.reduce((sum, location) => sum + location.picks, 0) + heatMap.unplaced.picks).toBe(Number(picks.n));
  });

  it('leaves out the picks of a wave still PICKING, and counts them all once it is completed', async () => {
    const open = await sql<{ wave_id: string }>`SELECT wave_id FROM insight_open_waves WHERE tenant_id = ${tenant.id}`.execute(db);
    expect(open.rows).toEqual([{ wave_id: started.body.data.id }]);
    for (const line of cysLines.slice(1)) await record(line);
    expect((await cy.post('/picking/wave/complete')).status).toBe(200);

    const live = await reads();
    // Cy's first pick, 30 hours ago and one short: in the rolled hours, still counted.
    const [, byHour] = live;
    expect(total(byHour.points, 'linesPicked')).toBe(15 + cysLines.length);
    const damaged = byHour.points.reduce((sum, point) => sum + (point.shortPicks.damaged ?? 0), 0);
    expect(damaged).toBe(2);
    await rollUpInsight(db, { pauseMs: 0 });
    expect((await sql`SELECT wave_id FROM insight_open_waves WHERE tenant_id = ${tenant.id}`.execute(db)).rows).toEqual([]);
    expect(await reads()).toEqual(live);
  });

  it('changes nothing when run again', async () => {
    const held = await rollupRows();
    const answers = await reads();
    const again = await rollUpInsight(db, { pauseMs: 0 });
    expect(again.hoursRolled).toBe(0);
    expect(await rollupRows()).toEqual(held);
    expect(await reads()).toEqual(answers);
  });

  it("never shows a tenant another tenant's rows", async () => {
    const received = async (tenantId: string) =>
      Number((await sql<{ n: string }>`SELECT coalesce(sum(received), 0) AS n FROM insight_hours WHERE tenant_id = ${tenantId}`.execute(db)).rows[0]!.n);
    // Each tenant's rolled hours hold its own orders: the other warehouse's three, this one's seven of the moved day.
    expect(await received(other.id)).toBe(3);
    expect(await received(tenant.id)).toBe(7);
    const theirs = await warehouse(ctx, other).get(`/insight/charts?bucket=day&${periodQuery}`);
    const charts = (theirs.body as { data: Charts }).data;
    expect(total(charts.points, 'received')).toBe(3);
    expect(total(charts.points, 'linesPicked')).toBe(0);
    expect(charts.pickers).toEqual([]);
  });
});

describe('the housekeeping loop', () => {
  it('rolls up closed hours shortly after the housekeeping a delivering process runs starts', async () => {
    const fresh = await ctx.tenant();
    expect((await fresh.api.post('/orders', order('F1', [item('P1', 1)]))).status).toBe(201);
    await movedBack(fresh.id, 3);
    const housekeeping = startHousekeeping({ db: ctx.database.db, config: ctx.config, log: pino({ level: 'silent' }), firstPassDelayMs: 50 });
    try {
      await waitFor('the first rollup pass', async () => Number((await rolledThrough(fresh.id))?.getTime()) > Date.now() - 2 * HOUR_MS);
      const counted = await sql<{ n: string }>`SELECT sum(received) AS n FROM insight_hours WHERE tenant_id = ${fresh.id}`.execute(db);
      expect(Number(counted.rows[0]!.n)).toBe(1);
    } finally {
      await housekeeping.stop();
    }
  });
});

describe('late writes', () => {
  it.runIf(usingPostgres)('counts a write whose transaction was open when its hour ended, once it commits', async () => {
    const late = await ctx.tenant();
    await db.connection().execute(async (connection) => {
      await sql`BEGIN`.execute(connection);
      const { rows } = await sql<{ began: Date }>`SELECT now() AS began`.execute(connection);
      const began = rows[0]!.began;
      // Two hours on, the hour this transaction began in has ended; the transaction is still open.
      const later = new Date(began.getTime() + 2 * HOUR_MS);
      await rollUpInsight(db, { now: later, pauseMs: 0 });
      expect((await rolledThrough(late.id))!.getTime()).toBeLessThanOrEqual(began.getTime());
      await sql`INSERT INTO orders (tenant_id, external_id, order_number, status) VALUES (${late.id}, 'LATE-1', 'LATE-1', 'PENDING')`.execute(connection);
      await sql`COMMIT`.execute(connection);
      await rollUpInsight(db, { now: later, pauseMs: 0 });
      expect((await rolledThrough(late.id))!.getTime()).toBeGreaterThan(began.getTime());
      const hour = new Date(Math.floor(began.getTime() / HOUR_MS) * HOUR_MS);
      const counted = await sql<{ received: number }>`SELECT received FROM insight_hours WHERE tenant_id = ${late.id} AND hour = ${hour}`.execute(db);
      expect(counted.rows).toEqual([{ received: 1 }]);
    });
  });
});
