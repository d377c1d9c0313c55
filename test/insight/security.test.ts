import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { ConsoleClient, signedIn } from '../console/helpers';
import { periodAroundNow, pickedDay } from './helpers';

/* Only supervisors read the insight in the console, of their own warehouse; the warehouse API wants its admin token. */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const tenant = await ctx.tenant();
const day = await pickedDay(ctx, tenant);
const period = periodAroundNow();
const query = `from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`;
const paths = [`/insight/heat-map?${query}`, `/insight/charts?${query}&bucket=hour`];

describe('the console', () => {
  it('refuses pickers and packers with 403', async () => {
    const packer = await signedIn(ctx, tenant, 'packer');
    for (const client of [day.ana, packer]) {
      for (const path of paths) {
        const answer = await client.get(path);
        expect(answer.status, path).toBe(403);
        expect(answer.body.error.code).toBe('FORBIDDEN');
      }
    }
  });

  it('answers 401 without a session cookie', async () => {
    const anonymous = new ConsoleClient(ctx, tenant, { id: '', username: '', role: 'supervisor' });
    for (const path of paths) expect((await anonymous.get(path)).status, path).toBe(401);
  });

  it("shows another warehouse's supervisor only their own warehouse's picks", async () => {
    const other = await ctx.tenant();
    const supervisor = await signedIn(ctx, other, 'supervisor');
    const heatMap = await supervisor.get(paths[0]!);
    expect(heatMap.status).toBe(200);
    expect(heatMap.body.data).toMatchObject({ locations: [], unplaced: { picks: 0, units: 0 } });
    const charts = (await supervisor.get(paths[1]!)).body.data as { pickers: unknown[]; points: { received: number; linesPicked: number }[] };
    expect(charts.pickers).toEqual([]);
    expect(charts.points.every((point) => point.received === 0 && point.linesPicked === 0)).toBe(true);
  });
});

describe('the warehouse API', () => {
  it('answers 401 without the admin token', async () => {
    for (const path of paths) {
      const answer = await ctx.app.inject({ method: 'GET', url: `/api/v1/warehouse/tenants/${tenant.slug}${path}` });
      expect(answer.statusCode, path).toBe(401);
    }
  });
});
