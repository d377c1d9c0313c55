import { createHmac, randomUUID } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { SERVICE_VERSION } from '../version';
import { DestinationError, resolveDestination, type DestinationPolicy } from './destination';

export type DeliveryErrorCode = 'TIMEOUT' | 'CONNECTION_REFUSED' | 'DNS' | 'TLS' | 'HTTP_STATUS' | 'BLOCKED_DESTINATION';
export const DELIVERY_ERROR_CODES = ['TIMEOUT', 'CONNECTION_REFUSED', 'DNS', 'TLS', 'HTTP_STATUS', 'BLOCKED_DESTINATION'] as const;

/** How much of a receiver's answer is kept with the attempt. */
const RESPONSE_BODY_LIMIT = 4096;

export interface WebhookMessage {
  url: string;
  secret: string;
  /** The secret a rotation replaced, while its overlap lasts: webhook-signature then carries both. */
  previousSecret?: string | null;
  event: string;
  eventId: string;
  /** When the event fired, ISO 8601. */
  timestamp: string;
  data: unknown;
  test?: boolean;
}

export interface SendOptions {
  timeoutMs: number;
  /** Checked on the resolved address, immediately before connecting. */
  destinations: DestinationPolicy;
}

export interface AttemptOutcome {
  /** The X-Service-Delivery-Id sent, new for every attempt. */
  deliveryId: string;
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  error: DeliveryErrorCode | null;
  responseBody: string | null;
  /** The receiver's Retry-After on a 429 or 503, in milliseconds. */
  retryAfterMs: number | null;
}

export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`
 * keyed by each secret's UTF-8 bytes, space-separated, so a receiver holding any one of them verifies.
 */
export function signStandard(id: string, timestampSeconds: number, body: Buffer, secrets: readonly string[]): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secret).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`)
    .join(' ');
}

// Keep-alive pools: a delivery burst to one receiver reuses connections. A pooled socket was
// opened to an address that passed the destination check when it connected.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

class TimeoutError extends Error {}

/**
 * One attempt: POSTs the signed JSON body and classifies what happened. Never throws; every way
 * an attempt can fail is an outcome. Redirects are not followed (a 3xx is a failed attempt).
 */
export async function sendWebhook(message: WebhookMessage, options: SendOptions): Promise<AttemptOutcome> {
  const deliveryId = randomUUID();
  const started = performance.now();
  const sentAt = Math.floor(Date.now() / 1000);
  const body = Buffer.from(
    JSON.stringify({ event: message.event, timestamp: message.timestamp, data: message.data, ...(message.test ? { test: true } : {}) }),
  );
  const secrets = message.previousSecret ? [message.secret, message.previousSecret] : [message.secret];
  const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
    deliveryId,
    delivered: false,
    statusCode: null,
    error: null,
    responseBody: null,
    retryAfterMs: null,
    ...fields,
    durationMs: Math.round(performance.now() - started),
  });

  let timer: NodeJS.Timeout | undefined;
  let abort: (error: Error) => void = () => {};
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new TimeoutError(`no answer within ${options.timeoutMs} ms`);
      abort(error);
      reject(error);
    }, options.timeoutMs);
  });
  timedOut.catch(() => {});
  try {
    const url = new URL(message.url);
    const destination = await Promise.race([resolveDestination(url, options.destinations), timedOut]);
    const pinned: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: destination.address, family: destination.family }]);
      else callback(null, destination.address, destination.family);
    };
    const response = await Promise.race([
      new Promise<{ status: number; text: string; retryAfter: string | undefined }>((resolve, reject) => {
        const transport = url.protocol === 'https:' ? https : http;
        const request = transport.request(
          url,
          {
            method: 'POST',
            agent: agents[url.protocol as 'http:' | 'https:'],
            lookup: pinned,
            headers: {
              'content-type': 'application/json',
              'content-length': body.length,
              'user-agent': `Pickport-Webhooks/${SERVICE_VERSION}`,
              'x-service-signature': signBody(body, message.secret),
              'x-service-event': message.event,
              'x-service-timestamp': message.timestamp,
              'x-service-delivery-id': deliveryId,
              'x-service-event-id': message.eventId,
              // Standard Webhooks: the id is the event's, the same on every attempt; the timestamp is this attempt's.
              'webhook-id': message.eventId,
              'webhook-timestamp': String(sentAt),
              'webhook-signature': signStandard(message.eventId, sentAt, body, secrets),
            },
          },
          (res) => readResponse(res).then(resolve, reject),
        );
        abort = (error) => request.destroy(error);
        request.on('error', reject);
        request.end(body);
      }),
      timedOut,
    ]);
    const delivered = response.status >= 200 && response.status < 300;
    return outcome({
      delivered,
      statusCode: response.status,
      error: delivered ? null : 'HTTP_STATUS',
      responseBody: response.text,
      retryAfterMs: response.status === 429 || response.status === 503 ? parseRetryAfter(response.retryAfter) : null,
    });
  } catch (error) {
    return outcome({ error: classify(error) });
  } finally {
    clearTimeout(timer);
  }
}

async function readResponse(res: IncomingMessage) {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (kept < RESPONSE_BODY_LIMIT) {
      chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
      kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT - kept);
    }
  }
  const retryAfter = res.headers['retry-after'];
  // PostgreSQL text cannot hold NUL.
  const text = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '');
  return { status: res.statusCode ?? 0, text, retryAfter };
}

/** Retry-After as delay-seconds or an HTTP date. */
function parseRetryAfter(value: string | undefined): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);

function classify(error: unknown): DeliveryErrorCode {
  if (error instanceof TimeoutError) return 'TIMEOUT';
  if (error instanceof DestinationError) return error.code;
  const code = String((error as NodeJS.ErrnoException).code ?? '');
  if (DNS_CODES.has(code)) return 'DNS';
  if (/^(ERR_TLS|ERR_SSL|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'TLS';
  // Refused, reset, unreachable, closed without an answer: the receiver was not reachable.
  return 'CONNECTION_REFUSED';
}
