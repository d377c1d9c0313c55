import type { components } from './schema.js';

export type ErrorEnvelope = components['schemas']['ErrorResponse'];
/** Every code the API answers with; each always comes with the same HTTP status. */
export type ErrorCode = ErrorEnvelope['error']['code'];
export type ErrorDetail = NonNullable<ErrorEnvelope['error']['details']>[number];

/**
 * An answer of the API that is not a success, after any retries. `code` is the API's error code,
 * or `UNEXPECTED_RESPONSE` when the answer was not the API's error envelope (a proxy's error page).
 */
export class PickportError extends Error {
  override readonly name = 'PickportError';
  readonly status: number;
  readonly code: ErrorCode | 'UNEXPECTED_RESPONSE';
  /** Per field, what was refused (validation errors). */
  readonly details: ErrorDetail[];
  /** The id to quote to support; the body's `requestId`, else the `X-Request-Id` header. */
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait (rate limit, service unavailable). */
  readonly retryAfter: number | undefined;

  constructor(response: Response, body: unknown) {
    const envelope = isErrorEnvelope(body) ? body : undefined;
    super(envelope?.error.message ?? `Unexpected answer: HTTP ${response.status}`);
    this.status = response.status;
    this.code = envelope?.error.code ?? 'UNEXPECTED_RESPONSE';
    this.details = envelope?.error.details ?? [];
    this.requestId = envelope?.requestId ?? response.headers.get('x-request-id') ?? undefined;
    this.retryAfter = envelope?.error.retryAfter ?? retryAfterSeconds(response.headers.get('retry-after'));
  }
}

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null) return false;
  const { success, error } = body as { success?: unknown; error?: { code?: unknown } };
  return success === false && typeof error?.code === 'string';
}

/** `Retry-After` as seconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
