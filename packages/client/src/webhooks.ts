import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { operations } from './schema.js';

/** The events a webhook can subscribe to. */
export type WebhookEventName = operations['createWebhook']['requestBody']['content']['application/json']['events'][number];

/** The JSON body of every delivery. */
export interface WebhookPayload {
  event: WebhookEventName;
  /** When the event happened, ISO 8601 UTC. */
  timestamp: string;
  data: Record<string, unknown>;
  /** Present on test sends. */
  test?: true;
}

export interface VerifiedWebhook {
  /** `webhook-id`: the event's id, the same on every attempt and replay; deduplicate on it. */
  id: string;
  /** `webhook-timestamp`: when this attempt was sent, Unix seconds. */
  timestamp: number;
  payload: WebhookPayload;
}

export type WebhookVerificationCode = 'NO_SIGNATURE' | 'BAD_SIGNATURE' | 'TIMESTAMP_TOO_OLD' | 'TIMESTAMP_TOO_NEW';

/** A delivery that must not be trusted; answer it 4xx (401) and do not process it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from this machine's clock, either way. Default 300 s. */
  toleranceSeconds?: number;
}

/**
 * Checks a delivery's Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the webhook's secret, over the raw body bytes as received (before
 * any JSON parsing), and answers the parsed payload. Any one of the space-separated `v1,`
 * signatures matching is enough: during a secret rotation's overlap Pickport sends one per secret.
 * Signatures are compared in constant time. Throws WebhookVerificationError.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): VerifiedWebhook {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = (header(headers, 'webhook-signature') ?? '')
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  if (!id || !timestamp || signatures.length === 0) {
    throw new WebhookVerificationError('NO_SIGNATURE', 'The request carries no webhook-id, webhook-timestamp and v1 webhook-signature');
  }
  const expected = signature(secret, id, timestamp, rawBody);
  if (!signatures.some((given) => given.length === expected.length && timingSafeEqual(given, expected))) {
    throw new WebhookVerificationError('BAD_SIGNATURE', 'No webhook-signature matches the secret');
  }
  // The signature covers the timestamp, so a genuine one cannot be moved: a replay is too old.
  const sentAt = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Date.now() / 1000;
  if (!Number.isInteger(sentAt) || sentAt < now - tolerance) {
    throw new WebhookVerificationError('TIMESTAMP_TOO_OLD', `webhook-timestamp is more than ${tolerance} s old`);
  }
  if (sentAt > now + tolerance) throw new WebhookVerificationError('TIMESTAMP_TOO_NEW', `webhook-timestamp is more than ${tolerance} s ahead`);
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return { id, timestamp: sentAt, payload: JSON.parse(text) as WebhookPayload };
}

export interface SignOptions {
  /** Default: a new UUID. */
  id?: string;
  /** Unix seconds; default now. */
  timestamp?: number;
}

/**
 * The Standard Webhooks headers Pickport would send with this body, signed with each secret
 * (several during a rotation's overlap): for a receiver's own tests.
 */
export function signWebhook(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  options: SignOptions = {},
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const id = options.id ?? randomUUID();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((each) => `v1,${signature(each, id, timestamp, rawBody).toString('base64')}`).join(' '),
  };
}

/** HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the secret's UTF-8 bytes. */
function signature(secret: string, id: string, timestamp: string, rawBody: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(rawBody).digest();
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((each) => each.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}
