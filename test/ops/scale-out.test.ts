import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Refusal } from '../helpers/answers';
import { createTestContext, usingPostgres, type TestContext, UNLIMITED } from '../helpers/context';
import { pidOwningPort, PickportProcesses, type PickportProcess } from '../helpers/processes';
import { waitFor } from '../helpers/wait';
import { Receiver } from '../webhooks/receiver';

const SECRET = 'whsec_scale_out_tests_0123456789abcdef';
/**
 * A worker's lease is the webhook timeout plus 5 s (src/webhooks/worker.ts): 10 s here. The kill
 * must come within the timeout of the held request's arrival, or the worker records a timeout.
 */
const WEBHOOK_TIMEOUT_MS = 5_000;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body, when it has one. */
  json?: Refusal & { requestId: string };
}

async function call(base: string, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${base}/api/v1/public${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as Answer['json']) : undefined };
}

const missing = [usingPostgres ? '' : 'DATABASE_URL', process.env.REDIS_URL ? '' : 'REDIS_URL'].filter(Boolean);
if (missing.length > 0) console.log(`scale-out test skipped: it needs ${missing.join(' and ')} (its processes share one PostgreSQL, which the embedded database cannot be, and one Redis)`);

/**
 * Issue 16: the stateless design holds across processes. Two `serve` processes (HTTP only) and two
 * `worker` processes, started as an operator starts them, share one PostgreSQL and one Redis.
 */
describe.skipIf(missing.length > 0)(
  'scale-out: two serve and two worker processes on one PostgreSQL and Redis',
  () => {
    let ctx: TestContext;
    let receiver: Receiver;
    let processes: PickportProcesses;
    let instances: string[];
    let serves: PickportProcess[];
    let workers: PickportProcess[];

    beforeAll(async () => {
      ctx = await createTestContext();
      receiver = await new Receiver().start();
      processes = await PickportProcesses.forContext(ctx, {
        // Every process of this deployment shares the rate-limit windows; no other test run does.
        PICKPORT_REDIS_KEY_PREFIX: `test-${randomUUID()}:`,
        PICKPORT_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
        PICKPORT_WEBHOOK_RETRY_DELAYS_MS: '100,200,300,400,500',
        // Four processes and this one share a test server with other test files.
        PICKPORT_DATABASE_POOL_SIZE: '5',
      });
      const started = await Promise.all([processes.serve(), processes.serve()]);
      instances = started.map((s) => s.url);
      serves = started.map((s) => s.process);
      workers = [processes.worker(), processes.worker()];
      await Promise.all(workers.map((w) => w.ready));
    }, 120_000);
    afterAll(async () => {
      processes?.killAll();
      await receiver?.close();
      await ctx?.close();
    });

    /** A tenant with a webhook to its own path of the receiver. */
    async function subscribedTenant(): Promise<{ id: string; key: string; path: string }> {
      const tenant = await ctx.tenant(UNLIMITED);
      const path = `/${randomUUID()}`;
      const response = await tenant.api.post('/webhooks', { url: new URL(path, receiver.url).toString(), events: ['product.stock_updated'], secret: SECRET });
      expect(response.status).toBe(201);
      return { id: tenant.id, key: tenant.key, path };
    }

    it('rate limits are exact across instances: a key with a limit of 20 gets exactly 20 answers in a minute, spread over both', async () => {
      const limit = 20;
      const { key } = await ctx.tenant({ rateLimitPerMinute: limit, dailyLimit: 10_000 });
      const answers = await Promise.all(Array.from({ length: 3 * limit }, (_, n) => call(instances[n % 2]!, 'GET', '/products', key)));

      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2 * limit);
      // Each success was counted once, in one shared window: remaining 19, 18, …, 0, each once.
      const remaining = answers.filter((a) => a.status === 200).map((a) => Number(a.headers.get('x-ratelimit-remaining')));
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, n) => n));
      for (const refused of answers.filter((a) => a.status === 429)) expect(refused.json?.error.code).toBe('RATE_LIMIT_EXCEEDED');
      // The window stays full on either instance.
      for (const instance of instances) expect((await call(instance, 'GET', '/products', key)).status).toBe(429);
    });

    it('one X-Idempotency-Key sent to both instances at once executes once: the other answer is the replay or 409', async () => {
      const tenant = await ctx.tenant(UNLIMITED);
      await call(instances[0]!, 'POST', '/products', tenant.key, { externalId: 'P-1', sku: 'SKU-1', name: 'Mug', stock: 1_000 });
      const writes = [
        ...Array.from({ length: 8 }, (_, n) => ({ path: '/products', body: { externalId: `IDEM-P-${n}`, sku: `IDEM-SKU-${n}`, name: 'Idempotent', stock: n } })),
        ...Array.from({ length: 8 }, (_, n) => ({
          path: '/orders',
          body: { externalId: `IDEM-O-${n}`, orderNumber: `O-${n}`, items: [{ productExternalId: 'P-1', productSku: 'SKU-1', quantity: 1 }] },
        })),
      ];
      for (const { path, body } of writes) {
        const headers = { 'x-idempotency-key': randomUUID() };
        const pair = await Promise.all(instances.map((instance) => call(instance, 'POST', path, tenant.key, body, headers)));
        const executed = pair.filter((a) => a.status === 201 && a.headers.get('x-idempotency-replayed') === null);
        expect(executed, `${path} ${body.externalId}: ${pair.map((a) => `${a.status} ${a.text}`).join(' | ')}`).toHaveLength(1);
        const other = pair.find((a) => a !== executed[0])!;
        if (other.status === 409) {
          expect(other.json?.error.code).toBe('IDEMPOTENCY_CONFLICT');
        } else {
          // The stored answer, byte for byte (the first request's requestId included).
          expect(other.status).toBe(201);
          expect(other.headers.get('x-idempotency-replayed')).toBe('true');
          expect(other.text).toBe(executed[0]!.text);
        }
        const stored = await ctx.database.db
          .selectFrom('idempotency_keys')
          .select('request_id')
          .where('tenant_id', '=', tenant.id)
          .where('idempotency_key', '=', headers['x-idempotency-key'])
          .execute();
        expect(stored.map((row) => row.request_id)).toEqual([executed[0]!.json?.requestId]);
      }
      const table = (name: 'products' | 'orders') =>
        ctx.database.db.selectFrom(name).select('external_id').where('tenant_id', '=', tenant.id).where('external_id', 'like', 'IDEM-%').execute();
      expect((await table('products')).map((r) => r.external_id).sort()).toEqual(Array.from({ length: 8 }, (_, n) => `IDEM-P-${n}`));
      expect((await table('orders')).map((r) => r.external_id).sort()).toEqual(Array.from({ length: 8 }, (_, n) => `IDEM-O-${n}`));
    });

    it('delivers every event at least once, never from two workers at once', async () => {
      const tenant = await subscribedTenant();
      receiver.answer = () => ({ status: 200, delayMs: 20 });
      const products = Array.from({ length: 50 }, (_, n) => ({ externalId: `E-${n}`, sku: `E-SKU-${n}`, name: `Product ${n}`, stock: 0 }));
      // Created, then four stock changes each, half the products through each instance: 200 events.
      for (let round = 0; round <= 4; round++) {
        const half = products.length / 2;
        const batches = [products.slice(0, half), products.slice(half)].map((items) => items.map((p) => ({ ...p, stock: round })));
        const answers = await Promise.all(batches.map((items, n) => call(instances[n]!, 'POST', '/products/batch', tenant.key, { products: items })));
        for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      }
      const events = await ctx.database.db.selectFrom('events').select('id').where('tenant_id', '=', tenant.id).execute();
      expect(events).toHaveLength(200);

      const delivered = async () =>
        (await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('tenant_id', '=', tenant.id).where('status', '=', 'delivered').execute()).length;
      await waitFor('every event delivered', async () => (await delivered()) >= events.length, 60_000);

      const received = receiver.requests.filter((r) => r.path === tenant.path);
      const counts = new Map<string, number>();
      for (const request of received) {
        const id = String(request.headers['x-service-event-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      const duplicates = [...counts].filter(([, n]) => n > 1);
      const report = `${received.length} requests for ${events.length} events; duplicated: ${duplicates.length ? duplicates.map(([id, n]) => `${id} × ${n}`).join(', ') : 'none'}`;
      expect(events.map((e) => e.id).filter((id) => !counts.has(id)), report).toEqual([]);
      expect(receiver.overlapping, report).toEqual([]);
      // Every request the receiver got is an attempt a worker recorded.
      const attempts = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('tenant_id', '=', tenant.id).where('status', '!=', 'pending').execute();
      expect(received.map((r) => r.headers['x-service-delivery-id']).sort(), report).toEqual(attempts.map((a) => a.id).sort());
    }, 90_000);

    it('takes over the delivery of a worker killed (SIGKILL) mid-send once its lease ends, from the other worker', async () => {
      const tenant = await subscribedTenant();
      // The first request is held (never answered); any later one is answered.
      receiver.answer = (request) => (receiver.requests.filter((r) => r.path === request.path).length === 1 ? { hang: true } : { status: 200 });
      await call(instances[0]!, 'POST', '/products', tenant.key, { externalId: 'K-1', sku: 'K-SKU-1', name: 'Held', stock: 1 });
      expect((await call(instances[1]!, 'POST', '/products', tenant.key, { externalId: 'K-1', sku: 'K-SKU-1', name: 'Held', stock: 2 })).status).toBe(200);

      const first = await waitFor('the event sent', () => receiver.requests.find((r) => r.path === tenant.path), 30_000);
      const pids = workers.map((w) => w.child.pid!);
      const senderPid = await pidOwningPort(pids, first.remotePort);
      expect(senderPid, `no worker (pids ${pids.join(', ')}) holds the connection from port ${first.remotePort}`).toBeDefined();
      const sender = workers.find((w) => w.child.pid === senderPid)!;
      const survivor = workers.find((w) => w !== sender)!;
      const [lease] = await ctx.database.db
        .selectFrom('webhook_deliveries')
        .select(['next_attempt_at', 'lease_id'])
        .where('tenant_id', '=', tenant.id)
        .where('status', '=', 'pending')
        .execute();
      expect(lease?.lease_id).toBeTruthy();

      sender.child.kill('SIGKILL');
      await sender.exited;
      const second = await waitFor('the event sent again', () => receiver.requests.filter((r) => r.path === tenant.path)[1], 60_000);
      await waitFor('the delivery recorded', () =>
        ctx.database.db.selectFrom('webhook_deliveries').select('id').where('tenant_id', '=', tenant.id).where('status', '=', 'delivered').executeTakeFirst(),
      );

      expect(second.headers['x-service-event-id']).toBe(first.headers['x-service-event-id']);
      expect(second.headers['x-service-delivery-id']).not.toBe(first.headers['x-service-delivery-id']);
      // Not before the lease ended (the same machine's clock; 1 ms for Date's rounding)…
      expect(performance.timeOrigin + second.at).toBeGreaterThanOrEqual(lease!.next_attempt_at!.getTime() - 1);
      // …and by the only worker left (the serve processes run no worker), never while the first was open.
      expect(survivor.child.exitCode).toBeNull();
      expect(receiver.overlapping).toEqual([]);

      // Graceful shutdown: every process left stops on SIGTERM with exit code 0.
      const left = [survivor, ...serves];
      for (const p of left) p.child.kill('SIGTERM');
      expect(await Promise.all(left.map((p) => p.exited))).toEqual(left.map(() => 0));
    }, 90_000);
  },
);
