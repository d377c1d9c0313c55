import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included; 1 turns retries off. Default 4. */
  attempts?: number;
  /** The first back-off when the answer names no `Retry-After`; it doubles at each attempt. Default 500 ms. */
  baseDelayMs?: number;
  /**
   * The longest wait the client takes on: a `Retry-After` beyond it (a spent daily limit) is
   * answered to the caller at once, as a PickportError carrying `retryAfter`. Default 60 s.
   */
  maxDelayMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (retry: RetryEvent) => void;
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  method: string;
  url: string;
  /** The answer's status (429, 503, or a 409 with Retry-After); undefined after a network error. */
  status?: number;
  /** The network error; undefined after an answer. */
  error?: unknown;
}

/**
 * Answers worth the same request again, later: rate limited, the service briefly unavailable, or
 * (409 with `Retry-After`) a race lost to a concurrent request (CONCURRENT_UPDATE) or the same
 * idempotency key still being processed by an earlier attempt.
 * A 409 without it (a key reused for another request, a state conflict) is final.
 */
const retried = (response: Response) =>
  response.status === 429 || response.status === 503 || (response.status === 409 && response.headers.has('retry-after'));

/**
 * Wraps fetch so that 429, 503, a 409 that names a Retry-After, and network errors are retried with the same request (the same
 * `X-Idempotency-Key` included, which is what makes retrying a write safe). A `Retry-After` is
 * waited in full, plus up to a fifth more (at most 1 s) so that clients refused together do not
 * come back together; without one, exponential back-off with jitter.
 */
export function retryingFetch(fetch: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const attempts = Math.max(1, options.attempts ?? 4);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const backOff = (attempt: number) => Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);

  return async (request: Request): Promise<Response> => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      let response: Response;
      try {
        // A body can be read once: every attempt but the last sends a copy.
        response = await fetch(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        const delayMs = backOff(attempt);
        options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url, error });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (last || !retried(response)) return response;
      const asked = retryAfterSeconds(response.headers.get('retry-after'));
      if (asked !== undefined && asked * 1000 > maxDelayMs) return response;
      const delayMs = asked === undefined ? backOff(attempt) : asked * 1000 + Math.random() * Math.min(1000, asked * 200);
      options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url, status: response.status });
      await response.body?.cancel();
      await sleep(delayMs, request.signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
