import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import { hashApiKey } from '../../src/tenancy/api-keys';
import { API_KEYS_CHANNEL } from '../../src/tenancy/key-cache';
import { ApiClient, createTestContext, usingPostgres, type TestContext } from '../helpers/context';
import { useTenant } from '../helpers/setup';
import type { Refusal } from '../helpers/answers';

/** Every public route but health needs a valid key with the route's permission. */
describe('API key authentication', () => {
  const setup = useTenant({ key: {} });

  const getProducts = (headers: Record<string, string>) =>
    setup.ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/products`, headers });

  function expectError(response: { statusCode: number; json(): unknown }, status: number, code: string) {
    expect(response.statusCode).toBe(status);
    const body = response.json() as Refusal & { requestId: string };
    expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  }

  it('accepts a valid key', async () => {
    expect((await setup.tenant.api.get('/products')).status).toBe(200);
  });

  describe('401 UNAUTHORIZED', () => {
    it('when the Authorization header is missing', async () => {
      expectError(await getProducts({}), 401, 'UNAUTHORIZED');
    });

    it('when the header has no Bearer prefix', async () => {
      expectError(await getProducts({ authorization: setup.tenant.key }), 401, 'UNAUTHORIZED');
      expectError(await getProducts({ authorization: `Basic ${setup.tenant.key}` }), 401, 'UNAUTHORIZED');
    });

    it('when the key does not have the pk_live_ + 40 characters format', async () => {
      expectError(await getProducts({ authorization: 'Bearer pk_live_short' }), 401, 'UNAUTHORIZED');
      expectError(await getProducts({ authorization: `Bearer ${setup.tenant.key.replace('pk_live_', 'pk_test_')}` }), 401, 'UNAUTHORIZED');
    });

    it('when a well-formed key was never issued', async () => {
      expectError(await getProducts({ authorization: `Bearer pk_live_${'x'.repeat(40)}` }), 401, 'UNAUTHORIZED');
    });

    it('when the key has expired', async () => {
      // Issued expiring later (an expiry already past is refused), then its time comes.
      const { key, id } = await setup.ctx.issueKey(setup.tenant.slug, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      await sql`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = ${id}`.execute(setup.ctx.database.db);
      expectError(await getProducts({ authorization: `Bearer ${key}` }), 401, 'UNAUTHORIZED');
    });

    it('from the moment a key is revoked', async () => {
      const { key, id, api } = await setup.ctx.issueKey(setup.tenant.slug);
      expect((await api.get('/products')).status).toBe(200);
      expect((await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${id}/revoke`)).status).toBe(200);
      expectError(await getProducts({ authorization: `Bearer ${key}` }), 401, 'UNAUTHORIZED');
    });
  });

  describe('on every instance sharing the database, though each caches keys', () => {
    /** A second instance that has seen (and cached) the key, and a way to ask it. */
    async function secondInstance() {
      const other = await buildApp({ config: setup.ctx.config, database: setup.ctx.database, logger: false });
      const { key, id } = await setup.ctx.issueKey(setup.tenant.slug);
      const viaOther = () => other.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/products`, headers: { authorization: `Bearer ${key}` } });
      expect((await viaOther()).statusCode).toBe(200);
      return { other, key, id, viaOther };
    }

    /**
     * Resolves when `instance` hears that `key` changed: the notification sent at the change's
     * commit has reached it (a few milliseconds, not a cache lifetime). Fails after a few seconds.
     */
    function heardChange(instance: FastifyInstance, key: string): Promise<void> {
      const keyHash = hashApiKey(key);
      const forget = instance.apiKeys.forget.bind(instance.apiKeys);
      return eventWithin('the instance to hear the change', 5_000, (resolve) => {
        vi.spyOn(instance.apiKeys, 'forget').mockImplementation((changed) => {
          forget(changed);
          if (changed === keyHash) resolve();
        });
      });
    }

    it('a key revoked through the operator API is refused by the other instance', async () => {
      const { other, key, id, viaOther } = await secondInstance();
      try {
        const heard = heardChange(other, key);
        expect((await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${id}/revoke`)).status).toBe(200);
        await heard;
        expectError(await viaOther(), 401, 'UNAUTHORIZED');
      } finally {
        await other.close();
      }
    });

    it('a key revoked by hand in SQL is refused too (the table announces every change)', async () => {
      const { other, key, id, viaOther } = await secondInstance();
      try {
        const heard = heardChange(other, key);
        await setup.ctx.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).execute();
        await heard;
        expectError(await viaOther(), 401, 'UNAUTHORIZED');
      } finally {
        await other.close();
      }
    });

    it.skipIf(!usingPostgres)('an instance that lost its subscription looks every key up until it is back', async () => {
      // The subscriptions made from here on (the other instance's) report their loss to the test too.
      const database = setup.ctx.database;
      const listen = database.listen.bind(database);
      let lostOne: () => void = () => {};
      const lost = eventWithin('the instance to notice its subscription is gone', 5_000, (resolve) => (lostOne = resolve));
      vi.spyOn(database, 'listen').mockImplementation((channel, onNotify, onLost) =>
        listen(channel, onNotify, () => {
          onLost?.();
          lostOne();
        }),
      );
      const { other, id, viaOther } = await secondInstance();
      try {
        await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = ${`LISTEN "${API_KEYS_CHANNEL}"`}`.execute(database.db);
        // With the subscription gone, a change is not heard: only a lookup can see it.
        await lost;
        await sql`ALTER TABLE api_keys DISABLE TRIGGER api_key_changed`.execute(database.db);
        try {
          await database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).execute();
        } finally {
          await sql`ALTER TABLE api_keys ENABLE TRIGGER api_key_changed`.execute(database.db);
        }
        expectError(await viaOther(), 401, 'UNAUTHORIZED');
      } finally {
        vi.restoreAllMocks();
        await other.close();
      }
    });
  });

  it('rotation issues a working key with the same permissions and deactivates the old one', async () => {
    const old = await setup.ctx.issueKey(setup.tenant.slug, { permissions: ['products:read'] });
    const rotated = await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${old.id}/rotate`);
    expect(rotated.status).toBe(201);
    const fresh = new ApiClient(setup.ctx.app, rotated.body.data.key);
    expect((await fresh.get('/products')).status).toBe(200);
    expect((await fresh.get('/orders')).status).toBe(403);
    expectError(await getProducts({ authorization: `Bearer ${old.key}` }), 401, 'UNAUTHORIZED');
  });

  it('403 FORBIDDEN when the key lacks the permission, for each permission', async () => {
    const routes: [string, string, string][] = [
      ['products:read', 'GET', '/products'],
      ['products:write', 'POST', '/products'],
      ['orders:read', 'GET', '/orders'],
      ['orders:write', 'POST', '/orders'],
      ['webhooks:manage', 'GET', '/webhooks'],
    ];
    const { key } = await setup.ctx.issueKey(setup.tenant.slug, { permissions: ['products:read'] });
    for (const [permission, method, path] of routes.slice(1)) {
      const response = await setup.ctx.app.inject({
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

  describe('IP allow list', () => {
    it('admits addresses inside a CIDR range and refuses others with 403 IP_NOT_ALLOWED', async () => {
      const { key } = await setup.ctx.issueKey(setup.tenant.slug, { allowedIps: ['203.0.113.0/24', '2001:db8::1'] });
      const from = (remoteAddress: string) =>
        setup.ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/products`, headers: { authorization: `Bearer ${key}` }, remoteAddress });
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
      const { key } = await setup.ctx.issueKey(setup.tenant.slug, { allowedIps: ['203.0.113.0/24'] });
      expectError(await request(setup.ctx.app, key), 403, 'IP_NOT_ALLOWED');

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
    expect((await setup.ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/health` })).statusCode).toBe(200);
  });
});

/**
 * A promise that `arm` resolves when the awaited event happens, rejected naming `what` if it has
 * not happened within `timeoutMs` (a bound on a failure, not a wait for success).
 */
function eventWithin(what: string, timeoutMs: number, arm: (resolve: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
    arm(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
