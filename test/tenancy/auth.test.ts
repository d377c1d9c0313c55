import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import { ApiClient, createTestContext, type TestContext, type TestTenant } from '../helpers/context';

/** Spec §5: every public route but health needs a valid key with the route's permission. */
describe('API key authentication (spec §5)', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant();
  });
  afterAll(() => ctx.close());

  const getProducts = (headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/products`, headers });

  function expectError(response: { statusCode: number; json(): any }, status: number, code: string) {
    expect(response.statusCode).toBe(status);
    const body = response.json();
    expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  }

  it('accepts a valid key', async () => {
    expect((await tenant.api.get('/products')).status).toBe(200);
  });

  describe('401 UNAUTHORIZED', () => {
    it('when the Authorization header is missing', async () => {
      expectError(await getProducts({}), 401, 'UNAUTHORIZED');
    });

    it('when the header has no Bearer prefix', async () => {
      expectError(await getProducts({ authorization: tenant.key }), 401, 'UNAUTHORIZED');
      expectError(await getProducts({ authorization: `Basic ${tenant.key}` }), 401, 'UNAUTHORIZED');
    });

    it('when the key does not have the pk_live_ + 40 characters format', async () => {
      expectError(await getProducts({ authorization: 'Bearer pk_live_short' }), 401, 'UNAUTHORIZED');
      expectError(await getProducts({ authorization: `Bearer ${tenant.key.replace('pk_live_', 'pk_test_')}` }), 401, 'UNAUTHORIZED');
    });

    it('when a well-formed key was never issued', async () => {
      expectError(await getProducts({ authorization: `Bearer pk_live_${'x'.repeat(40)}` }), 401, 'UNAUTHORIZED');
    });

    it('when the key has expired', async () => {
      const { key } = await ctx.issueKey(tenant.slug, { expiresAt: new Date(Date.now() - 1000).toISOString() });
      expectError(await getProducts({ authorization: `Bearer ${key}` }), 401, 'UNAUTHORIZED');
    });

    it('from the moment a key is revoked', async () => {
      const { key, id, api } = await ctx.issueKey(tenant.slug);
      expect((await api.get('/products')).status).toBe(200);
      expect((await ctx.admin('POST', `/api/v1/admin/api-keys/${id}/revoke`)).status).toBe(200);
      expectError(await getProducts({ authorization: `Bearer ${key}` }), 401, 'UNAUTHORIZED');
    });
  });

  it('revocation takes effect at once on every instance sharing the database', async () => {
    const other = await buildApp({ config: ctx.config, database: ctx.database, logger: false });
    try {
      const { key, id } = await ctx.issueKey(tenant.slug);
      const viaOther = () => other.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/products`, headers: { authorization: `Bearer ${key}` } });
      expect((await viaOther()).statusCode).toBe(200);
      expect((await ctx.admin('POST', `/api/v1/admin/api-keys/${id}/revoke`)).status).toBe(200);
      expectError(await viaOther(), 401, 'UNAUTHORIZED');
    } finally {
      await other.close();
    }
  });

  it('rotation issues a working key with the same permissions and deactivates the old one', async () => {
    const old = await ctx.issueKey(tenant.slug, { permissions: ['products:read'] });
    const rotated = await ctx.admin('POST', `/api/v1/admin/api-keys/${old.id}/rotate`);
    expect(rotated.status).toBe(201);
    const fresh = new ApiClient(ctx.app, rotated.body.data.key);
    expect((await fresh.get('/products')).status).toBe(200);
    expect((await fresh.get('/orders')).status).toBe(403);
    expectError(await getProducts({ authorization: `Bearer ${old.key}` }), 401, 'UNAUTHORIZED');
  });

  it('403 FORBIDDEN when the key lacks the permission, for each permission of §5.3', async () => {
    const routes: [string, string, string][] = [
      ['products:read', 'GET', '/products'],
      ['products:write', 'POST', '/products'],
      ['orders:read', 'GET', '/orders'],
      ['orders:write', 'POST', '/orders'],
      ['webhooks:manage', 'GET', '/webhooks'],
    ];
    const { key } = await ctx.issueKey(tenant.slug, { permissions: ['products:read'] });
    for (const [permission, method, path] of routes.slice(1)) {
      const response = await ctx.app.inject({
        method: method as 'GET' | 'POST',
        url: `${PUBLIC_PREFIX}${path}`,
        headers: { authorization: `Bearer ${key}` },
        ...(method === 'POST' ? { payload: {} } : {}),
      });
      expectError(response, 403, 'FORBIDDEN');
      expect(response.json().error.message).toContain(permission);
    }
    expect((await getProducts({ authorization: `Bearer ${key}` })).statusCode).toBe(200);
  });

  describe('IP allow list (§5.6)', () => {
    it('admits addresses inside a CIDR range and refuses others with 403 IP_NOT_ALLOWED', async () => {
      const { key } = await ctx.issueKey(tenant.slug, { allowedIps: ['203.0.113.0/24', '2001:db8::1'] });
      const from = (remoteAddress: string) =>
        ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/products`, headers: { authorization: `Bearer ${key}` }, remoteAddress });
      expect((await from('203.0.113.77')).statusCode).toBe(200);
      expect((await from('::ffff:203.0.113.5')).statusCode).toBe(200);
      expect((await from('2001:db8::1')).statusCode).toBe(200);
      expectError(await from('198.51.100.1'), 403, 'IP_NOT_ALLOWED');
      expectError(await from('2001:db8::2'), 403, 'IP_NOT_ALLOWED');
    });

    it('uses X-Forwarded-For only when TRUST_PROXY is on', async () => {
      const request = (app: TestContext['app'], key: string) =>
        app.inject({
          method: 'GET',
          url: `${PUBLIC_PREFIX}/products`,
          headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.9' },
          remoteAddress: '127.0.0.1',
        });
      const { key } = await ctx.issueKey(tenant.slug, { allowedIps: ['203.0.113.0/24'] });
      expectError(await request(ctx.app, key), 403, 'IP_NOT_ALLOWED');

      const proxied = await createTestContext({ trustProxy: true });
      try {
        const behindProxy = await proxied.tenant({ allowedIps: ['203.0.113.0/24'] });
        expect((await request(proxied.app, behindProxy.key)).statusCode).toBe(200);
      } finally {
        await proxied.close();
      }
    });
  });

  it('needs no key for GET /health', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/health` })).statusCode).toBe(200);
  });
});
