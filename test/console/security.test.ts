import { afterAll, describe, expect, it } from 'vitest';
import type { Refusal } from '../helpers/answers';
import { createTestContext, type TestResponse } from '../helpers/context';
import { ConsoleClient, floorWithOrders, PIN, signedIn } from './helpers';

/* Who may do what in the console: roles on the server, one tenant per session, sessions that end, Origin. */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const expectCode = (response: TestResponse<Refusal>, status: number, code: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
};

describe('roles', () => {
  it("refuses a picker the supervisor's and the packer's routes with 403, and changes nothing", async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'picker');
    expectCode(await picker.get('/board'), 403, 'FORBIDDEN');
    expectCode(await picker.get('/floor'), 403, 'FORBIDDEN');
    expectCode(await picker.get('/waves'), 403, 'FORBIDDEN');
    expectCode(await picker.post('/waves', {}), 403, 'FORBIDDEN');
    expectCode(await picker.post('/products/P1/stock', { stock: 0 }), 403, 'FORBIDDEN');
    expectCode(await picker.get('/packing/orders/O1'), 403, 'FORBIDDEN');
    expectCode(await picker.post('/packing/orders/O1/pack'), 403, 'FORBIDDEN');
    expect((await tenant.api.get('/products/P1')).body.data.stock).toBe(50);
    expect((await tenant.api.get('/orders/O1')).body.data.status).toBe('PENDING');
  });

  it("refuses a packer the picker's routes with 403, and starts no wave", async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const packer = await signedIn(ctx, tenant, 'packer');
    expectCode(await packer.get('/picking/wave'), 403, 'FORBIDDEN');
    expectCode(await packer.post('/picking/wave'), 403, 'FORBIDDEN');
    expectCode(await packer.get('/board'), 403, 'FORBIDDEN');
    expect((await tenant.api.get('/orders/O1')).body.data.status).toBe('PENDING');
  });
});

describe('a disabled user', () => {
  it('is signed out at once: its next request answers 401 and its sessions are gone', async () => {
    const tenant = await ctx.tenant();
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.get('/session')).status).toBe(200);
    const disabled = await ctx.admin('POST', `/api/v1/admin/users/${picker.user.id}/disable`);
    expect(disabled.body.data).toMatchObject({ id: picker.user.id, disabled: true });
    expectCode(await picker.get('/session'), 401, 'UNAUTHORIZED');
    expectCode(await picker.post('/picking/wave'), 401, 'UNAUTHORIZED');
    expect(await ctx.database.db.selectFrom('staff_sessions').select('token_hash').where('user_id', '=', picker.user.id).execute()).toEqual([]);
  });
});

describe('tenants', () => {
  it("never shows a user of tenant A tenant B's waves, orders or products, nor lets it change them", async () => {
    const [a, b] = [await ctx.tenant(), await ctx.tenant()];
    await floorWithOrders(ctx, a, 1);
    await floorWithOrders(ctx, b, 2);
    const bWave = (await (await signedIn(ctx, b, 'supervisor')).post('/waves', { orders: ['O2'] })).body.data;
    const supervisorA = await signedIn(ctx, a, 'supervisor');
    expect((await supervisorA.get('/waves')).body.data).toEqual([]);
    expect((await supervisorA.get('/board')).body.data.statusCounts.PENDING).toBe(1);
    expect((await supervisorA.get('/floor')).body.data.waves).toEqual([]);
    expectCode(await supervisorA.post(`/waves/${bWave.id}/release`), 404, 'NOT_FOUND');
    expectCode(await supervisorA.get('/packing/orders/O2'), 404, 'NOT_FOUND');
    expect((await b.api.post('/products', { externalId: 'ONLY-B', sku: 'SKU-ONLY-B', name: 'Only B', stock: 9 })).status).toBe(201);
    expectCode(await supervisorA.post('/products/ONLY-B/stock', { stock: 0 }), 404, 'NOT_FOUND');
    // The same externalId in both tenants: A's changes, B's does not.
    expect((await supervisorA.post('/products/P1/stock', { stock: 7 })).body.data.stock).toBe(7);
    expect((await b.api.get('/products/ONLY-B')).body.data.stock).toBe(9);
    expect((await b.api.get('/products/P1')).body.data.stock).toBe(50);
    expect((await b.api.get('/orders/O2')).body.data.status).toBe('IN_PICKING');
    const pickerA = await signedIn(ctx, a, 'picker');
    const waveA = (await pickerA.post('/picking/wave')).body.data;
    expect(waveA.orders.map((o: { externalId: string }) => o.externalId)).toEqual(['O1']);
    expectCode(await pickerA.post('/picking/wave/picks', { orderExternalId: 'O2', productExternalId: 'P1', quantity: 2 }), 404, 'NOT_FOUND');
  });
});

describe('Origin', () => {
  it('refuses a state-changing request without the service’s own Origin with 403, and does not act on it', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'picker');
    for (const origin of [undefined, 'https://evil.example', 'http://localhost:8080', 'null']) {
      const headers = origin === undefined ? {} : { origin };
      const response = await ctx.app.inject({ method: 'POST', url: '/console/api/picking/wave', headers: { cookie: `pickport_session=${picker.cookie}`, ...headers }, payload: {} });
      expect(response.statusCode, `${origin}: ${response.body}`).toBe(403);
      expect(response.json().error.code).toBe('FORBIDDEN');
    }
    expect((await picker.get('/picking/wave')).body.data).toBeNull();
    const response = await ctx.app.inject({ method: 'POST', url: '/console/api/session', payload: { warehouse: tenant.slug, username: picker.user.username, pin: PIN } });
    expect(response.statusCode).toBe(403);
    expect(response.headers['set-cookie']).toBeUndefined();
    // Reads need no Origin (a top-level navigation sends none).
    expect((await ctx.app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: `pickport_session=${picker.cookie}` } })).statusCode).toBe(200);
  });

  it('takes the origin from X-Forwarded-Proto and -Host behind a trusted proxy', async () => {
    const proxied = await createTestContext({ trustProxy: true });
    try {
      const tenant = await proxied.tenant();
      const user = (await proxied.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/users`, { username: 'kim', name: 'Kim', role: 'picker', pin: PIN })).body.data;
      const client = new ConsoleClient(proxied, tenant, user);
      const body = { warehouse: tenant.slug, username: 'kim', pin: PIN };
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example.com' };
      expect((await client.request('POST', '/session', { body, headers: forwarded })).status).toBe(403);
      expect((await client.request('POST', '/session', { body, headers: { ...forwarded, origin: 'https://console.example.com' } })).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});

describe('the cookie in production', () => {
  it('is Secure when cookieSecure is on', async () => {
    const secure = await createTestContext({ cookieSecure: true });
    try {
      const tenant = await secure.tenant();
      const picker = await signedIn(secure, tenant, 'picker');
      const out = await picker.request('DELETE', '/session');
      expect(String(out.headers['set-cookie'])).toContain('Secure');
      const again = await picker.signIn();
      expect(String(again.headers['set-cookie'])).toMatch(/HttpOnly.*Secure|Secure.*HttpOnly/);
    } finally {
      await secure.close();
    }
  });
});
