import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { signedIn } from '../console/helpers';
import { periodAroundNow, pickedDay } from './helpers';

/*
 * The insight reads against a small day made through the APIs: every number is counted here from
 * what the day did, and both APIs answer the same.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const tenant = await ctx.tenant();
const day = await pickedDay(ctx, tenant);
const supervisor = await signedIn(ctx, tenant, 'supervisor');
const period = periodAroundNow();
const query = `from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`;

type Point = { start: string; [series: string]: unknown };
const sum = (points: Point[], series: string) => points.reduce((total, point) => total + (point[series] as number), 0);
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000).toISOString();

describe('the heat map', () => {
  it('counts the picks and units of each placed location, short picks at what was taken', async () => {
    const answer = await day.api.get(`/insight/heat-map?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // Five orders, one line at each location; O1 took 1 of 2 × P1, O4 none of P3.
    expect(answer.body.data.locations).toEqual([
      { code: 'A-1', aisle: 1, position: 1, picks: 5, units: 5 * 2 - 1 },
      { code: 'B-5', aisle: 2, position: 5, picks: 5, units: 5 },
      { code: 'D-9', aisle: 4, position: 9, picks: 5, units: 5 - 1 },
    ]);
    expect(answer.body.data.unplaced).toEqual({ picks: 0, units: 0 });
    expect(answer.body.data.layout).toMatchObject({ aisles: 4, positionsPerAisle: 10 });
  });

  it('counts nothing in a period before the day', async () => {
    const before = { from: new Date(Date.now() - 48 * 3_600_000).toISOString(), to: new Date(Date.now() - 24 * 3_600_000).toISOString() };
    const answer = await day.api.get(`/insight/heat-map?from=${encodeURIComponent(before.from)}&to=${encodeURIComponent(before.to)}`);
    expect(answer.body.data.locations.map((location: { picks: number }) => location.picks)).toEqual([0, 0, 0]);
  });

  it('answers the console the same as the warehouse API', async () => {
    const [warehouse, console] = await Promise.all([day.api.get(`/insight/heat-map?${query}`), supervisor.get(`/insight/heat-map?${query}`)]);
    expect(console.status, JSON.stringify(console.body)).toBe(200);
    expect(console.body.data).toEqual(warehouse.body.data);
  });
});

describe('the charts', () => {
  it('counts orders received, picked, packed and dispatched, one point per hour of the period', async () => {
    const answer = await day.api.get(`/insight/charts?${query}&bucket=hour`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { points } = answer.body.data;
    expect(points.map((point: Point) => point.start)).toEqual([0, 1, 2].map((hours) => hourOf(new Date(Date.parse(period.from) + hours * 3_600_000))));
    expect([sum(points, 'received'), sum(points, 'picked'), sum(points, 'packed'), sum(points, 'dispatched')]).toEqual([5, 5, 2, 1]);
  });

  it("counts each picker's picks, units and picker-hours, and divides them", async () => {
    const { points, pickers } = (await day.api.get(`/insight/charts?${query}&bucket=hour`)).body.data;
    // Picker-hours: the clock hours in which each picker recorded a pick, from the recorded times.
    const lines = await ctx.database.db
      .selectFrom('wave_lines as l')
      .innerJoin('waves as w', (join) => join.onRef('w.tenant_id', '=', 'l.tenant_id').onRef('w.id', '=', 'l.wave_id'))
      .select(['w.picker_id', 'l.picked_at'])
      .where('l.tenant_id', '=', tenant.id)
      .execute();
    const hoursOf = (pickerId: string) => new Set(lines.filter((line) => line.picker_id === pickerId).map((line) => hourOf(new Date(line.picked_at!)))).size;
    const anaHours = hoursOf(day.ana.user.id);
    const benHours = hoursOf(day.ben.user.id);
    expect(pickers).toHaveLength(2);
    const byId = new Map(pickers.map((picker: { id: string }) => [picker.id, picker]));
    expect(byId.get(day.ana.user.id)).toEqual({ id: day.ana.user.id, name: 'A picker', linesPicked: 9, unitsPicked: 3 * 4 - 1, pickerHours: anaHours, linesPerPickerHour: Math.round((9 / anaHours) * 100) / 100 });
    expect(byId.get(day.ben.user.id)).toEqual({ id: day.ben.user.id, name: 'A picker', linesPicked: 6, unitsPicked: 2 * 4 - 1, pickerHours: benHours, linesPerPickerHour: Math.round((6 / benHours) * 100) / 100 });
    expect([sum(points, 'linesPicked'), sum(points, 'unitsPicked'), sum(points, 'pickerHours')]).toEqual([15, 18, anaHours + benHours]);
    for (const point of points as Point[]) {
      const hours = point.pickerHours as number;
      expect(point.linesPerPickerHour).toBe(hours > 0 ? Math.round(((point.linesPicked as number) / hours) * 100) / 100 : null);
    }
  });

  it('walks per order as the waves planned it, against the S-shape walk of the same picks', async () => {
    const { points } = (await day.api.get(`/insight/charts?${query}&bucket=day`)).body.data;
    const waves = await ctx.database.db.selectFrom('waves').select(['id', 'distance', 's_shape_distance', 'created_at']).where('tenant_id', '=', tenant.id).execute();
    expect(waves.map((wave) => Number(wave.distance)).sort()).toEqual(day.waves.map((wave) => wave.distance).sort());
    const orders = { [day.waves[0]!.id]: 3, [day.waves[1]!.id]: 2 };
    for (const point of points as Point[]) {
      const inBucket = waves.filter((wave) => new Date(wave.created_at).toISOString().slice(0, 10) === point.start.slice(0, 10));
      const orderCount = inBucket.reduce((total, wave) => total + orders[wave.id]!, 0);
      const per = (field: 'distance' | 's_shape_distance') => (orderCount > 0 ? Math.round((inBucket.reduce((total, wave) => total + Number(wave[field]), 0) / orderCount) * 100) / 100 : null);
      expect(point).toMatchObject({ wavesCompleted: inBucket.length, walkPerOrder: per('distance'), sShapeWalkPerOrder: per('s_shape_distance') });
    }
    expect(sum(points, 'wavesCompleted')).toBe(2);
  });

  it('counts short picks by reason', async () => {
    const { points, shortReasons } = (await day.api.get(`/insight/charts?${query}&bucket=hour`)).body.data;
    expect([...shortReasons].sort()).toEqual(['damaged', 'not_found']);
    const byReason = (reason: string) => points.reduce((total: number, point: { shortPicks: Record<string, number> }) => total + (point.shortPicks[reason] ?? 0), 0);
    expect([byReason('damaged'), byReason('not_found')]).toEqual([1, 1]);
  });

  it('answers the console the same as the warehouse API', async () => {
    const [warehouse, console] = await Promise.all([day.api.get(`/insight/charts?${query}&bucket=day`), supervisor.get(`/insight/charts?${query}&bucket=day`)]);
    expect(console.status, JSON.stringify(console.body)).toBe(200);
    expect(console.body.data).toEqual(warehouse.body.data);
  });
});
