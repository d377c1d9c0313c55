import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emit } from '../../src/events/outbox';
import type { DomainEvent } from '../../src/events/types';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import { type TestTenant, UNLIMITED } from '../helpers/context';
import { useDeliveries } from '../helpers/setup';
import { waitFor } from '../helpers/wait';
import { Receiver, signatureIsValid, type Answer } from './receiver';

const SECRET = 'whsec_delivery_tests_0123456789abcdef';
const RETRY_DELAYS = [100, 200, 300, 400, 1_500];
/** Short enough for the hanging receiver's test, long enough that a loaded machine does not time out a plain 200. */
const TIMEOUT_MS = 1_000;

const EVENTS: DomainEvent[] = [
  {
    event: 'order.status_changed',
    data: { externalId: 'o-1', orderNumber: 'N-1', previousStatus: 'PACKED', status: 'DISPATCHED', updatedAt: '2026-04-23T10:00:00.000Z' },
  },
  {
    event: 'order.issue_detected',
    data: {
      externalId: 'o-2',
      orderNumber: 'N-2',
      status: 'PENDING_VALIDATION',
      hasIssues: true,
      issues: [{ type: 'UNRESOLVED_PRODUCT', productExternalId: 'p-9', productSku: 'SKU-9' }],
    },
  },
  {
    event: 'order.issue_resolved',
    data: { externalId: 'o-2', orderNumber: 'N-2', status: 'PENDING', hasIssues: false, resolvedIssues: ['UNRESOLVED_PRODUCT'] },
  },
  {
    event: 'order.items_adjusted',
    data: {
      externalId: 'o-3',
      orderNumber: 'N-3',
      status: 'PICKED',
      items: [{ productExternalId: 'p-1', productSku: 'SKU-1', previousQuantity: 4, quantity: 3 }],
      reason: 'PICKED_SHORT',
    },
  },
  {
    event: 'product.stock_updated',
    data: { productId: randomUUID(), sku: 'SKU-1', previousStock: 10, newStock: 7, reason: 'ORDER_PICKED' },
  },
];
const ALL_EVENTS = EVENTS.map((e) => e.event);

describe('webhook delivery', () => {
  const setup = useDeliveries({ webhookTimeoutMs: TIMEOUT_MS, webhookRetryDelaysMs: RETRY_DELAYS });
  let tenant: TestTenant;

  afterEach(() => {
    setup.receiver.requests.length = 0;
    setup.receiver.answer = () => ({ status: 200 });
  });

  /** The path of the current test's webhook on the shared receiver. */
  let path = '';

  async function webhook(events: string[] = ALL_EVENTS, url = `${setup.receiver.url}/${randomUUID()}`): Promise<string> {
    tenant = await setup.ctx.tenant(UNLIMITED);
    path = new URL(url).pathname;
    const response = await tenant.api.post('/webhooks', { url, events, secret: SECRET });
    expect(response.status).toBe(201);
    return response.body.data.id;
  }

  /** What the receiver got for the current test's webhook. */
  const ours = () => setup.receiver.requests.filter((r) => r.path === path);

  /** Answers `answer` to the first request for the current test's webhook, 200 to any other. */
  function firstOfThisTest(answer: Answer): Receiver['answer'] {
    let answered = false;
    const ours = path;
    return (request) => {
      if (answered || request.path !== ours) return { status: 200 };
      answered = true;
      return answer;
    };
  }

  const fire = (events: DomainEvent[], tenantId = tenant.id) =>
    setup.ctx.database.db.transaction().execute((tx) => emit(tx, tenantId, events));

  async function eventIdsOf(tenantId: string): Promise<string[]> {
    const rows = await setup.ctx.database.db.selectFrom('events').select('id').where('tenant_id', '=', tenantId).orderBy('occurred_at').execute();
    return rows.map((r) => r.id);
  }

  it('delivers every event kind with its payload, signed over the raw body with the secret', async () => {
    await webhook();
    await fire(EVENTS);
    await waitFor('five deliveries', () => ours().length >= 5);
    expect(ours()).toHaveLength(5);
    for (const expected of EVENTS) {
      const request = ours().find((r) => r.body.event === expected.event)!;
      expect(request.method).toBe('POST');
      expect(request.body).toEqual({ event: expected.event, timestamp: expect.any(String), data: expected.data });
      expect(request.headers['content-type']).toBe('application/json');
      expect(signatureIsValid(request, SECRET)).toBe(true);
      expect(signatureIsValid(request, `${SECRET}x`)).toBe(false);
      expect(request.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(request.headers['x-service-event']).toBe(expected.event);
      expect(request.headers['x-service-timestamp']).toBe(request.body.timestamp);
      expect(new Date(request.body.timestamp).toISOString()).toBe(request.body.timestamp);
      expect(request.headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(request.headers['x-service-event-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(ours().map((r) => r.headers['x-service-event-id'])).size).toBe(5);
    expect(ours().every((r) => r.body.test === undefined)).toBe(true);
  });

  it('delivers a stock change made through POST /products end to end', async () => {
    await webhook(['product.stock_updated']);
    const product = { externalId: 'e2e-1', sku: 'E2E-SKU-1', name: 'Widget', stock: 5 };
    expect((await tenant.api.post('/products', product)).status).toBe(201);
    expect((await tenant.api.post('/products', { ...product, stock: 8 })).status).toBe(200);
    await waitFor('the stock event', () => ours().length >= 1);
    const [request] = ours();
    const stored = (await tenant.api.get('/products/e2e-1')).body.data;
    expect(request!.body).toEqual({
      event: 'product.stock_updated',
      timestamp: expect.any(String),
      data: { productId: stored.id, sku: 'E2E-SKU-1', previousStock: 5, newStock: 8, reason: 'INVENTORY_SYNC' },
    });
    expect(signatureIsValid(request!, SECRET)).toBe(true);
  });

  it('sends each webhook only the events it subscribed to, and another tenant nothing', async () => {
    const id = await webhook(['product.stock_updated']);
    const owner = tenant;
    const ownPath = path;
    await webhook(['product.stock_updated'], `${setup.receiver.url}${ownPath}`); // another tenant, same URL
    path = ownPath;
    await fire(EVENTS, owner.id);
    await waitFor('one delivery', () => ours().length >= 1);
    const deliveries = await waitFor('the delivery recorded', async () => {
      const list = await owner.api.get(`/webhooks/${id}/deliveries`);
      return list.body.data.some((d: { status: string }) => d.status === 'delivered') && list.body.data;
    });
    expect(deliveries).toHaveLength(1);
    expect(ours().map((r) => r.body.event)).toEqual(['product.stock_updated']);
  });

  it('retries a failing endpoint after each configured delay, then moves the delivery to the dead letters', async () => {
    const id = await webhook(['order.status_changed']);
    setup.receiver.answer = () => ({ status: 500, body: 'boom' });
    await fire([EVENTS[0]!]);
    const dead = await waitFor('a dead letter', async () => {
      const list = await tenant.api.get(`/webhooks/${id}/dead-letters`);
      return list.body.data[0];
    });
    // One first attempt and one retry per configured delay.
    expect(ours()).toHaveLength(RETRY_DELAYS.length + 1);
    const gaps = ours().slice(1).map((r, i) => r.at - ours()[i]!.at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS[i]! - 5));
    const [eventId] = await eventIdsOf(tenant.id);
    expect(ours().every((r) => r.headers['x-service-event-id'] === eventId)).toBe(true);
    expect(new Set(ours().map((r) => r.headers['x-service-delivery-id'])).size).toBe(RETRY_DELAYS.length + 1);
    expect(dead).toMatchObject({ eventId, event: 'order.status_changed', status: 'dead_letter', attempt: 6, statusCode: 500, error: 'HTTP_STATUS', responseBody: 'boom', nextAttemptAt: null });

    const history = (await tenant.api.get(`/webhooks/${id}/deliveries`)).body;
    expect(history.pagination.total).toBe(6);
    expect(history.data.map((d: { attempt: number }) => d.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(history.data.slice(1).every((d: { status: string; nextAttemptAt: string | null }) => d.status === 'failed' && d.nextAttemptAt)).toBe(true);
    expect(history.data.map((d: { id: string }) => d.id).reverse()).toEqual(ours().map((r) => r.headers['x-service-delivery-id']));
  });

  it('schedules each retry at its configured delay after the failed attempt, plus at most 10% jitter', async () => {
    const id = await webhook(['order.status_changed']);
    setup.receiver.answer = () => ({ status: 500 });
    await fire([EVENTS[0]!]);
    await waitFor('a dead letter', async () => (await tenant.api.get(`/webhooks/${id}/dead-letters`)).body.data[0]);
    const attempts = (await tenant.api.get(`/webhooks/${id}/deliveries`)).body.data.reverse();
    expect(attempts.map((d) => [d.attempt, d.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'failed'],
      [5, 'failed'],
      [6, 'dead_letter'],
    ]);
    // A failed attempt and the retry it queues are written by one statement: the retry's createdAt
    // is when the attempt was recorded, and the failed row's nextAttemptAt when the retry is due.
    const delays = attempts.slice(1).map((retry, i) => Date.parse(attempts[i]!.nextAttemptAt!) - Date.parse(retry.createdAt));
    delays.forEach((delay, i) => {
      expect(delay, `retry ${i + 1}`).toBeGreaterThanOrEqual(RETRY_DELAYS[i]! - 1);
      expect(delay, `retry ${i + 1}`).toBeLessThanOrEqual(RETRY_DELAYS[i]! * 1.1 + 1);
    });
  });

  it('replays dead letters with the same X-Service-Event-Id, once however often replay is called', async () => {
    const id = await webhook(['order.status_changed', 'product.stock_updated']);
    setup.receiver.answer = () => ({ status: 503 });
    await fire([EVENTS[0]!, EVENTS[4]!]);
    await waitFor('two dead letters', async () => (await tenant.api.get(`/webhooks/${id}/dead-letters`)).body.pagination.total === 2);
    const replayedAfter = performance.now();
    setup.receiver.answer = () => ({ status: 200 });

    const onlyStock = await tenant.api.post(`/webhooks/${id}/replay`, { event: 'product.stock_updated' });
    expect(onlyStock.status).toBe(200);
    expect(onlyStock.body.data).toEqual({ replayed: 1 });
    const [both, again] = await Promise.all([tenant.api.post(`/webhooks/${id}/replay`), tenant.api.post(`/webhooks/${id}/replay`, {})]);
    expect(both.body.data.replayed + again.body.data.replayed).toBe(1);
    expect((await tenant.api.post(`/webhooks/${id}/replay`, {})).body.data).toEqual({ replayed: 0 });

    await waitFor('both replays delivered', () => ours().filter((r) => r.at > replayedAfter).length >= 2);
    const eventIds = await eventIdsOf(tenant.id);
    expect(ours().filter((r) => r.at > replayedAfter).map((r) => r.headers['x-service-event-id']).sort()).toEqual([...eventIds].sort());
    const deadLetters = (await tenant.api.get(`/webhooks/${id}/dead-letters`)).body.data;
    expect(deadLetters.map((d: { status: string }) => d.status)).toEqual(['replayed', 'replayed']);
    expect((await tenant.api.get(`/webhooks/${id}/dead-letters`, { status: 'dead_letter' })).body.data).toEqual([]);
  });

  it('replays only dead letters within the from/to range', async () => {
    const id = await webhook(['order.status_changed']);
    setup.receiver.answer = () => ({ status: 500 });
    await fire([EVENTS[0]!]);
    await waitFor('a dead letter', async () => (await tenant.api.get(`/webhooks/${id}/dead-letters`)).body.pagination.total === 1);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await tenant.api.post(`/webhooks/${id}/replay`, { from: future })).body.data).toEqual({ replayed: 0 });
    expect((await tenant.api.post(`/webhooks/${id}/replay`, { to: '2020-01-01T00:00:00Z' })).body.data).toEqual({ replayed: 0 });
    expect((await tenant.api.post(`/webhooks/${id}/replay`, { from: '2020-01-01T00:00:00Z', to: future })).body.data).toEqual({ replayed: 1 });
    expect((await tenant.api.post(`/webhooks/${id}/replay`, { from: 'yesterday' })).status).toBe(400);
  });

  it('counts a receiver that answers after the timeout as a failed attempt (TIMEOUT)', async () => {
    const id = await webhook(['order.status_changed']);
    setup.receiver.answer = firstOfThisTest({ hang: true });
    await fire([EVENTS[0]!]);
    const history = await waitFor('the retry recorded', async () => {
      const data = (await tenant.api.get(`/webhooks/${id}/deliveries`)).body.data;
      return data.length === 2 && data[0]?.status === 'delivered' ? data : undefined;
    });
    expect(history[1]).toMatchObject({ attempt: 1, status: 'failed', error: 'TIMEOUT', statusCode: null });
    expect(history[1]?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(history[0]).toMatchObject({ attempt: 2, status: 'delivered', statusCode: 200, error: null });
  });

  it('records a refused connection as CONNECTION_REFUSED', async () => {
    const closed = await new Receiver().start();
    await closed.close();
    const id = await webhook(['order.status_changed'], closed.url);
    await fire([EVENTS[0]!]);
    const first = await waitFor('the first attempt', async () =>
      (await tenant.api.get(`/webhooks/${id}/deliveries`, { status: 'failed' })).body.data.at(-1),
    );
    expect(first).toMatchObject({ attempt: 1, error: 'CONNECTION_REFUSED', statusCode: null });
    await tenant.api.delete(`/webhooks/${id}`);
  });

  it('records an endpoint whose certificate is not trusted as TLS, without sending it the event', async () => {
    const pem = readFileSync(new URL('./self-signed.pem', import.meta.url), 'utf8');
    let requests = 0;
    const untrusted = createServer({ key: pem, cert: pem }, (_req, res) => {
      requests++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => untrusted.listen(0, '127.0.0.1', resolve));
    try {
      const id = await webhook(['order.status_changed'], `https://127.0.0.1:${(untrusted.address() as AddressInfo).port}/hook`);
      await fire([EVENTS[0]!]);
      const first = await waitFor('the first attempt', async () =>
        (await tenant.api.get(`/webhooks/${id}/deliveries`, { status: 'failed' })).body.data.at(-1),
      );
      expect(first).toMatchObject({ attempt: 1, error: 'TLS', statusCode: null });
      expect(requests).toBe(0);
      await tenant.api.delete(`/webhooks/${id}`);
    } finally {
      untrusted.closeAllConnections();
      await new Promise((resolve) => untrusted.close(resolve));
    }
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const id = await webhook(['order.status_changed']);
    setup.receiver.answer = () => ({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
    await fire([EVENTS[0]!]);
    const first = await waitFor('the first attempt', async () => (await tenant.api.get(`/webhooks/${id}/deliveries`, { status: 'failed' })).body.data.at(-1));
    expect(first).toMatchObject({ statusCode: 302, error: 'HTTP_STATUS' });
    await tenant.api.delete(`/webhooks/${id}`); // no retries into the next test
  });

  it('waits at least Retry-After (capped at the longest delay) after a 429', async () => {
    await webhook(['order.status_changed']);
    setup.receiver.answer = firstOfThisTest({ status: 429, headers: { 'retry-after': '1' } });
    await fire([EVENTS[0]!]);
    const [eventId] = await eventIdsOf(tenant.id);
    await waitFor('the retry', () => setup.receiver.ofEvent(eventId!).length >= 2, 10_000);
    const [first, retry] = setup.receiver.ofEvent(eventId!);
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(1_000 - 5);
  });

  it('sends nothing to an inactive webhook until it is active again, and nothing to a deleted one', async () => {
    const inactive = await webhook(['order.status_changed']);
    const owner = tenant;
    const silentPaths = [path];
    await owner.api.patch(`/webhooks/${inactive}`, { isActive: false });
    await fire([EVENTS[0]!], owner.id);
    const deleted = await webhook(['order.status_changed']);
    const deletedOwner = tenant;
    silentPaths.push(path);
    await deletedOwner.api.delete(`/webhooks/${deleted}`);
    await fire([EVENTS[0]!], deletedOwner.id);
    // A control webhook fired after both shows the worker had its chance.
    await webhook(['order.status_changed']);
    await fire([EVENTS[0]!]);
    await waitFor('the control delivery', () => ours().length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ours()).toHaveLength(1);
    expect(setup.receiver.requests.filter((r) => silentPaths.includes(r.path))).toEqual([]);
    expect(ours()[0]!.headers['x-service-event-id']).toBe((await eventIdsOf(tenant.id))[0]);
    const pending = await setup.ctx.database.db.selectFrom('webhook_deliveries').select('status').where('tenant_id', '=', deletedOwner.id).execute();
    expect(pending).toEqual([]);
    // Events of the time it was inactive are not sent later either.
    await owner.api.patch(`/webhooks/${inactive}`, { isActive: true });
    expect(await setup.ctx.database.db.selectFrom('webhook_deliveries').select('id').where('tenant_id', '=', owner.id).execute()).toEqual([]);
  });

  it('holds the retries of a webhook deactivated meanwhile, and resumes them when it is active again', async () => {
    const id = await webhook(['order.status_changed']);
    setup.receiver.answer = () => ({ status: 500 });
    await fire([EVENTS[0]!]);
    await waitFor('the first attempt', () => ours().length >= 1);
    await tenant.api.patch(`/webhooks/${id}`, { isActive: false });
    const sentBefore = ours().length;
    setup.receiver.answer = () => ({ status: 200 });
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS[1]! * 2));
    expect(ours().length).toBeLessThanOrEqual(sentBefore + 1); // at most one already claimed
    await tenant.api.patch(`/webhooks/${id}`, { isActive: true });
    await waitFor('the resumed retry delivered', async () =>
      (await tenant.api.get(`/webhooks/${id}/deliveries`, { status: 'delivered' })).body.pagination.total === 1,
    );
  });

  it('sends a test event once with test: true, answers its outcome, and never retries it', async () => {
    const id = await webhook(['order.status_changed']);
    const ok = await tenant.api.post(`/webhooks/${id}/test`, { event: 'product.stock_updated' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ delivered: true, statusCode: 200, durationMs: expect.any(Number), error: null });
    const sent = ours()[0]!;
    expect(sent.body).toMatchObject({ event: 'product.stock_updated', test: true, data: { sku: expect.any(String), reason: 'ORDER_PICKED' } });
    expect(signatureIsValid(sent, SECRET)).toBe(true);
    expect(sent.headers['x-service-delivery-id']).toBe(ok.body.data.deliveryId);

    setup.receiver.answer = () => ({ status: 500 });
    const failed = await tenant.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' });
    expect(failed.body.data).toMatchObject({ delivered: false, statusCode: 500, error: 'HTTP_STATUS' });
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS[0]! * 4));
    expect(ours()).toHaveLength(2);
    const history = (await tenant.api.get(`/webhooks/${id}/deliveries`)).body.data;
    expect(history.map((d: { status: string; test: boolean }) => [d.status, d.test])).toEqual([['failed', true], ['delivered', true]]);
    expect(history[0]?.nextAttemptAt).toBeNull();
    expect((await tenant.api.post(`/webhooks/${id}/test`, { event: 'order.created' })).status).toBe(400);
  });

  it('does not send a test event again for a retry with the same X-Idempotency-Key: the answer is replayed', async () => {
    const id = await webhook(['order.status_changed']);
    const key = randomUUID();
    const first = await tenant.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' }, { 'x-idempotency-key': key });
    expect(first.status).toBe(200);
    const retry = await tenant.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' }, { 'x-idempotency-key': key });
    expect(retry.headers['x-idempotency-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(ours()).toHaveLength(1);
  });

  it('pages the delivery history with a cursor and filters it by event and status', async () => {
    const id = await webhook();
    await fire(EVENTS);
    await waitFor('five recorded deliveries', async () => (await tenant.api.get(`/webhooks/${id}/deliveries`, { status: 'delivered' })).body.pagination.total === 5);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await tenant.api.get(`/webhooks/${id}/deliveries`, { limit: '2', ...(cursor ? { cursor } : {}) })).body;
      expect(page.data.length).toBeLessThanOrEqual(2);
      expect(page.pagination.total).toBe(5);
      seen.push(...page.data.map((d: { id: string }) => d.id));
      cursor = page.pagination.nextCursor ?? undefined;
      expect(page.pagination.hasMore).toBe(cursor !== undefined);
    } while (cursor);
    expect(new Set(seen).size).toBe(5);
    const stock = (await tenant.api.get(`/webhooks/${id}/deliveries`, { event: 'product.stock_updated' })).body;
    expect(stock.data).toHaveLength(1);
    expect(stock.data[0]).toMatchObject({ event: 'product.stock_updated', status: 'delivered', attempt: 1, statusCode: 200, test: false });
    expect((await tenant.api.get(`/webhooks/${id}/deliveries`, { cursor: 'garbage' })).status).toBe(400);
    expect((await tenant.api.get(`/webhooks/${id}/deliveries`, { status: 'lost' })).status).toBe(400);
  });
});

/**
 * A webhook stored while PICKPORT_WEBHOOK_ALLOW_PRIVATE was on, sent by a deployment where it is
 * off: the name resolves to loopback, so the send-time check on the resolved address refuses it.
 */
describe('destination guard at send time, with no configuration', () => {
  const setup = useDeliveries({ webhookAllowPrivate: false, webhookRetryDelaysMs: [60_000] }, { pollIntervalMs: 100 });
  let permissive: FastifyInstance;
  beforeAll(async () => {
    permissive = await buildApp({ config: { ...setup.ctx.config, webhookAllowPrivate: true }, database: setup.ctx.database, logger: false });
  });
  afterAll(() => permissive.close());

  async function storedWhileAllowed(tenant: TestTenant): Promise<string> {
    const registered = await permissive.inject({
      method: 'POST',
      url: `${PUBLIC_PREFIX}/webhooks`,
      headers: { authorization: `Bearer ${tenant.key}` },
      payload: { url: `http://localhost:${new URL(setup.receiver.url).port}/hook`, events: ['order.status_changed'], secret: SECRET },
    });
    expect(registered.statusCode).toBe(201);
    return registered.json().data.id;
  }

  it('the test operation records BLOCKED_DESTINATION and the receiver gets nothing', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    const id = await storedWhileAllowed(tenant);
    const response = await tenant.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' });
    expect(response.body.data).toMatchObject({ delivered: false, statusCode: null, error: 'BLOCKED_DESTINATION' });
    expect(setup.receiver.requests).toHaveLength(0);
  });

  it('the delivery worker records BLOCKED_DESTINATION and the receiver gets nothing', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    const id = await storedWhileAllowed(tenant);
    await setup.ctx.database.db.transaction().execute((tx) => emit(tx, tenant.id, [EVENTS[0]!]));
    const attempted = await waitFor('an attempt recorded', async () => {
      const history: { status: string }[] = (await tenant.api.get(`/webhooks/${id}/deliveries`)).body.data;
      return history.find((delivery) => delivery.status !== 'pending');
    });
    expect(attempted).toMatchObject({ status: 'failed', error: 'BLOCKED_DESTINATION', statusCode: null });
    expect(setup.receiver.requests).toHaveLength(0);
  });
});
