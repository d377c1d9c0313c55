import { randomUUID } from 'node:crypto';
import { createPickportClient, signWebhook, verifyWebhook, WebhookVerificationError, type PickportClient, type WebhookVerificationCode } from '@pickport/client';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { useDeliveries } from '../helpers/setup';
import { waitFor } from '../helpers/wait';
import { type ReceivedRequest } from '../webhooks/receiver';
import { listen } from './service';

const SECRET = 'the-receivers-secret-0123456789abcdef';
const NEW_SECRET = 'the-rotated-secret-0123456789abcdefghij';
const BODY = JSON.stringify({ event: 'order.status_changed', timestamp: '2026-11-23T10:00:00.000Z', data: { externalId: 'SO-1', status: 'PICKED' } });

/** The standardwebhooks package keyed as docs/webhooks.md says: the base64 of the secret's bytes. */
const standard = (secret: string) => new Webhook(Buffer.from(secret).toString('base64'));

/** The code verifyWebhook refuses with, or null when it accepts. */
function refusal(...args: Parameters<typeof verifyWebhook>): WebhookVerificationCode | null {
  try {
    verifyWebhook(...args);
    return null;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}

describe('verifyWebhook and signWebhook', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('signs what the standardwebhooks package verifies, and verifies what it signs', () => {
    const headers = signWebhook(BODY, SECRET);
    expect(standard(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(() => standard(NEW_SECRET).verify(BODY, headers)).toThrow('No matching signature found');

    const id = `msg_${randomUUID()}`;
    const sentAt = new Date();
    const theirs = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': standard(SECRET).sign(id, sentAt, BODY),
    };
    expect(verifyWebhook(BODY, theirs, SECRET)).toEqual({ id, timestamp: Math.floor(sentAt.getTime() / 1000), payload: JSON.parse(BODY) });
    expect(refusal(BODY, theirs, NEW_SECRET)).toBe('BAD_SIGNATURE');
  });

  it('signs with several secrets, each verifiable alone by either library', () => {
    const headers = signWebhook(Buffer.from(BODY), [NEW_SECRET, SECRET]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [NEW_SECRET, SECRET]) {
      expect(standard(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
      expect(verifyWebhook(BODY, headers, secret).payload).toEqual(JSON.parse(BODY));
    }
    expect(refusal(BODY, headers, 'a-third-secret-0123456789abcdefghijk')).toBe('BAD_SIGNATURE');
  });

  it('refuses a changed body, id or timestamp, a missing or foreign signature', () => {
    const headers = signWebhook(BODY, SECRET);
    expect(refusal(BODY.replace('PICKED', 'PACKED'), headers, SECRET)).toBe('BAD_SIGNATURE');
    expect(refusal(BODY, { ...headers, 'webhook-id': randomUUID() }, SECRET)).toBe('BAD_SIGNATURE');
    expect(refusal(BODY, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, SECRET)).toBe('BAD_SIGNATURE');
    expect(refusal(BODY, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, SECRET)).toBe('NO_SIGNATURE');
    expect(refusal(BODY, { ...headers, 'webhook-signature': 'v1,not-base64!' }, SECRET)).toBe('BAD_SIGNATURE');
    expect(refusal(BODY, { ...headers, 'webhook-signature': undefined }, SECRET)).toBe('NO_SIGNATURE');
    expect(refusal(BODY, {}, SECRET)).toBe('NO_SIGNATURE');
    // Headers as fetch gives them, names in any case.
    expect(refusal(BODY, new Headers(headers), SECRET)).toBeNull();
    expect(refusal(BODY, Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v])), SECRET)).toBeNull();
  });

  it('refuses a timestamp outside the tolerance, either way', () => {
    const now = Math.floor(Date.now() / 1000);
    const at = (seconds: number) => signWebhook(BODY, SECRET, { timestamp: seconds });
    expect(refusal(BODY, at(now - 290), SECRET)).toBeNull();
    expect(refusal(BODY, at(now - 310), SECRET)).toBe('TIMESTAMP_TOO_OLD');
    expect(refusal(BODY, at(now + 310), SECRET)).toBe('TIMESTAMP_TOO_NEW');
    expect(refusal(BODY, at(now - 50), SECRET, { toleranceSeconds: 30 })).toBe('TIMESTAMP_TOO_OLD');
    expect(refusal(BODY, at(now - 3000), SECRET, { toleranceSeconds: 3600 })).toBeNull();
    // A delivery captured now and presented six minutes later.
    const captured = signWebhook(BODY, SECRET);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect(refusal(BODY, captured, SECRET)).toBe('TIMESTAMP_TOO_OLD');
  });
});

describe('verifyWebhook on deliveries from the service', () => {
  const setup = useDeliveries();
  let pickport: PickportClient;

  beforeAll(async () => {
    pickport = createPickportClient({ baseUrl: await listen(setup.ctx), apiKey: (await setup.ctx.tenant(UNLIMITED)).key });
  });

  async function webhook() {
    const path = `/${randomUUID()}`;
    const created = await pickport.webhooks.create({ url: `${setup.receiver.url}${path}`, events: ['product.stock_updated', 'order.status_changed'], secret: SECRET });
    return { id: created.data.id, received: () => setup.receiver.requests.filter((r) => r.path === `/hook${path}`) };
  }

  const verify = (request: ReceivedRequest, secret: string) => verifyWebhook(request.raw, request.headers, secret);

  it('verifies the deliveries of real events, webhook-id being the event id', async () => {
    const { received } = await webhook();
    await pickport.products.upsert({ externalId: 'P-1', sku: 'S-1', name: 'Mug', stock: 5 });
    await pickport.products.upsert({ externalId: 'P-1', sku: 'S-1', name: 'Mug', stock: 3 });
    const [delivery] = await waitFor('the stock update delivery', () => (received().length ? received() : null));
    const verified = verify(delivery!, SECRET);
    expect(verified.id).toBe(delivery!.headers['x-service-event-id']);
    expect(verified.payload).toMatchObject({ event: 'product.stock_updated', data: { sku: 'S-1', previousStock: 5, newStock: 3, reason: 'INVENTORY_SYNC' } });
    expect(refusal(delivery!.raw, delivery!.headers, NEW_SECRET)).toBe('BAD_SIGNATURE');
    const tampered = Buffer.from(delivery!.raw.toString('utf8').replace('"newStock":3', '"newStock":300'));
    expect(tampered.equals(delivery!.raw)).toBe(false);
    expect(refusal(tampered, delivery!.headers, SECRET)).toBe('BAD_SIGNATURE');
  });

  it('verifies a test send, and refuses it once it is stale', async () => {
    const { id, received } = await webhook();
    const sent = await pickport.webhooks.test(id, { event: 'order.status_changed' });
    expect(sent.data.delivered).toBe(true);
    const [delivery] = received();
    expect(verify(delivery!, SECRET)).toMatchObject({ id: sent.data.eventId, payload: { event: 'order.status_changed', test: true } });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 301_000);
    expect(refusal(delivery!.raw, delivery!.headers, SECRET)).toBe('TIMESTAMP_TOO_OLD');
    vi.useRealTimers();
  });

  it('verifies with the old or the new secret during a rotation overlap, and only the new one after it', async () => {
    const { id, received } = await webhook();
    const rotated = await pickport.webhooks.rotateSecret(id, { secret: NEW_SECRET, overlapSeconds: 3600 });
    expect(rotated.data.previousSecretExpiresAt).not.toBeNull();
    await pickport.webhooks.test(id, { event: 'order.status_changed' });
    const during = received().at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(during, SECRET).payload.test).toBe(true);
    expect(verify(during, NEW_SECRET).payload.test).toBe(true);

    await pickport.webhooks.rotateSecret(id, { secret: `${NEW_SECRET}-2`, overlapSeconds: 0 });
    await pickport.webhooks.test(id, { event: 'order.status_changed' });
    const after = received().at(-1)!;
    expect(verify(after, `${NEW_SECRET}-2`).payload.test).toBe(true);
    expect(refusal(after.raw, after.headers, NEW_SECRET)).toBe('BAD_SIGNATURE');
    expect(refusal(after.raw, after.headers, SECRET)).toBe('BAD_SIGNATURE');
  });
});
