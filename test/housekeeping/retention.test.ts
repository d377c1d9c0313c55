import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import type { DeliveryStatus } from '../../src/webhooks/tables';
import { purgeOnce } from '../../src/housekeeping/retention';
import { startHousekeeping } from '../../src/housekeeping';
import { createTestContext, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { waitFor } from '../helpers/wait';

const DAY_MS = 24 * 60 * 60_000;
const RETENTION_DAYS = 30;
const SECRET = 'whsec_retention_tests_0123456789abcdef';
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

describe('retention of events, delivery attempts and idempotency answers', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext({ retentionDays: RETENTION_DAYS });
  });
  afterAll(() => ctx.close());

  async function webhook(tenant: TestTenant): Promise<string> {
    // Unreachable on purpose: no worker runs here, the rows are written as the worker would leave them.
    const response = await tenant.api.post('/webhooks', {
      url: `https://127.0.0.1:9/${randomUUID()}`,
      events: ['order.status_changed', 'product.stock_updated'],
      secret: SECRET,
    });
    expect(response.status).toBe(201);
    return response.body.data.id;
  }

  async function event(tenantId: string, ageDays: number, kind = 'order.status_changed'): Promise<string> {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO events (tenant_id, event, data, occurred_at) VALUES (${tenantId}, ${kind}, '{}', ${daysAgo(ageDays)})
      RETURNING id`.execute(ctx.database.db);
    return rows[0]!.id;
  }

  async function attempt(tenantId: string, webhookId: string, eventId: string, status: DeliveryStatus, ageDays: number, kind = 'order.status_changed') {
    const { rows } = await sql<{ id: string }>`
      INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, status, next_attempt_at, created_at)
      VALUES (${tenantId}, ${webhookId}, ${eventId}, ${kind}, ${status}, ${status === 'pending' ? daysAgo(ageDays) : null}, ${daysAgo(ageDays)})
      RETURNING id`.execute(ctx.database.db);
    return rows[0]!.id;
  }

  const eventsLeft = async (ids: string[]) =>
    (await ctx.database.db.selectFrom('events').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort();
  const attemptsLeft = async (ids: string[]) =>
    (await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort();

  it('deletes settled attempts and events past the period, keeps recent ones, pending deliveries and young dead letters', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    const hook = await webhook(tenant);
    const t = tenant.id;

    const oldDelivered = await event(t, 40);
    const oldDeliveredAttempt = await attempt(t, hook, oldDelivered, 'delivered', 40);
    const recentDelivered = await event(t, 2);
    const recentDeliveredAttempt = await attempt(t, hook, recentDelivered, 'delivered', 2);
    const oldPending = await event(t, 90);
    const oldPendingAttempt = await attempt(t, hook, oldPending, 'pending', 90);
    const retried = await event(t, 45);
    const supersededAttempt = await attempt(t, hook, retried, 'failed', 45);
    const retryAttempt = await attempt(t, hook, retried, 'pending', 44);
    const youngDead = await event(t, 20);
    const youngDeadLetter = await attempt(t, hook, youngDead, 'dead_letter', 20);
    // Retries can outlast the period's edge: the event is past it, its dead letter is not.
    const deadAtEdge = await event(t, 31);
    const deadAtEdgeLetter = await attempt(t, hook, deadAtEdge, 'dead_letter', 29);
    const oldDead = await event(t, 35);
    const oldDeadLetter = await attempt(t, hook, oldDead, 'dead_letter', 35);
    const oldReplayed = await event(t, 50);
    const replayedDeadLetter = await attempt(t, hook, oldReplayed, 'replayed', 50);
    const replayDelivered = await attempt(t, hook, oldReplayed, 'delivered', 49);
    const unsubscribed = await event(t, 31);
    const justInside = await event(t, 29);

    const counts = await purgeOnce(ctx.database.db, ctx.config);

    expect(counts.deliveries).toBeGreaterThanOrEqual(5);
    expect(await attemptsLeft([oldDeliveredAttempt, recentDeliveredAttempt, oldPendingAttempt, supersededAttempt, retryAttempt, youngDeadLetter, deadAtEdgeLetter, oldDeadLetter, replayedDeadLetter, replayDelivered])).toEqual(
      [recentDeliveredAttempt, oldPendingAttempt, retryAttempt, youngDeadLetter, deadAtEdgeLetter].sort(),
    );
    expect(await eventsLeft([oldDelivered, recentDelivered, oldPending, retried, youngDead, deadAtEdge, oldDead, oldReplayed, unsubscribed, justInside])).toEqual(
      [recentDelivered, oldPending, retried, youngDead, deadAtEdge, justInside].sort(),
    );
    // What the API shows follows: the young dead letter is still listed, the old one is gone.
    const deadLetters = await tenant.api.get(`/webhooks/${hook}/dead-letters`);
    expect(deadLetters.body.data.map((d: { id: string }) => d.id).sort()).toEqual([youngDeadLetter, deadAtEdgeLetter].sort());

    // The young dead letter goes too once it is past the period, and its event with it.
    const later = new Date(Date.now() + 11 * DAY_MS);
    await purgeOnce(ctx.database.db, ctx.config, later);
    expect(await attemptsLeft([youngDeadLetter, oldPendingAttempt, retryAttempt])).toEqual([oldPendingAttempt, retryAttempt].sort());
    expect(await eventsLeft([youngDead, oldPending, retried])).toEqual([oldPending, retried].sort());
  });

  it('goes through more rows than one batch holds, for every tenant', async () => {
    const [first, second] = [await ctx.tenant(UNLIMITED), await ctx.tenant(UNLIMITED)];
    for (const tenant of [first, second]) {
      const hook = await webhook(tenant);
      await sql`
        WITH old AS (
          INSERT INTO events (tenant_id, event, data, occurred_at)
          SELECT ${tenant.id}, 'product.stock_updated', '{}', ${daysAgo(60)} FROM generate_series(1, 1500)
          RETURNING id
        )
        INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, status, created_at)
        SELECT ${tenant.id}, ${hook}, id, 'product.stock_updated', 'delivered', ${daysAgo(60)} FROM old
      `.execute(ctx.database.db);
    }
    const counts = await purgeOnce(ctx.database.db, ctx.config, new Date(), { pauseMs: 0 });
    expect(counts.deliveries).toBeGreaterThanOrEqual(3000);
    expect(counts.events).toBeGreaterThanOrEqual(3000);
    const { rows } = await sql<{ n: number }>`
      SELECT (SELECT count(*) FROM events WHERE tenant_id IN (${first.id}, ${second.id}))::int
        + (SELECT count(*) FROM webhook_deliveries WHERE tenant_id IN (${first.id}, ${second.id}))::int AS n
    `.execute(ctx.database.db);
    expect(rows[0]!.n).toBe(0);
  });

  it('keeps everything when retention is off, but still purges expired idempotency answers', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    const hook = await webhook(tenant);
    const ancient = await event(tenant.id, 400);
    const ancientAttempt = await attempt(tenant.id, hook, ancient, 'delivered', 400);
    const keyed = await tenant.api.post(
      '/webhooks',
      { url: 'https://127.0.0.1:9/keyed', events: ['order.status_changed'], secret: SECRET },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(keyed.status).toBe(201);
    const stored = () => ctx.database.db.selectFrom('idempotency_keys').select('idempotency_key').where('tenant_id', '=', tenant.id).execute();
    expect(await stored()).toHaveLength(1);

    const counts = await purgeOnce(ctx.database.db, {}, new Date(Date.now() + 25 * 60 * 60_000));
    expect(counts).toMatchObject({ deliveries: 0, events: 0 });
    expect(await eventsLeft([ancient])).toEqual([ancient]);
    expect(await attemptsLeft([ancientAttempt])).toEqual([ancientAttempt]);
    expect(await stored()).toEqual([]);
  });

  it('says in the replay answer when dead letters the filters name were purged', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    const hook = await webhook(tenant);
    const replay = async (body: object) => {
      const response = await tenant.api.post(`/webhooks/${hook}/replay`, body);
      expect(response.status).toBe(200);
      return response.body.data;
    };
    await attempt(tenant.id, hook, await event(tenant.id, 40), 'dead_letter', 40);
    await attempt(tenant.id, hook, await event(tenant.id, 10), 'dead_letter', 10);
    expect(await replay({ event: 'product.stock_updated' })).toEqual({ replayed: 0 });

    await purgeOnce(ctx.database.db, ctx.config);

    // A period after the purged dead letter, or another event kind: nothing of it was purged.
    expect(await replay({ from: daysAgo(20).toISOString() })).toEqual({ replayed: 1 });
    expect(await replay({ event: 'product.stock_updated' })).toEqual({ replayed: 0 });
    // No filter, or a period reaching back before the retention period: said so.
    expect(await replay({})).toEqual({ replayed: 0, purged: true });
    expect(await replay({ from: daysAgo(45).toISOString(), event: 'order.status_changed' })).toEqual({ replayed: 0, purged: true });
  });

  it('runs a pass shortly after the housekeeping a delivering process runs starts', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    const hook = await webhook(tenant);
    const old = await event(tenant.id, 33);
    const oldAttempt = await attempt(tenant.id, hook, old, 'delivered', 33);
    // FIRST_PASS_DELAY_MS (seconds) shortened, so that the test does not wait for it.
    const housekeeping = startHousekeeping({ db: ctx.database.db, config: ctx.config, log: pino({ level: 'silent' }), firstPassDelayMs: 50 });
    try {
      await waitFor('the first pass', async () => (await eventsLeft([old])).length === 0);
      expect(await attemptsLeft([oldAttempt])).toEqual([]);
    } finally {
      await housekeeping.stop();
    }
  });

  it('reads PICKPORT_RETENTION_DAYS: 30 days by default, off to keep everything, whole days from 1', () => {
    const env = { ADMIN_TOKEN: 'a-long-enough-admin-token', PICKPORT_SECRET_KEY: 'ab'.repeat(32), DATABASE_URL: 'postgres://db/pickport' };
    expect(loadConfig(env).config.retentionDays).toBe(30);
    expect(loadConfig({ ...env, PICKPORT_RETENTION_DAYS: '7' }).config.retentionDays).toBe(7);
    expect(loadConfig({ ...env, PICKPORT_RETENTION_DAYS: 'OFF' }).config.retentionDays).toBeUndefined();
    for (const bad of ['0', '-3', '1.5', 'forever']) {
      expect(() => loadConfig({ ...env, PICKPORT_RETENTION_DAYS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, PICKPORT_RETENTION_DAYS: bad })).toThrow(/PICKPORT_RETENTION_DAYS must be an integer from 1/);
    }
  });
});
