import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { needsApiKey } from './auth';
import { ApiError } from './errors';
import { RedisWindowStore } from './rate-limit-redis';

/** Milliseconds since the epoch; injectable so tests can move time instead of waiting. */
export type Clock = () => number;

export const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface RateLimits {
  perMinute: number;
  /** Per UTC day; undefined for buckets without a daily quota (source addresses). */
  perDay: number | undefined;
}

/**
 * Requests without a valid key are counted per source address, so that guessing keys is as slow
 * as the default key's minute limit. No daily quota there: an address bucket can be forgotten as
 * soon as its window is empty.
 */
export const ADDRESS_LIMITS: RateLimits = { perMinute: 60, perDay: undefined };

/** What a store reports after counting one request in a bucket. */
export interface WindowTally {
  /** The store's clock when it counted the request. */
  nowMs: number;
  /** Requests in the window (the last `windowMs`) before this one. */
  inWindowBefore: number;
  /**
   * When the request that must leave the window for the next request to pass was counted: the
   * oldest one while the bucket is under its limit; when over, the one that brings it back under.
   */
  pivotMs: number;
  /** Requests of the UTC day, this one included (0 without a daily quota). */
  dayCount: number;
}

/**
 * Keeps the sliding windows. Every request is counted, refused ones included (spec §8 rule 3:
 * retrying sooner adds to the counter).
 */
export interface WindowStore {
  count(bucket: string, limits: RateLimits): Promise<WindowTally>;
  health(): 'ok' | 'degraded';
  close(): Promise<void>;
}

interface Bucket {
  /** Times of the counted requests, ascending; entries before `head` have left the window. */
  log: number[];
  head: number;
  day: number;
  dayCount: number;
}

/** One instance's windows: a log of request times per bucket. */
export class MemoryWindowStore implements WindowStore {
  readonly #buckets = new Map<string, Bucket>();
  #lastSweep: number;

  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
  ) {
    this.#lastSweep = clock();
  }

  async count(bucketName: string, limits: RateLimits): Promise<WindowTally> {
    const now = this.clock();
    this.#sweep(now);
    const day = Math.floor(now / DAY_MS);
    let bucket = this.#buckets.get(bucketName);
    if (!bucket) {
      bucket = { log: [], head: 0, day, dayCount: 0 };
      this.#buckets.set(bucketName, bucket);
    }
    const { log } = bucket;
    while (bucket.head < log.length && log[bucket.head]! <= now - this.windowMs) bucket.head++;
    if (bucket.head > 1024 && bucket.head * 2 > log.length) {
      log.splice(0, bucket.head);
      bucket.head = 0;
    }
    const inWindowBefore = log.length - bucket.head;
    // A clock that steps back must not unsort the log.
    log.push(Math.max(now, log.at(-1) ?? now));
    if (bucket.day !== day) {
      bucket.day = day;
      bucket.dayCount = 0;
    }
    if (limits.perDay !== undefined) bucket.dayCount++;
    const counted = inWindowBefore + 1;
    const pivot = counted > limits.perMinute ? counted - limits.perMinute : 0;
    return { nowMs: now, inWindowBefore, pivotMs: log[bucket.head + pivot]!, dayCount: bucket.dayCount };
  }

  /** Drops buckets with an empty window and no count for today, at most once a window. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.windowMs) return;
    this.#lastSweep = now;
    const today = Math.floor(now / DAY_MS);
    for (const [name, bucket] of this.#buckets) {
      const newest = bucket.log.at(-1) ?? -Infinity;
      if (newest <= now - this.windowMs && (bucket.dayCount === 0 || bucket.day !== today)) this.#buckets.delete(name);
    }
  }

  health(): 'ok' {
    return 'ok';
  }

  async close(): Promise<void> {
    this.#buckets.clear();
  }
}

export interface Verdict {
  limit: number;
  remaining: number;
  /** Unix seconds: when the next slot frees up (or, past the daily limit, when the UTC day ends). */
  resetSeconds: number;
  refusal: ApiError | undefined;
}

/** Turns a tally into the rate-limit headers and, past a limit, the 429 to answer. */
export function judge(tally: WindowTally, limits: RateLimits, windowMs: number): Verdict {
  const now = tally.nowMs;
  const overMinute = tally.inWindowBefore >= limits.perMinute;
  const overDay = limits.perDay !== undefined && tally.dayCount > limits.perDay;
  const slotFreesAt = tally.pivotMs + windowMs;
  const dayEndsAt = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  const resetMs = overDay ? Math.max(slotFreesAt, dayEndsAt) : slotFreesAt;
  const verdict: Verdict = {
    limit: limits.perMinute,
    remaining: overDay ? 0 : Math.max(0, limits.perMinute - tally.inWindowBefore - 1),
    resetSeconds: Math.ceil(resetMs / 1000),
    refusal: undefined,
  };
  if (!overMinute && !overDay) return verdict;
  const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000));
  const message = overDay
    ? `Daily limit of ${limits.perDay} requests per UTC day exceeded; retry after midnight UTC, in ${retryAfter} seconds`
    : `Rate limit of ${limits.perMinute} requests per minute exceeded; retry in ${retryAfter} seconds`;
  verdict.refusal = new ApiError('RATE_LIMIT_EXCEEDED', message, undefined, retryAfter);
  return verdict;
}

export interface RateLimitOptions {
  clock?: Clock;
  /** The sliding window; 60 s unless a test shortens it. */
  windowMs?: number;
}

/**
 * Counts every request to a route that needs a key (spec §8): per API key once the caller is
 * known, per source address otherwise. Installed between identification and refusal, so that
 * 401 and 403 answers are counted and carry the headers too. Off when `config.rateLimiting` is false.
 */
export function installRateLimiting(scope: FastifyInstance, options: RateLimitOptions = {}): void {
  const { config } = scope;
  if (config.rateLimiting === false) return;
  const clock = options.clock ?? Date.now;
  const windowMs = options.windowMs ?? MINUTE_MS;
  const memory = new MemoryWindowStore(clock, windowMs);
  const store: WindowStore = config.redisUrl
    ? new RedisWindowStore({
        url: config.redisUrl,
        keyPrefix: config.redisKeyPrefix ?? 'pickport:',
        windowMs,
        // Redis keeps the time (its own clock) unless a test injects one.
        clock: options.clock,
        fallback: memory,
        log: scope.log,
      })
    : memory;
  if (store instanceof RedisWindowStore) {
    scope.healthChecks.set('redis', async () => store.health());
    scope.addHook('onReady', () => store.connect());
  }
  scope.addHook('onClose', () => store.close());

  scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!needsApiKey(request)) return;
    const key = request.apiKey;
    const limits = key ? { perMinute: key.rateLimitPerMinute, perDay: key.dailyLimit } : ADDRESS_LIMITS;
    const tally = await store.count(key ? `key:${key.id}` : `ip:${request.ip}`, limits);
    const verdict = judge(tally, limits, windowMs);
    reply.header('x-ratelimit-limit', String(verdict.limit));
    reply.header('x-ratelimit-remaining', String(verdict.remaining));
    reply.header('x-ratelimit-reset', String(verdict.resetSeconds));
    if (verdict.refusal) {
      scope.metrics.rateLimited(key ? 'key' : 'address');
      throw verdict.refusal;
    }
  });
}
