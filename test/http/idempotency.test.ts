import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, purgeExpiredIdempotencyKeys } from '../../src/http/idempotency';
import { ApiClient, createTestContext, usingPostgres, type TestContext, type TestTenant } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { Gate, manualClock, probeApp, probeExecutions } from './limits-probe';

describe('Idempotent writes: X-Idempotency-Key', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  const time = manualClock();
  let gate: Gate | undefined;

  beforeAll(async () => {
    ctx = await createTestContext();
    app = await probeApp(ctx, { clock: time.clock, gate: () => gate });
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  async function caller(): Promise<{ tenant: TestTenant; api: ApiClient }> {
    const tenant = await ctx.tenant({ rateLimitPerMinute: 10_000 });
    return { tenant, api: new ApiClient(app, tenant.key) };
  }
  const write = (api: ApiClient, key: string, body: unknown = { note: 'a' }) => api.post('/probe/write', body, { 'x-idempotency-key': key });
  /** The keys whose answers the tenant has stored. */
  const storedKeys = async (tenantId: string) =>
    (await ctx.database.db.selectFrom('idempotency_keys').select('idempotency_key').where('tenant_id', '=', tenantId).execute()).map((row) => row.idempotency_key);

  it('replays the stored answer of a repeated request, which commits nothing of its own', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    const first = await write(api, key);
    expect(first.status).toBe(201);
    expect(first.headers['x-idempotency-replayed']).toBeUndefined();

    const again = await write(api, key);
    expect(again.status).toBe(201);
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    // The very answer: same body, the original requestId in it, the route's own headers.
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe('/probe/1');
    // A fresh X-Request-Id for this delivery.
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(again.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
  });

  it('treats the same body with its fields in another order as the same request', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    await api.post('/probe/write', '{"note":"x","tag":1}', { 'x-idempotency-key': key, 'content-type': 'application/json' });
    const again = await api.post('/probe/write', '{"tag":1,"note":"x"}', { 'x-idempotency-key': key, 'content-type': 'application/json' });
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT for the same key with a different body or path', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    await write(api, key, { note: 'a' });
    const otherBody = await write(api, key, { note: 'b' });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(otherBody.body.error.message).toMatch(/different request/);
    const otherPath = await api.request('POST', '/probe/write?x=1', { body: { note: 'a' }, headers: { 'x-idempotency-key': key } });
    expect(otherPath.status).toBe(409);
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
  });

  it('scopes keys to the API key: another key may use the same idempotency key', async () => {
    const { tenant, api } = await caller();
    const other = await ctx.issueKey(tenant.slug, { rateLimitPerMinute: 10_000 });
    const key = randomUUID();
    await write(api, key);
    const fromOther = await write(new ApiClient(app, other.key), key, { note: 'z' });
    expect(fromOther.status).toBe(201);
    expect(fromOther.headers['x-idempotency-replayed']).toBeUndefined();
    expect(await probeExecutions(ctx, tenant.id)).toBe(2);
  });

  it('refuses a key that is not a UUID v4 with 400 VALIDATION_ERROR naming the header', async () => {
    const { tenant, api } = await caller();
    for (const bad of ['abc', '6ba7b810-9dad-11d1-80b4-00c04fd430c8' /* v1 */, `${randomUUID()}x`]) {
      const response = await write(api, bad);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'X-Idempotency-Key', message: 'must be a UUID v4' }] });
    }
    expect(await probeExecutions(ctx, tenant.id)).toBe(0);
  });

  it('takes an uppercase UUID v4 (as macOS uuidgen prints it) on the real routes, as the same key as its lowercase form', async () => {
    const { api } = await ctx.tenant();
    const key = randomUUID();
    const product = { externalId: 'UP-1', sku: 'UP-1', name: 'Mug' };
    const first = await api.post('/products', product, { 'x-idempotency-key': key.toUpperCase() });
    expect(first.status).toBe(201);
    const again = await api.post('/products', product, { 'x-idempotency-key': key });
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('says the same thing about every malformed key, on every write route', async () => {
    const { api } = await ctx.tenant();
    const order = { externalId: 'O-1', orderNumber: '1', items: [{ productExternalId: 'P', productSku: 'P', quantity: 1 }] };
    const writes: [string, unknown][] = [
      ['/products', { externalId: 'B-1', sku: 'B-1', name: 'Mug' }],
      ['/products/batch', { products: [{ externalId: 'B-1', sku: 'B-1', name: 'Mug' }] }],
      ['/orders', order],
      ['/orders/batch', { orders: [order] }],
    ];
    const malformed = ['', 'abc', '6ba7b810-9dad-11d1-80b4-00c04fd430c8' /* v1 */, `${randomUUID()}x`, randomUUID().replace(/-/g, '')];
    for (const [path, body] of writes) {
      for (const bad of malformed) {
        const response = await api.post(path, body, { 'x-idempotency-key': bad });
        expect(response.status, `${path} ${bad}`).toBe(400);
        expect(response.body.error, `${path} ${bad}`).toMatchObject({
          code: 'VALIDATION_ERROR',
          details: [{ field: 'X-Idempotency-Key', message: 'must be a UUID v4' }],
        });
      }
    }
    expect((await api.get('/products?active_only=false')).body.data).toEqual([]);
  });

  it('runs a request once when two arrive together with one key: the other gets 409 saying it is still running', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    gate = new Gate();
    try {
      const first = write(api, key);
      await gate.reached;
      const second = await write(api, key);
      expect(second.status).toBe(409);
      expect(second.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
      expect(second.body.error.message).toMatch(/still being processed/);
      // This conflict passes, unlike a key reused for another request: the header says when to retry.
      expect(second.headers['retry-after']).toBe('1');
      gate.open();
      expect((await first).status).toBe(201);
    } finally {
      gate.open();
      gate = undefined;
    }
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
    expect((await write(api, key)).headers['x-idempotency-replayed']).toBe('true');
  });

  it('stores a 4xx of a write that rolled back, and replays it; nothing of the write remains', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    const first = await write(api, key, { fail: 404 });
    expect(first.status).toBe(404);
    const again = await write(api, key, { fail: 404 });
    expect(again.status).toBe(404);
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await probeExecutions(ctx, tenant.id)).toBe(0);
  });

  it('stores a validation error too, so the key stays bound to that request', async () => {
    const { api } = await caller();
    const key = randomUUID();
    const invalid = await write(api, key, { note: 'far too long for the probe schema' });
    expect(invalid.status).toBe(400);
    expect((await write(api, key, { note: 'far too long for the probe schema' })).headers['x-idempotency-replayed']).toBe('true');
    expect((await write(api, key, { note: 'ok' })).status).toBe(409);
  });

  it('releases the key after a 5xx, so that a retry runs', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    expect((await write(api, key, { fail: 500 })).status).toBe(500);
    const retry = await write(api, key, { fail: 500 });
    expect(retry.status).toBe(500);
    expect(retry.headers['x-idempotency-replayed']).toBeUndefined();
    expect(await probeExecutions(ctx, tenant.id)).toBe(0);
  });

  it('processes the same key as a new operation after 24 hours, and purges expired keys', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    await write(api, key, { note: 'a' });
    time.advance(IDEMPOTENCY_TTL_MS - 1000);
    expect((await write(api, key, { note: 'a' })).headers['x-idempotency-replayed']).toBe('true');
    time.advance(1000);
    const later = await write(api, key, { note: 'b' });
    expect(later.status).toBe(201);
    expect(later.headers['x-idempotency-replayed']).toBeUndefined();
    expect(await probeExecutions(ctx, tenant.id)).toBe(2);

    time.advance(IDEMPOTENCY_TTL_MS);
    // The key's stored answer is still there, expired, until the purge.
    expect(await storedKeys(tenant.id)).toEqual([key]);
    await purgeExpiredIdempotencyKeys(ctx.database.db, new Date(time.now));
    expect(await storedKeys(tenant.id)).toEqual([]);
  });

  it('purges expired keys on its own as writes come in', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    expect((await write(api, key)).status).toBe(201);
    expect(await storedKeys(tenant.id)).toEqual([key]);
    time.advance(IDEMPOTENCY_TTL_MS + 60_000);
    const other = await caller();
    const otherKey = randomUUID();
    expect((await write(other.api, otherKey)).status).toBe(201);
    expect(await storedKeys(tenant.id)).toEqual([]);
    expect(await storedKeys(other.tenant.id)).toEqual([otherKey]);
  });

  it('stores the answer encrypted, bound to its key: a stored body copied onto another key is refused, not run again', async () => {
    const { tenant, api } = await caller();
    const [original, copy] = [randomUUID(), randomUUID()];
    await write(api, original, { note: 'plaintext-marker' });
    await write(api, copy, { note: 'plaintext-marker' });
    const stored = await ctx.database.db
      .selectFrom('idempotency_keys')
      .select(['idempotency_key', 'body'])
      .where('tenant_id', '=', tenant.id)
      .where('idempotency_key', 'in', [original, copy])
      .execute();
    expect(stored).toHaveLength(2);
    for (const row of stored) expect(row.body).not.toContain('plaintext-marker');
    const originalBody = stored.find((row) => row.idempotency_key === original)!.body;
    await ctx.database.db.updateTable('idempotency_keys').set({ body: originalBody }).where('idempotency_key', '=', copy).execute();

    expect((await write(api, original, { note: 'plaintext-marker' })).body.data).toMatchObject({ note: 'plaintext-marker' });
    const moved = await write(api, copy, { note: 'plaintext-marker' });
    expect(moved.status).toBe(500);
    expect(await probeExecutions(ctx, tenant.id)).toBe(2);
  });

  describe('with two instances sharing the database', () => {
    let other: FastifyInstance;
    let otherGate: Gate | undefined;
    beforeAll(async () => {
      other = await probeApp(ctx, { clock: time.clock, gate: () => otherGate });
    });
    afterAll(() => other.close());

    it('a request held before its write replays the answer the other instance stored meanwhile', async () => {
      const { tenant, api } = await caller();
      const key = randomUUID();
      otherGate = new Gate();
      const held = otherGate;
      try {
        const slow = write(new ApiClient(other, tenant.key), key);
        await held.reached;
        otherGate = undefined;
        expect((await write(api, key)).status).toBe(201);
        held.open();
        const late = await slow;
        expect(late.status).toBe(201);
        expect(late.headers['x-idempotency-replayed']).toBe('true');
      } finally {
        held.open();
        otherGate = undefined;
      }
      expect(await probeExecutions(ctx, tenant.id)).toBe(1);
    });
  });

  // On the embedded database transactions run one after another, so two cannot overlap like this.
  it.skipIf(!usingPostgres)('answers 409 still running, and writes nothing, while another instance is committing an answer for the key', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    // Another instance's transaction, between storing its answer and its commit.
    const other = await ctx.database.db.startTransaction().execute();
    try {
      await other
        .insertInto('idempotency_keys')
        .values({
          tenant_id: tenant.id,
          api_key_id: tenant.keyId,
          idempotency_key: key,
          fingerprint: 'the other instance',
          request_id: randomUUID(),
          status_code: 201,
          headers: '{}',
          body: 'sealed elsewhere',
          expires_at: new Date(time.now + IDEMPOTENCY_TTL_MS),
        })
        .execute();
      const meanwhile = await write(api, key);
      expect(meanwhile.status).toBe(409);
      expect(meanwhile.body.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', message: expect.stringMatching(/still being processed/) });
    } finally {
      await other.rollback().execute();
    }
    expect(await probeExecutions(ctx, tenant.id)).toBe(0);
  });

  it.skipIf(!usingPostgres)('a write whose answer loses the race for its key rolls back and replays the winner', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    const other = await probeApp(ctx, { clock: time.clock, gateInWrite: () => held });
    const held = new Gate();
    try {
      // Inside its transaction, past the look-up at BEGIN, before writing.
      const slow = write(new ApiClient(other, tenant.key), key);
      await held.reached;
      const winner = await write(api, key);
      expect(winner.status).toBe(201);
      held.open();
      const late = await slow;
      expect(late.status).toBe(201);
      expect(late.headers['x-idempotency-replayed']).toBe('true');
      expect(late.body).toEqual(winner.body);
    } finally {
      held.open();
      await other.close();
    }
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
  });
});

describe('Idempotency and rate limits on the public routes themselves', () => {
  const setup = useTestContext();

  it('POST /products replays with the key, refuses another body under it, and every answer carries the rate-limit headers', async () => {
    const { api } = await setup.ctx.tenant();
    const key = randomUUID();
    const product = { externalId: 'idem-1', sku: 'IDEM-1', name: 'Once' };
    const created = await api.post('/products', product, { 'x-idempotency-key': key });
    expect(created.status).toBe(201);
    expect(created.headers['x-ratelimit-limit']).toBe('60');
    expect(created.headers['x-ratelimit-remaining']).toBe('59');

    const replayed = await api.post('/products', product, { 'x-idempotency-key': key });
    // Without the key this would be an update (200); the replay is the first answer, 201.
    expect(replayed.status).toBe(201);
    expect(replayed.headers['x-idempotency-replayed']).toBe('true');
    expect(replayed.body).toEqual(created.body);
    expect(replayed.headers['x-ratelimit-remaining']).toBe('58');

    const conflicting = await api.post('/products', { ...product, name: 'Twice' }, { 'x-idempotency-key': key });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await api.get('/products/idem-1')).body.data.name).toBe('Once');
  });

  it('documents X-Idempotency-Key on the public writes in the OpenAPI document', async () => {
    const document = (await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/public/openapi.json' })).json();
    const parameters = document.paths['/api/v1/public/products'].post.parameters as { name: string; in: string }[];
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'x-idempotency-key', in: 'header' }));
  });
});
