import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestContext, type KeyOptions, type TestContext, type TestResponse } from '../helpers/context';
import { manualClock, probeApp, probeExecutions } from './limits-probe';

const redisUrl = process.env.REDIS_URL;
const SECOND = 1000;

const limitHeaders = (response: TestResponse) => ({
  limit: Number(response.headers['x-ratelimit-limit']),
  remaining: Number(response.headers['x-ratelimit-remaining']),
  reset: Number(response.headers['x-ratelimit-reset']),
});

async function sendMany(api: ApiClient, count: number): Promise<TestResponse[]> {
  const responses: TestResponse[] = [];
  for (let i = 0; i < count; i++) responses.push(await api.get('/probe/read'));
  return responses;
}

// The same rules on both stores: this instance's memory, and Redis (its Lua script takes the
// test's clock in place of the server's).
describe.each([
  { store: 'memory', redis: undefined },
  { store: 'Redis (needs REDIS_URL; skipped without it)', redis: redisUrl },
])('Rate limits in $store', ({ store, redis }) => {
  let ctx: TestContext;
  let app: FastifyInstance;
  const time = manualClock();
  const skip = store !== 'memory' && !redis;

  beforeAll(async () => {
    if (skip) return;
    ctx = await createTestContext({ redisUrl: redis });
    app = await probeApp(ctx, { clock: time.clock });
  });
  afterAll(async () => {
    if (skip) return;
    await app.close();
    await ctx.close();
  });

  async function client(keyOptions: KeyOptions = {}, remoteAddress?: string): Promise<ApiClient> {
    const tenant = await ctx.tenant(keyOptions);
    return new ApiClient(app, tenant.key, remoteAddress ? { remoteAddress } : {});
  }

  it.skipIf(skip)('answers the 61st request of a minute 429, and a slot frees as the window slides', async () => {
    const api = await client();
    const start = time.now;
    const firstHalf = await sendMany(api, 30);
    expect(limitHeaders(firstHalf[0]!)).toEqual({ limit: 60, remaining: 59, reset: Math.ceil((start + 60 * SECOND) / 1000) });
    time.set(start + 30 * SECOND);
    const secondHalf = await sendMany(api, 30);
    expect(secondHalf.every((r) => r.status === 200)).toBe(true);
    expect(limitHeaders(secondHalf[29]!).remaining).toBe(0);

    // The first 30 were counted 59 s ago: one second more and their slots are free.
    time.set(start + 59 * SECOND);
    const refused = await api.get('/probe/read');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryAfter: 1 });
    expect(refused.body.error.message).toMatch(/60 requests per minute/);
    expect(refused.headers['retry-after']).toBe('1');
    expect(limitHeaders(refused)).toEqual({ limit: 60, remaining: 0, reset: Math.ceil((start + 60 * SECOND) / 1000) });

    time.set(start + 60 * SECOND);
    const allowed = await api.get('/probe/read');
    expect(allowed.status).toBe(200);
    // A sliding window, not a reset: the 30 of second 30, the refused one and this one are counted.
    expect(limitHeaders(allowed).remaining).toBe(60 - 32);
  });

  it.skipIf(skip)('counts refused requests: retrying sooner pushes the next slot further away', async () => {
    const api = await client({ rateLimitPerMinute: 5 });
    const start = time.now;
    await sendMany(api, 5);
    time.set(start + 10 * SECOND);
    const early = await api.get('/probe/read');
    expect(early.body.error.retryAfter).toBe(50);
    time.set(start + 20 * SECOND);
    await api.get('/probe/read');
    time.set(start + 60 * SECOND);
    const afterMinute = await api.get('/probe/read');
    // The five allowed ones left; the two refused retries still count.
    expect(afterMinute.status).toBe(200);
    expect(limitHeaders(afterMinute).remaining).toBe(5 - 3);
  });

  // On Redis, concurrent requests of one bucket share one script call: each must still get its own count.
  it.skipIf(skip)('counts concurrent requests one by one: minute and daily limits', async () => {
    const api = await client({ rateLimitPerMinute: 5 });
    const burst = await Promise.all(Array.from({ length: 8 }, () => api.get('/probe/read')));
    const served = burst.filter((r) => r.status === 200);
    expect(served.map((r) => limitHeaders(r).remaining).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(3);
    expect(new Set(burst.map((r) => limitHeaders(r).reset)).size).toBe(1);

    const daily = await client({ dailyLimit: 3 });
    const dayBurst = await Promise.all(Array.from({ length: 5 }, () => daily.get('/probe/read')));
    expect(dayBurst.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = dayBurst.filter((r) => r.status === 429);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.body.error.message).toMatch(/Daily limit of 3 requests/);

    // Arriving over several turns, many while a call for the bucket is on its way (they wait and go together).
    const staggered = await client({ rateLimitPerMinute: 7 });
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const wave = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        for (let turn = 0; turn < i; turn++) await nextTurn();
        return staggered.get('/probe/read');
      }),
    );
    expect(wave.filter((r) => r.status === 200).map((r) => limitHeaders(r).remaining).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(wave.filter((r) => r.status === 429)).toHaveLength(5);
  });

  it.skipIf(skip)('refuses past the daily limit with a message naming it, until the UTC day ends', async () => {
    const api = await client({ dailyLimit: 3 });
    const dayStart = Date.UTC(2026, 4, 5);
    time.set(dayStart + 86_400_000 - 10 * 60 * SECOND);
    for (let i = 0; i < 3; i++) {
      expect((await api.get('/probe/read')).status).toBe(200);
      time.advance(2 * 60 * SECOND);
    }
    // Four minutes before midnight UTC.
    const refused = await api.get('/probe/read');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(/Daily limit of 3 requests/);
    expect(refused.body.error.retryAfter).toBe(240);
    expect(refused.headers['retry-after']).toBe('240');
    expect(limitHeaders(refused)).toMatchObject({ remaining: 0, reset: (dayStart + 86_400_000) / 1000 });

    time.set(dayStart + 86_400_000 + SECOND);
    expect((await api.get('/probe/read')).status).toBe(200);
  });

  it.skipIf(skip)('past the daily limit in the last minute of the day, says to retry at midnight, not a minute later', async () => {
    const api = await client({ dailyLimit: 1 });
    const midnight = Date.UTC(2026, 4, 7);
    time.set(midnight - 50 * SECOND);
    expect((await api.get('/probe/read')).status).toBe(200);
    time.set(midnight - 30 * SECOND);
    const refused = await api.get('/probe/read');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(limitHeaders(refused).reset).toBe(midnight / 1000);
    time.set(midnight + SECOND);
    expect((await api.get('/probe/read')).status).toBe(200);
  });

  it.skipIf(skip)('counts writes, batch or single, and failures alike', async () => {
    const api = await client({ rateLimitPerMinute: 3 });
    expect((await api.post('/probe/write', { note: 'far too long for the probe schema' })).status).toBe(400);
    expect((await api.post('/probe/write', { note: 'ok' })).status).toBe(201);
    expect((await api.get('/probe/read')).status).toBe(200);
    expect((await api.post('/probe/write', { note: 'ok' })).status).toBe(429);
  });

  it.skipIf(skip)('limits requests without a valid key per source address, and sends the headers on 401', async () => {
    const address = `10.1.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const guesser = new ApiClient(app, `pk_live_${'x'.repeat(40)}`, { remoteAddress: address });
    const first = await guesser.get('/probe/read');
    expect(first.status).toBe(401);
    expect(limitHeaders(first)).toMatchObject({ limit: 60, remaining: 59 });
    await sendMany(guesser, 59);
    const refused = await guesser.get('/probe/read');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(refused.body.error.retryAfter));
    // Another address is not affected.
    const other = new ApiClient(app, `pk_live_${'x'.repeat(40)}`, { remoteAddress: '10.2.0.1' });
    expect((await other.get('/probe/read')).status).toBe(401);
  });

  it.skipIf(skip)('sends the headers on 403: a key without the permission counts against that key', async () => {
    const api = await client({ permissions: ['orders:read'], rateLimitPerMinute: 7 });
    const forbidden = await api.get('/probe/read');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect(limitHeaders(forbidden)).toMatchObject({ limit: 7, remaining: 6 });
  });

  it.skipIf(skip)('sends the headers on 403 IP_NOT_ALLOWED, counted per source address', async () => {
    const api = await client({ allowedIps: ['192.0.2.0/24'] }, '198.51.100.7');
    const refused = await api.get('/probe/read');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('IP_NOT_ALLOWED');
    expect(limitHeaders(refused)).toMatchObject({ limit: 60, remaining: 59 });
  });

  it.skipIf(skip)('leaves health and the OpenAPI document unlimited', async () => {
    const health = await app.inject({ method: 'GET', url: '/api/v1/public/health' });
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    expect(health.json().checks.redis).toBe(redis ? 'ok' : undefined);
  });
});

describe.skipIf(!redisUrl)('Rate limits shared through Redis by several instances (needs REDIS_URL; skipped without it)', () => {
  let ctx: TestContext;
  let other: FastifyInstance;
  let first: FastifyInstance;

  beforeAll(async () => {
    ctx = await createTestContext({ redisUrl, redisKeyPrefix: `test-${randomUUID()}:` });
    // Two instances on one database and one Redis, on Redis's own clock.
    first = await probeApp(ctx);
    other = await probeApp(ctx);
  });
  afterAll(async () => {
    await first.close();
    await other.close();
    await ctx.close();
  });

  it('counts 60 requests split across two instances in one window: the 61st is refused on either', async () => {
    const tenant = await ctx.tenant();
    const a = new ApiClient(first, tenant.key);
    const b = new ApiClient(other, tenant.key);
    for (let i = 0; i < 30; i++) {
      expect((await a.get('/probe/read')).status).toBe(200);
      expect((await b.get('/probe/read')).status).toBe(200);
    }
    const refusedA = await a.get('/probe/read');
    const refusedB = await b.get('/probe/read');
    expect(refusedA.status).toBe(429);
    expect(refusedB.status).toBe(429);
    expect(Number(refusedB.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('refuses a write the other instance brought over the limit while this one saw room, and rolls it back', async () => {
    const tenant = await ctx.tenant({ rateLimitPerMinute: 40 });
    const a = new ApiClient(first, tenant.key);
    const b = new ApiClient(other, tenant.key);
    // The first instance last saw 39 requests left: its next request runs before its count is back.
    expect((await a.get('/probe/read')).status).toBe(200);
    for (let i = 0; i < 39; i++) expect((await b.get('/probe/read')).status).toBe(200);

    const refused = await a.post('/probe/write', { note: 'late verdict' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.location).toBeUndefined();
    const refusedRead = await a.get('/probe/read');
    expect(refusedRead.status).toBe(429);
    expect(await probeExecutions(ctx, tenant.id)).toBe(0);
  });
});

describe('Rate limits when Redis is unreachable', () => {
  let ctx: TestContext;
  let app: FastifyInstance;

  beforeAll(async () => {
    // Nothing listens on port 1: the limiter must fail open, not fail the API.
    ctx = await createTestContext({ redisUrl: 'redis://127.0.0.1:1' });
    app = await probeApp(ctx);
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  it('keeps serving, limited per instance, and shows Redis degraded in /health', async () => {
    const tenant = await ctx.tenant({ rateLimitPerMinute: 2 });
    const api = new ApiClient(app, tenant.key);
    const served = await api.get('/probe/read');
    expect(served.status).toBe(200);
    expect(served.headers['x-ratelimit-remaining']).toBe('1');
    await api.get('/probe/read');
    expect((await api.get('/probe/read')).status).toBe(429);

    const health = await app.inject({ method: 'GET', url: '/api/v1/public/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', checks: { redis: 'degraded' } });
  });
});
