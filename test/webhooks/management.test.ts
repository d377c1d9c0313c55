import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { twoTenants, type TestTenant } from '../helpers/context';
import { useTenant, useTestContext } from '../helpers/setup';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const register = (tenant: TestTenant, overrides: Record<string, unknown> = {}) =>
  tenant.api.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.status_changed'], secret: SECRET, ...overrides });

describe('webhook management', () => {
  const setup = useTestContext();
  let tenant: TestTenant;
  let other: TestTenant;
  beforeAll(async () => {
    [tenant, other] = await twoTenants(setup.ctx);
  });

  it('registers a webhook: 201 with id, url, events, isActive, secret and createdAt', async () => {
    const response = await register(tenant, { events: ['order.status_changed', 'product.stock_updated'] });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'http://127.0.0.1:9/hook',
      events: ['order.status_changed', 'product.stock_updated'],
      isActive: true,
      secret: SECRET,
      createdAt: expect.any(String),
    });
  });

  it('never shows the secret again, and keeps it encrypted at rest', async () => {
    const { id } = (await register(tenant)).body.data;
    const one = await tenant.api.get(`/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).not.toHaveProperty('secret');
    expect(JSON.stringify(one.body)).not.toContain(SECRET);
    const list = await tenant.api.get('/webhooks');
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    const stored = await setup.ctx.database.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(SECRET);
  });

  it('keeps the secret encrypted in the stored idempotent answer of the registration, and the replay still shows it', async () => {
    const key = randomUUID();
    const first = await tenant.api.post(
      '/webhooks',
      { url: 'http://127.0.0.1:9/hook', events: ['order.status_changed'], secret: SECRET },
      { 'x-idempotency-key': key },
    );
    expect(first.status).toBe(201);
    expect(first.body.data.secret).toBe(SECRET);

    const { rows } = await sql<{ body: string; headers: unknown }>`
      SELECT body, headers FROM idempotency_keys WHERE tenant_id = ${tenant.id} AND idempotency_key = ${key}`.execute(setup.ctx.database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.body).toMatch(/^v1\./);
    expect(JSON.stringify(rows[0])).not.toContain(SECRET);
    expect(JSON.stringify(rows[0])).not.toContain(first.body.data.id);

    const replay = await tenant.api.post(
      '/webhooks',
      { url: 'http://127.0.0.1:9/hook', events: ['order.status_changed'], secret: SECRET },
      { 'x-idempotency-key': key },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(replay.body.data.secret).toBe(SECRET);
  });

  it.each([
    ['a secret under 32 characters', { secret: 'x'.repeat(31) }, 'secret'],
    ['an unknown event name', { events: ['order.created'] }, 'events[0]'],
    ['no events', { events: [] }, 'events'],
    ['a URL that is not http(s)', { url: 'ftp://example.com/hook' }, 'url'],
    ['a URL that does not parse', { url: 'not a url' }, 'url'],
    ['credentials in the URL', { url: 'https://user:pw@example.com/hook' }, 'url'],
  ])('refuses %s with VALIDATION_ERROR and stores nothing', async (_what, body, field) => {
    const before = (await tenant.api.get('/webhooks')).body.data.length;
    const response = await register(tenant, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await tenant.api.get('/webhooks')).body.data).toHaveLength(before);
  });

  it('lists, changes (url, events, isActive) and deletes webhooks', async () => {
    const { id } = (await register(tenant)).body.data;
    const changed = await tenant.api.patch(`/webhooks/${id}`, { url: 'http://127.0.0.1:10/other', events: ['order.issue_detected'], isActive: false });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id, url: 'http://127.0.0.1:10/other', events: ['order.issue_detected'], isActive: false });
    const partly = await tenant.api.patch(`/webhooks/${id}`, { isActive: true });
    expect(partly.body.data).toMatchObject({ url: 'http://127.0.0.1:10/other', events: ['order.issue_detected'], isActive: true });
    expect((await tenant.api.get('/webhooks')).body.data.map((w: { id: string }) => w.id)).toContain(id);

    const bad = await tenant.api.patch(`/webhooks/${id}`, { events: ['nope'] });
    expect(bad.status).toBe(400);

    const deleted = await tenant.api.delete(`/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect((await tenant.api.get(`/webhooks/${id}`)).status).toBe(404);
    expect((await tenant.api.delete(`/webhooks/${id}`)).status).toBe(404);
  });

  it("answers 404 for another tenant's webhook on every operation, and lists only one's own", async () => {
    const { id } = (await register(tenant)).body.data;
    const attempts = [
      other.api.get(`/webhooks/${id}`),
      other.api.patch(`/webhooks/${id}`, { isActive: false }),
      other.api.delete(`/webhooks/${id}`),
      other.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' }),
      other.api.post(`/webhooks/${id}/replay`, {}),
      other.api.get(`/webhooks/${id}/deliveries`),
      other.api.get(`/webhooks/${id}/dead-letters`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect((await other.api.get('/webhooks')).body.data.map((w: { id: string }) => w.id)).not.toContain(id);
    expect((await tenant.api.get(`/webhooks/${id}`)).body.data.isActive).toBe(true);
    expect((await tenant.api.get('/webhooks/not-a-uuid')).status).toBe(404);
  });

  it('needs the webhooks:manage permission', async () => {
    const { api } = await setup.ctx.issueKey(tenant.slug, { permissions: ['products:read'] });
    const response = await api.get('/webhooks');
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });
});

describe('webhook URLs in production', () => {
  const setup = useTenant({ config: { nodeEnv: 'production' }, key: {} });

  it('refuses http:// with VALIDATION_ERROR on registration and on change', async () => {
    const response = await register(setup.tenant, { url: 'http://example.com/hook' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'url', message: 'must use https' }] });
    const { id } = (await register(setup.tenant, { url: 'https://example.com/hook' })).body.data;
    expect((await setup.tenant.api.patch(`/webhooks/${id}`, { url: 'http://example.com/hook' })).status).toBe(400);
  });
});

/** Destinations a tenant must never make the service call, written the ways a URL can spell them. */
const NON_PUBLIC_URLS = [
  // loopback, and the spellings a URL parser turns into it
  'http://127.0.0.1:9/hook',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f.0.0.1/',
  'http://localhost:8080/hook',
  'http://LOCALHOST./hook',
  'http://api.localhost/hook',
  'http://[::1]/hook',
  // private, link-local (cloud metadata), carrier-grade NAT
  'http://10.0.0.8/hook',
  'http://172.16.0.1/hook',
  'http://192.168.1.1/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://100.64.1.1/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[fec0::1]/',
  // unspecified, "this network", broadcast, multicast
  'http://0.0.0.0:9/',
  'http://0.1.2.3/',
  'http://[::]/',
  'http://255.255.255.255/',
  'http://224.0.0.1/',
  'http://[ff02::1]/',
  // documentation, benchmarking and reserved ranges
  'http://192.0.2.1/',
  'http://198.51.100.7/',
  'http://203.0.113.9/',
  'http://198.18.0.1/',
  'http://240.0.0.1/',
  'http://[2001:db8::1]/',
  // IPv4-mapped and IPv4-compatible IPv6
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[::7f00:1]/',
  'http://[::a9fe:a9fe]/',
  'http://[::a00:1]/',
  'http://[::127.0.0.1]/',
  // NAT64, 6to4 and Teredo carrying a private IPv4
  'http://[64:ff9b::7f00:1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::a00:1]/',
  'http://[2002:7f00:1::1]/',
  'http://[2002:a00:1::]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
];

describe('destination guard with no configuration (PICKPORT_WEBHOOK_ALLOW_PRIVATE unset)', () => {
  const setup = useTenant({ config: { webhookAllowPrivate: false }, key: {} });

  it.each(NON_PUBLIC_URLS)('refuses %s with 400 naming url', async (url) => {
    const response = await register(setup.tenant, { url });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'url', message: expect.stringMatching(/^must not point to a private, loopback or otherwise non-public address; .*PICKPORT_WEBHOOK_ALLOW_PRIVATE=true/) }],
    });
  });

  it('accepts public destinations, including an IPv4-mapped or NAT64 form of a public address', async () => {
    for (const url of [
      'https://example.com/hook',
      'http://93.184.216.34/hook',
      'http://[2606:4700::1111]/hook',
      'http://[::ffff:93.184.216.34]/hook',
      'http://[64:ff9b::5db8:d822]/hook',
    ]) {
      const response = await register(setup.tenant, { url });
      expect(response.status, url).toBe(201);
    }
  });

  it('refuses a change of url to a non-public address and keeps the stored one', async () => {
    const { id } = (await register(setup.tenant, { url: 'https://example.com/kept' })).body.data;
    const changed = await setup.tenant.api.patch(`/webhooks/${id}`, { url: 'http://169.254.169.254/latest' });
    expect(changed.status).toBe(400);
    expect(changed.body.error.details[0]?.field).toBe('url');
    expect((await setup.tenant.api.get(`/webhooks/${id}`)).body.data.url).toBe('https://example.com/kept');
  });
});

describe('PICKPORT_WEBHOOK_ALLOW_PRIVATE=true (local development)', () => {
  const setup = useTenant({ config: { webhookAllowPrivate: true }, key: {} });

  it('accepts loopback and private destinations', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:8080/hook', 'http://10.0.0.8/hook', 'http://[::1]/hook']) {
      expect((await register(setup.tenant, { url })).status, url).toBe(201);
    }
  });
});
