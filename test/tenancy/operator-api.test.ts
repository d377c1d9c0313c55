import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestContext } from '../helpers/setup';

/** The operator API, behind the admin token. */
describe('operator API: tenants and API keys', () => {
  const setup = useTestContext();

  it('refuses calls without the admin token, or with a wrong one', async () => {
    const none = await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/admin/tenants' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHORIZED');
    const wrong = await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/admin/tenants', headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.statusCode).toBe(401);
  });

  it('does not take an API key in place of the admin token', async () => {
    const tenant = await setup.ctx.tenant();
    const response = await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/admin/tenants', headers: { authorization: `Bearer ${tenant.key}` } });
    expect(response.statusCode).toBe(401);
  });

  describe('tenants', () => {
    it('creates a tenant (201) and lists it', async () => {
      const created = await setup.ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'acme', name: 'Acme Ltd' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ success: true, data: { id: expect.any(String), slug: 'acme', name: 'Acme Ltd' } });
      const listed = await setup.ctx.admin('GET', '/api/v1/admin/tenants');
      expect(listed.body.data.map((t: { slug: string }) => t.slug)).toContain('acme');
    });

    it('answers 409 CONFLICT for a taken slug', async () => {
      await setup.ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'taken', name: 'First' });
      const again = await setup.ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'taken', name: 'Second' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
    });

    it('validates slug and name, naming each bad field', async () => {
      const response = await setup.ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'Not A Slug' });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      const fields = response.body.error.details.map((d: { field: string }) => d.field);
      expect(fields).toEqual(expect.arrayContaining(['slug', 'name']));
    });
  });

  describe('API keys', () => {
    it('issues pk_live_ + 40 characters, shows it once and stores only a hash', async () => {
      await setup.ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'keys-co', name: 'Keys' });
      const issued = await setup.ctx.admin('POST', '/api/v1/admin/tenants/keys-co/api-keys', {
        name: 'ERP',
        permissions: ['products:read', 'orders:write'],
        rateLimitPerMinute: 120,
        dailyLimit: 5000,
        allowedIps: ['10.0.0.0/8'],
        expiresAt: '2030-01-01T00:00:00Z',
      });
      expect(issued.status).toBe(201);
      const key: string = issued.body.data.key;
      expect(key).toMatch(/^pk_live_[A-Za-z0-9]{40}$/);
      expect(issued.body.data).toMatchObject({
        name: 'ERP',
        prefix: key.slice(0, 12),
        permissions: ['products:read', 'orders:write'],
        rateLimitPerMinute: 120,
        dailyLimit: 5000,
        allowedIps: ['10.0.0.0/8'],
        expiresAt: '2030-01-01T00:00:00.000Z',
      });

      const listed = await setup.ctx.admin('GET', '/api/v1/admin/tenants/keys-co/api-keys');
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0]).toMatchObject({ id: issued.body.data.id, status: 'active' });
      expect(JSON.stringify(listed.body)).not.toContain(key);

      const stored = await sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${issued.body.data.id}`.execute(setup.ctx.database.db);
      expect(JSON.stringify(stored.rows)).not.toContain(key.slice(12));
    });

    it('applies the default limits of 60 per minute and 10 000 per day', async () => {
      const tenant = await setup.ctx.tenant();
      const listed = await setup.ctx.admin('GET', `/api/v1/admin/tenants/${tenant.slug}/api-keys`);
      expect(listed.body.data[0]).toMatchObject({ rateLimitPerMinute: 60, dailyLimit: 10_000, allowedIps: null, expiresAt: null });
    });

    it('rejects unknown permissions and malformed allowedIps entries', async () => {
      const tenant = await setup.ctx.tenant();
      const badPermission = await setup.ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, { permissions: ['products:delete'] });
      expect(badPermission.status).toBe(400);
      expect(badPermission.body.error.details[0]?.field).toMatch(/^permissions/);
      const badIp = await setup.ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, {
        permissions: ['products:read'],
        allowedIps: ['10.0.0.1', '10.0.0.0/33', 'example.com'],
      });
      expect(badIp.status).toBe(400);
      expect(badIp.body.error.details.map((d: { field: string }) => d.field)).toEqual(['allowedIps[1]', 'allowedIps[2]']);
    });

    it('refuses an expiry already past with 400 naming expiresAt, issuing nothing', async () => {
      const tenant = await setup.ctx.tenant();
      const before = (await setup.ctx.admin('GET', `/api/v1/admin/tenants/${tenant.slug}/api-keys`)).body.data.length;
      const past = await setup.ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, { permissions: ['products:read'], expiresAt: '2020-01-01T00:00:00Z' });
      expect(past.status).toBe(400);
      expect(past.body.error.details).toEqual([{ field: 'expiresAt', message: 'must be in the future' }]);
      expect((await setup.ctx.admin('GET', `/api/v1/admin/tenants/${tenant.slug}/api-keys`)).body.data).toHaveLength(before);
    });

    it('says which values a field takes: every allowed permission, the rule of a slug', async () => {
      const tenant = await setup.ctx.tenant();
      const badPermission = await setup.ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, { permissions: ['products:read', 'orders:delete'] });
      expect(badPermission.body.error.details).toEqual([
        { field: 'permissions[1]', message: 'must be one of products:read, products:write, orders:read, orders:write, webhooks:manage' },
      ]);
      const badSlug = await setup.ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'Acme Ltd', name: 'Acme' });
      expect(badSlug.body.error.details).toEqual([{ field: 'slug', message: 'must be 2 to 63 lowercase letters, digits and hyphens, not starting with a hyphen' }]);
    });

    it('answers 404 for keys of an unknown tenant, and for unknown key ids', async () => {
      expect((await setup.ctx.admin('POST', '/api/v1/admin/tenants/nobody/api-keys', { permissions: ['products:read'] })).status).toBe(404);
      expect((await setup.ctx.admin('GET', '/api/v1/admin/tenants/nobody/api-keys')).status).toBe(404);
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect((await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${unknown}/revoke`)).status).toBe(404);
      expect((await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${unknown}/rotate`)).status).toBe(404);
    });

    it('shows revoked keys as revoked and keeps the first revocation time', async () => {
      const tenant = await setup.ctx.tenant();
      const first = await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${tenant.keyId}/revoke`);
      const second = await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${tenant.keyId}/revoke`);
      expect(first.body.data.status).toBe('revoked');
      expect(second.body.data.revokedAt).toBe(first.body.data.revokedAt);
    });

    it('rotates with the same permissions and limits, and refuses to rotate a revoked key', async () => {
      const tenant = await setup.ctx.tenant({ permissions: ['orders:read'], rateLimitPerMinute: 30, dailyLimit: 900 });
      const rotated = await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${tenant.keyId}/rotate`);
      expect(rotated.status).toBe(201);
      expect(rotated.body.data).toMatchObject({ permissions: ['orders:read'], rateLimitPerMinute: 30, dailyLimit: 900 });
      expect(rotated.body.data.key).not.toBe(tenant.key);
      const keys = await setup.ctx.admin('GET', `/api/v1/admin/tenants/${tenant.slug}/api-keys`);
      expect(keys.body.data.map((k: { status: string }) => k.status)).toEqual(['revoked', 'active']);
      const again = await setup.ctx.admin('POST', `/api/v1/admin/api-keys/${tenant.keyId}/rotate`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
    });
  });
});
