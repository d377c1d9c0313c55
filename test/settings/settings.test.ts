import { afterAll, describe, expect, it } from 'vitest';
import { send, createTestContext } from '../helpers/context';
import { warehouse } from '../orders/helpers';
import { signedIn } from '../console/helpers';

/*
 * The warehouse's console settings: read and changed through the warehouse API (admin token) or by
 * a supervisor in the console, every role of the console reads them.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const DEFAULTS = { toteLabels: false, confirmLocation: true, packOnLastScan: false, pickFromReserve: false, minShelfLifeDays: 0 };

describe('warehouse settings', () => {
  it('answers the defaults until changed; a change answers them all and keeps the ones left out', async () => {
    const tenant = await ctx.tenant();
    const api = warehouse(ctx, tenant);
    expect((await api.get('/settings')).body.data).toEqual(DEFAULTS);

    const changed = await api.put('/settings', { toteLabels: true, packOnLastScan: true });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toEqual({ toteLabels: true, confirmLocation: true, packOnLastScan: true, pickFromReserve: false, minShelfLifeDays: 0 });
    const again = await api.put('/settings', { confirmLocation: false });
    expect(again.body.data).toEqual({ toteLabels: true, confirmLocation: false, packOnLastScan: true, pickFromReserve: false, minShelfLifeDays: 0 });
    expect((await api.get('/settings')).body.data).toEqual({ toteLabels: true, confirmLocation: false, packOnLastScan: true, pickFromReserve: false, minShelfLifeDays: 0 });
    const reserve = await api.put('/settings', { pickFromReserve: true });
    expect(reserve.body.data).toEqual({ toteLabels: true, confirmLocation: false, packOnLastScan: true, pickFromReserve: true, minShelfLifeDays: 0 });
    expect((await api.get('/settings')).body.data.pickFromReserve).toBe(true);
    const shelfLife = await api.put('/settings', { minShelfLifeDays: 30 });
    expect(shelfLife.body.data).toEqual({ toteLabels: true, confirmLocation: false, packOnLastScan: true, pickFromReserve: true, minShelfLifeDays: 30 });
    expect((await api.get('/settings')).body.data.minShelfLifeDays).toBe(30);
  });

  it.each([
    [{ toteLabels: 'yes' }, 'toteLabels'],
    [{ confirmLocation: 1 }, 'confirmLocation'],
    [{ packOnLastScan: null }, 'packOnLastScan'],
    [{ pickFromReserve: 'on' }, 'pickFromReserve'],
    [{ minShelfLifeDays: -1 }, 'minShelfLifeDays'],
    [{ minShelfLifeDays: 1.5 }, 'minShelfLifeDays'],
    [{ minShelfLifeDays: null }, 'minShelfLifeDays'],
    [{ toteLabels: true, packOnLastscan: true }, 'packOnLastscan'],
  ])('refuses %j with 400 naming %s, and changes nothing', async (body, field) => {
    const tenant = await ctx.tenant();
    const api = warehouse(ctx, tenant);
    const refused = await api.put('/settings', body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.details?.map((detail) => detail.field)).toContain(field);
    expect((await api.get('/settings')).body.data).toEqual(DEFAULTS);
  });

  it('404 for an unknown warehouse; 401 without the admin token', async () => {
    expect((await ctx.admin('GET', '/api/v1/warehouse/tenants/no-such-tenant/settings')).status).toBe(404);
    const tenant = await ctx.tenant();
    for (const method of ['GET', 'PUT'] as const) {
      const response = await send(ctx.app, { method, url: `/api/v1/warehouse/tenants/${tenant.slug}/settings`, payload: { toteLabels: true } });
      expect(response.status).toBe(401);
    }
    // Nor does a tenant's own API key open the warehouse API.
    const response = await send(ctx.app, { method: 'PUT', url: `/api/v1/warehouse/tenants/${tenant.slug}/settings`, headers: { authorization: `Bearer ${tenant.key}` }, payload: { toteLabels: true } });
    expect(response.status).toBe(401);
    expect((await warehouse(ctx, tenant).get('/settings')).body.data).toEqual(DEFAULTS);
  });

  it('in the console, every role reads them and only a supervisor changes them, for its own warehouse only', async () => {
    const tenant = await ctx.tenant();
    const other = await ctx.tenant();
    const picker = await signedIn(ctx, tenant, 'picker');
    const packer = await signedIn(ctx, tenant, 'packer');
    const supervisor = await signedIn(ctx, tenant, 'supervisor');

    for (const client of [picker, packer]) {
      expect((await client.get('/settings')).body.data).toEqual(DEFAULTS);
      const refused = await client.request('PUT', '/settings', { body: { toteLabels: true } });
      expect(refused.status).toBe(403);
    }
    const changed = await supervisor.request('PUT', '/settings', { body: { toteLabels: true } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toEqual({ ...DEFAULTS, toteLabels: true });
    expect((await picker.get('/settings')).body.data).toEqual({ ...DEFAULTS, toteLabels: true });
    expect((await warehouse(ctx, other).get('/settings')).body.data).toEqual(DEFAULTS);

    const foreign = await supervisor.request('PUT', '/settings', { body: { toteLabels: false }, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await picker.get('/settings')).body.data).toEqual({ ...DEFAULTS, toteLabels: true });
  });
});
