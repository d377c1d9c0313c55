import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { WebhookVerificationError } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emit } from '../../src/events/outbox';
import type { DomainEvent } from '../../src/events/types';
import { type TestTenant, UNLIMITED } from '../helpers/context';
import { useDeliveries } from '../helpers/setup';
import { waitFor } from '../helpers/wait';
import { signatureIsValid, verifyStandard, type ReceivedRequest } from './receiver';

const OLD_SECRET = 'whsec_standard_old_0123456789abcdefgh';
const NEW_SECRET = 'a-new-secret-of-at-least-32-characters!';
const NEWEST_SECRET = 'the-newest-secret-0123456789abcdefghij';
const RETRY_DELAYS = [200, 200, 200, 200, 200];

const STATUS_CHANGED: DomainEvent = {
  event: 'order.status_changed',
  data: { externalId: 'o-1', orderNumber: 'N-1', previousStatus: 'PACKED', status: 'DISPATCHED', updatedAt: '2026-04-23T10:00:00.000Z' },
};
const STOCK_UPDATED: DomainEvent = {
  event: 'product.stock_updated',
  data: { productId: randomUUID(), sku: 'SKU-1', previousStock: 10, newStock: 7, reason: 'ORDER_PICKED' },
};

const signaturesIn = (request: ReceivedRequest) => String(request.headers['webhook-signature']).split(' ');
const refusedBy = (request: Pick<ReceivedRequest, 'raw' | 'headers'>, secret: string) => {
  try {
    verifyStandard(request, secret);
    return null;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.message;
    throw error;
  }
};

describe('Standard Webhooks signatures and secret rotation', () => {
  const setup = useDeliveries({ webhookRetryDelaysMs: RETRY_DELAYS });
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    tenant = await setup.ctx.tenant(UNLIMITED);
    other = await setup.ctx.tenant(UNLIMITED);
  });
  afterEach(() => {
    setup.receiver.answer = () => ({ status: 200 });
    vi.useRealTimers();
  });

  /** Registers a webhook with its own path on the receiver; answers its id and a view of what arrived there. */
  async function webhook(owner = tenant, events = ['order.status_changed', 'product.stock_updated']) {
    const path = `/hook/${randomUUID()}`;
    const response = await owner.api.post('/webhooks', { url: `${setup.receiver.url}${path.slice('/hook'.length)}`, events, secret: OLD_SECRET });
    expect(response.status).toBe(201);
    return { id: response.body.data.id as string, path, received: () => setup.receiver.requests.filter((r) => r.path === path) };
  }

  const fire = (events: DomainEvent[], tenantId = tenant.id) => setup.ctx.database.db.transaction().execute((tx) => emit(tx, tenantId, events));

  async function testSend(id: string, received: () => ReceivedRequest[], owner = tenant): Promise<ReceivedRequest> {
    const before = received().length;
    const response = await owner.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' });
    expect(response.status).toBe(200);
    expect(response.body.data.delivered).toBe(true);
    expect(received()).toHaveLength(before + 1);
    return received().at(-1)!;
  }

  const rotate = (id: string, body: Record<string, unknown>, owner = tenant) => owner.api.post(`/webhooks/${id}/rotate-secret`, body);

  it('signs every delivery for the standardwebhooks package: webhook-id is the event id, webhook-timestamp the attempt', async () => {
    const { received } = await webhook();
    const firedAt = Math.floor(Date.now() / 1000);
    await fire([STATUS_CHANGED, STOCK_UPDATED]);
    await waitFor('two deliveries', () => received().length >= 2);
    for (const request of received()) {
      expect(verifyStandard(request, OLD_SECRET)).toEqual(request.body);
      expect(refusedBy(request, NEW_SECRET)).toBe('No matching signature found');
      expect(signatureIsValid(request, OLD_SECRET)).toBe(true);
      expect(request.headers['webhook-id']).toBe(request.headers['x-service-event-id']);
      expect(request.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(Number(request.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(firedAt);
      expect(Number(request.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(signaturesIn(request)).toHaveLength(1);
      expect(signaturesIn(request)[0]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    }
    expect(new Set(received().map((r) => r.headers['webhook-id'])).size).toBe(2);
  });

  it('keeps webhook-id across the attempts of one event, each attempt signed on its own', async () => {
    const { path, received } = await webhook();
    let first = true;
    setup.receiver.answer = (request) => (first && request.path === path ? ((first = false), { status: 500 }) : { status: 200 });
    await fire([STATUS_CHANGED]);
    await waitFor('the retry', () => received().length >= 2);
    const [failed, retried] = received();
    expect(retried!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    expect(retried!.headers['x-service-delivery-id']).not.toBe(failed!.headers['x-service-delivery-id']);
    expect(verifyStandard(failed!, OLD_SECRET)).toEqual(failed!.body);
    expect(verifyStandard(retried!, OLD_SECRET)).toEqual(retried!.body);
  });

  it('signs test deliveries the same way, with webhook-id the eventId the test call answers', async () => {
    const { id, received } = await webhook();
    const response = await tenant.api.post(`/webhooks/${id}/test`, { event: 'product.stock_updated' });
    expect(response.body.data.delivered).toBe(true);
    const [request] = received();
    expect(request!.headers['webhook-id']).toBe(response.body.data.eventId);
    expect(request!.headers['x-service-event-id']).toBe(response.body.data.eventId);
    expect(verifyStandard(request!, OLD_SECRET)).toMatchObject({ event: 'product.stock_updated', test: true });
    expect(signatureIsValid(request!, OLD_SECRET)).toBe(true);
  });

  it('lets the package refuse a tampered body, a changed webhook-id and a delivery replayed after the tolerance', async () => {
    const { id, received } = await webhook();
    const request = await testSend(id, received);
    const tampered = Buffer.from(request.raw.toString('utf8').replace('"test":true', '"test":false'));
    expect(tampered.equals(request.raw)).toBe(false);
    expect(refusedBy({ ...request, raw: tampered }, OLD_SECRET)).toBe('No matching signature found');
    expect(refusedBy({ ...request, headers: { ...request.headers, 'webhook-id': randomUUID() } }, OLD_SECRET)).toBe('No matching signature found');
    // A replayer cannot refresh the timestamp either: it is signed.
    const now = String(Math.floor(Date.now() / 1000) + 1);
    expect(refusedBy({ ...request, headers: { ...request.headers, 'webhook-timestamp': now } }, OLD_SECRET)).toBe('No matching signature found');

    expect(refusedBy(request, OLD_SECRET)).toBeNull();
    // The same captured request, presented six minutes later.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect(refusedBy(request, OLD_SECRET)).toBe('Message timestamp too old');
  });

  it('rotates the secret: 200 with the new secret and the overlap end; reads never show a secret; both stored encrypted', async () => {
    const { id } = await webhook();
    const response = await rotate(id, { secret: NEW_SECRET });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      id,
      url: expect.any(String),
      events: ['order.status_changed', 'product.stock_updated'],
      isActive: true,
      secret: NEW_SECRET,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      previousSecretExpiresAt: expect.any(String),
    });
    const overlap = Date.parse(response.body.data.previousSecretExpiresAt ?? '') - Date.parse(response.body.data.updatedAt);
    expect(Math.round(overlap / 1000)).toBe(86_400);
    expect(JSON.stringify(response.body)).not.toContain(OLD_SECRET);
    const read = await tenant.api.get(`/webhooks/${id}`);
    expect(JSON.stringify(read.body)).not.toContain(NEW_SECRET);
    expect(JSON.stringify(read.body)).not.toContain(OLD_SECRET);
    const stored = await setup.ctx.database.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored.previous_secret_ciphertext).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(NEW_SECRET);
    expect(JSON.stringify(stored)).not.toContain(OLD_SECRET);
  });

  it('during the overlap signs with both secrets, so a receiver knowing either one verifies; X-Service-Signature uses the new one', async () => {
    const { id, received } = await webhook();
    expect((await rotate(id, { secret: NEW_SECRET, overlapSeconds: 3600 })).status).toBe(200);
    const tested = await testSend(id, received);
    await fire([STOCK_UPDATED]);
    await waitFor('the event delivery', () => received().length >= 2);
    for (const request of received()) {
      expect(signaturesIn(request)).toHaveLength(2);
      expect(verifyStandard(request, OLD_SECRET)).toEqual(request.body);
      expect(verifyStandard(request, NEW_SECRET)).toEqual(request.body);
      expect(refusedBy(request, NEWEST_SECRET)).toBe('No matching signature found');
      expect(signatureIsValid(request, NEW_SECRET)).toBe(true);
      expect(signatureIsValid(request, OLD_SECRET)).toBe(false);
    }
    expect(tested.body.test).toBe(true);
  });

  it('after the overlap, and with overlapSeconds 0 at once, signs with the new secret only', async () => {
    const short = await webhook();
    const rotated = await rotate(short.id, { secret: NEW_SECRET, overlapSeconds: 1 });
    expect(rotated.status).toBe(200);
    expect(verifyStandard(await testSend(short.id, short.received), OLD_SECRET)).toBeTruthy();
    expect(Date.parse(rotated.body.data.previousSecretExpiresAt ?? '') - Date.parse(rotated.body.data.updatedAt)).toBe(1_000);
    // The overlap ends by the database's clock, which the signing reads (src/webhooks/secrets.ts).
    await waitFor('the overlap to end', async () => {
      const row = await setup.ctx.database.db
        .selectFrom('webhooks')
        .select(sql<boolean>`previous_secret_expires_at <= now()`.as('ended'))
        .where('id', '=', short.id)
        .executeTakeFirstOrThrow();
      return row.ended;
    });
    const after = await testSend(short.id, short.received);
    expect(signaturesIn(after)).toHaveLength(1);
    expect(verifyStandard(after, NEW_SECRET)).toEqual(after.body);
    expect(refusedBy(after, OLD_SECRET)).toBe('No matching signature found');

    const none = await webhook();
    const immediate = await rotate(none.id, { secret: NEW_SECRET, overlapSeconds: 0 });
    expect(immediate.status).toBe(200);
    expect(immediate.body.data.previousSecretExpiresAt).toBeNull();
    const request = await testSend(none.id, none.received);
    expect(signaturesIn(request)).toHaveLength(1);
    expect(verifyStandard(request, NEW_SECRET)).toEqual(request.body);
    expect(refusedBy(request, OLD_SECRET)).toBe('No matching signature found');
    expect(signatureIsValid(request, NEW_SECRET)).toBe(true);
  });

  it('rotating again during an overlap keeps the then current secret as the previous one and drops the oldest', async () => {
    const { id, received } = await webhook();
    await rotate(id, { secret: NEW_SECRET, overlapSeconds: 3600 });
    expect((await rotate(id, { secret: NEWEST_SECRET, overlapSeconds: 3600 })).status).toBe(200);
    const request = await testSend(id, received);
    expect(signaturesIn(request)).toHaveLength(2);
    expect(verifyStandard(request, NEWEST_SECRET)).toEqual(request.body);
    expect(verifyStandard(request, NEW_SECRET)).toEqual(request.body);
    expect(refusedBy(request, OLD_SECRET)).toBe('No matching signature found');
    expect(signatureIsValid(request, NEWEST_SECRET)).toBe(true);
  });

  it('signs a delivery already queued with the secrets current when it is sent', async () => {
    const { id, path, received } = await webhook(tenant, ['order.status_changed']);
    // The first attempt is refused (500) only once the secret is rotated: its retry is sent after the rotation.
    let rotated!: () => void;
    const rotation = new Promise<void>((resolve) => (rotated = resolve));
    let first = true;
    setup.receiver.answer = (request) => (first && request.path === path ? ((first = false), { status: 500, until: rotation }) : { status: 200 });
    try {
      await fire([STATUS_CHANGED]);
      await waitFor('the first attempt', () => received().length >= 1);
      expect(verifyStandard(received()[0]!, OLD_SECRET)).toEqual(received()[0]!.body);
      expect((await rotate(id, { secret: NEW_SECRET, overlapSeconds: 0 })).status).toBe(200);
    } finally {
      rotated();
    }
    await waitFor('the retry', () => received().length >= 2);
    const retried = received()[1]!;
    expect(retried.headers['webhook-id']).toBe(received()[0]!.headers['webhook-id']);
    expect(verifyStandard(retried, NEW_SECRET)).toEqual(retried.body);
    expect(refusedBy(retried, OLD_SECRET)).toBe('No matching signature found');
    expect(signatureIsValid(retried, NEW_SECRET)).toBe(true);
  });

  it.each([
    ['a secret under 32 characters', { secret: 'x'.repeat(31) }, 'secret'],
    ['no secret', { overlapSeconds: 60 }, 'secret'],
    ['an overlap over seven days', { secret: NEW_SECRET, overlapSeconds: 7 * 86_400 + 1 }, 'overlapSeconds'],
    ['a negative overlap', { secret: NEW_SECRET, overlapSeconds: -1 }, 'overlapSeconds'],
    ['a fractional overlap', { secret: NEW_SECRET, overlapSeconds: 1.5 }, 'overlapSeconds'],
  ])('refuses %s with VALIDATION_ERROR naming the field, and keeps the secret', async (_what, body, field) => {
    const { id, received } = await webhook();
    const response = await rotate(id, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    const request = await testSend(id, received);
    expect(signaturesIn(request)).toHaveLength(1);
    expect(verifyStandard(request, OLD_SECRET)).toEqual(request.body);
  });

  it("answers 404 for an unknown webhook and for another tenant's, whose secret stays as it was", async () => {
    const { id, received } = await webhook(other);
    for (const target of [id, randomUUID(), 'not-a-uuid']) {
      const response = await rotate(target, { secret: NEW_SECRET });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    const request = await testSend(id, received, other);
    expect(signaturesIn(request)).toHaveLength(1);
    expect(verifyStandard(request, OLD_SECRET)).toEqual(request.body);
    expect(refusedBy(request, NEW_SECRET)).toBe('No matching signature found');
  });

  it('needs the webhooks:manage permission', async () => {
    const { id } = await webhook();
    const { api } = await setup.ctx.issueKey(tenant.slug, { permissions: ['orders:write'] });
    const response = await api.post(`/webhooks/${id}/rotate-secret`, { secret: NEW_SECRET });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });
});
