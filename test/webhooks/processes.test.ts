import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DELIVERIES_CHANNEL, emit } from '../../src/events/outbox';
import type { DomainEvent } from '../../src/events/types';
import { createTestContext, usingPostgres, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { pidOwningPort, PickportProcesses } from '../helpers/processes';
import { waitFor } from '../helpers/wait';
import { Receiver } from './receiver';

const SECRET = 'whsec_process_tests_0123456789abcdef';

const stockEvent = (n: number): DomainEvent => ({
  event: 'product.stock_updated',
  data: { productId: randomUUID(), sku: `SKU-${n}`, previousStock: n, newStock: n + 1, reason: 'INVENTORY_SYNC' },
});

// `pickport worker` is a separate process, which the embedded database (in this process's memory) cannot serve.
describe.skipIf(!usingPostgres)('worker processes against one PostgreSQL (needs DATABASE_URL: PGlite lives inside one process)', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let processes: PickportProcesses;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await new Receiver().start();
    processes = await PickportProcesses.forContext(ctx, { PICKPORT_WEBHOOK_RETRY_DELAYS_MS: '100,200,300,400,500' });
  });
  afterAll(async () => {
    processes.killAll();
    await receiver.close();
    await ctx.close();
  });

  const startWorker = (timeoutMs: number) => processes.worker({ PICKPORT_WEBHOOK_TIMEOUT_MS: String(timeoutMs) });

  async function subscribe(): Promise<{ tenant: TestTenant; path: string }> {
    const tenant = await ctx.tenant(UNLIMITED);
    const url = `${receiver.url}/${randomUUID()}`;
    const path = new URL(url).pathname;
    const response = await tenant.api.post('/webhooks', { url, events: ['product.stock_updated'], secret: SECRET });
    expect(response.status).toBe(201);
    return { tenant, path };
  }

  async function eventIdsOf(tenantId: string): Promise<string[]> {
    return (await ctx.database.db.selectFrom('events').select('id').where('tenant_id', '=', tenantId).execute()).map((r) => r.id);
  }

  async function deliveredEventIds(tenantId: string): Promise<Set<string>> {
    const rows = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'delivered')
      .execute();
    return new Set(rows.map((r) => r.event_id));
  }

  it('delivers every event after a worker is killed (SIGKILL) with deliveries in flight and another starts', async () => {
    const { tenant, path } = await subscribe();
    receiver.answer = () => ({ status: 200, delayMs: 300 });
    const events = Array.from({ length: 30 }, (_, n) => stockEvent(n));
    await ctx.database.db.transaction().execute((tx) => emit(tx, tenant.id, events));

    const first = startWorker(1_000);
    await first.ready;
    await waitFor('deliveries in flight', () => receiver.requests.filter((r) => r.path === path).length >= 3, 30_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startWorker(1_000);
    await second.ready;
    const eventIds = await eventIdsOf(tenant.id);
    await waitFor('every event delivered', async () => (await deliveredEventIds(tenant.id)).size === eventIds.length, 60_000);
    const received = new Set(receiver.requests.filter((r) => r.path === path).map((r) => r.headers['x-service-event-id']));
    expect([...received].sort()).toEqual([...eventIds].sort());

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('never sends one attempt twice with two workers taking from the same queue', async () => {
    const { tenant, path } = await subscribe();
    receiver.answer = () => ({ status: 200 });
    const workers = [startWorker(5_000), startWorker(5_000)];
    await Promise.all(workers.map((w) => w.ready));
    for (let batch = 0; batch < 10; batch++) {
      const events = Array.from({ length: 20 }, (_, n) => stockEvent(batch * 20 + n));
      await ctx.database.db.transaction().execute((tx) => emit(tx, tenant.id, events));
    }
    await waitFor('200 events delivered', async () => (await deliveredEventIds(tenant.id)).size === 200, 60_000);

    const received = receiver.requests.filter((r) => r.path === path);
    const deliveryIds = received.map((r) => r.headers['x-service-delivery-id']);
    expect(new Set(deliveryIds).size).toBe(deliveryIds.length);
    // Every request the receiver got is one recorded attempt, and there is no attempt it got twice.
    const attempts = await ctx.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id'])
      .where('tenant_id', '=', tenant.id)
      .where('status', '!=', 'pending')
      .execute();
    expect(received.length).toBe(attempts.length);
    expect([...deliveryIds].sort()).toEqual(attempts.map((a) => a.id).sort());

    for (const worker of workers) worker.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
  }, 120_000);

  it('listens again when its listening connection is lost (a restarted pooler, a failover), and delivers what came meanwhile', async () => {
    const { tenant, path } = await subscribe();
    receiver.answer = () => ({ status: 200 });
    const worker = startWorker(5_000);
    await worker.ready;
    /** The backend of the worker's LISTEN connection: the session whose client port the worker process holds. */
    const listener = async () => {
      const { rows } = await sql<{ pid: number; port: number }>`
        SELECT pid, client_port AS port FROM pg_stat_activity
        WHERE datname = current_database() AND query = ${`LISTEN "${DELIVERIES_CHANNEL}"`}`.execute(ctx.database.db);
      for (const row of rows) if ((await pidOwningPort([worker.child.pid!], row.port)) !== undefined) return row.pid;
      return undefined;
    };
    const first = await waitFor('the worker listening', listener);
    await sql`SELECT pg_terminate_backend(${first})`.execute(ctx.database.db);
    await ctx.database.db.transaction().execute((tx) => emit(tx, tenant.id, [stockEvent(1)]));

    const second = await waitFor('the worker listening again', async () => {
      const pid = await listener();
      return pid !== undefined && pid !== first ? pid : undefined;
    });
    expect(second).not.toBe(first);
    await waitFor('the event delivered', () => receiver.requests.some((r) => r.path === path), 30_000);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 60_000);
});
