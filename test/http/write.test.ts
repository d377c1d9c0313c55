import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestContext, type TestContext } from '../helpers/context';
import { probeApp, probeExecutions } from './limits-probe';

describe('The write runner: a write that loses races to concurrent requests', () => {
  let ctx: TestContext;
  let app: FastifyInstance;

  beforeAll(async () => {
    ctx = await createTestContext();
    app = await probeApp(ctx);
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  async function caller() {
    const tenant = await ctx.tenant({ rateLimitPerMinute: 10_000 });
    return { tenant, api: new ApiClient(app, tenant.key) };
  }

  it('runs again from the start after a lost race, and commits only its last run', async () => {
    const { tenant, api } = await caller();
    const answer = await api.post('/probe/write', { note: 'twice raced', races: 2 });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ success: true, data: { note: 'twice raced' } });
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
  });

  it('gives up after three runs with 409 CONCURRENT_UPDATE and Retry-After, having written nothing', async () => {
    const { tenant, api } = await caller();
    const answer = await api.post('/probe/write', { races: 3 });
    expect(answer.status).toBe(409);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body).toMatchObject({ success: false, error: { code: 'CONCURRENT_UPDATE', retryAfter: 1 } });
    expect(await probeExecutions(ctx, tenant.id)).toBe(0);
  });

  it('stores no CONCURRENT_UPDATE under an idempotency key: the same request sent again runs', async () => {
    const { tenant, api } = await caller();
    const key = randomUUID();
    const lost = await api.post('/probe/write', { races: 3 }, { 'x-idempotency-key': key });
    expect(lost.status).toBe(409);
    // The client sends the same request again (same key, same body); this time no race is lost.
    const again = await api.post('/probe/write', { races: 3 }, { 'x-idempotency-key': key });
    expect(again.status).toBe(409);
    expect(again.headers['x-idempotency-replayed']).toBeUndefined();
    const other = randomUUID();
    expect((await api.post('/probe/write', { races: 2 }, { 'x-idempotency-key': other })).status).toBe(201);
    const replayed = await api.post('/probe/write', { races: 2 }, { 'x-idempotency-key': other });
    expect(replayed.headers['x-idempotency-replayed']).toBe('true');
    expect(await probeExecutions(ctx, tenant.id)).toBe(1);
  });
});
