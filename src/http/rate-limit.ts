import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { needsApiKey } from './auth';
import { ApiError, errorBody } from './errors';
import type { RedisWindowStore } from './rate-limit-redis';
import type { Clock, RateLimits, WindowStore, WindowTally } from './rate-limit-store';

/** The clock the rest of the service passes to rate limiting, idempotency and sessions. */
export type { Clock } from './rate-limit-store';

export const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Requests without a valid key are counted per source address, so that guessing keys is as slow
 * as the default key's minute limit. No daily quota there: an address bucket can be forgotten as
 * soon as its window is empty.
 */
export const ADDRESS_LIMITS: RateLimits = { perMinute: 60, perDay: undefined };

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
  // Past the daily limit the day's end frees a request, and the minute's slot too only when the minute is spent as well.
  const resetMs = overDay ? (overMinute ? Math.max(slotFreesAt, dayEndsAt) : dayEndsAt) : slotFreesAt;
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

declare module 'fastify' {
  interface FastifyRequest {
    /** A request judged ahead of its verdict (see `installRateLimiting`); null once the verdict is applied. */
    rateLimitAhead: { verdict: Promise<Verdict>; headersBefore: Set<string> } | null;
  }
}

/**
 * A key's bucket is judged ahead of its verdict only while this instance last saw it at least this
 * share of its limits away from refusal; closer to a limit, requests wait for their verdict first,
 * so that a caller at its limit is refused before its request costs the database anything.
 */
const HEADROOM_SHARE = 0.1;
/** Buckets whose headroom is remembered; past it the memory starts over (only keys' buckets are kept). */
const MAX_REMEMBERED_BUCKETS = 10_000;

/**
 * Counts every request to a route that needs a key: per API key once the caller is
 * known, per source address otherwise. Installed between identification and refusal, so that
 * 401 and 403 answers are counted and carry the headers too. Off when `config.rateLimiting` is false.
 *
 * The verdict decides every answer, but a request of a key well under its limits does not wait for
 * it before its work: on Redis the count is a round trip to another process, which for one request
 * at a time cost as much as the write's own statement (docs/benchmarks.md, catalog). Such a
 * request runs on while its count is on its way, and the verdict is applied before anything of it
 * is visible: before its transaction commits (`applyRateLimitVerdict` in respondWithWrite, so that
 * a refused write rolls back), and in any case before its answer is sent (onSend), which a refusal
 * replaces with the 429. Routes that do work before their transaction (`idempotencyLookupFirst`)
 * and callers without a valid key always wait.
 */
export function installRateLimiting(scope: FastifyInstance, options: RateLimitOptions = {}): void {
  const { config } = scope;
  if (config.rateLimiting === false) return;
  const clock = options.clock ?? Date.now;
  const windowMs = options.windowMs ?? MINUTE_MS;
  const memory = new MemoryWindowStore(clock, windowMs);
  let store: WindowStore = memory;
  const { redisUrl } = config;
  if (redisUrl) {
    let redis: RedisWindowStore | undefined;
    // The Redis client (ioredis) is loaded here, before the server takes requests, rather than with
    // the service's modules: a service without REDIS_URL starts without it.
    scope.addHook('onReady', async () => {
      const { RedisWindowStore } = await import('./rate-limit-redis');
      redis = new RedisWindowStore({
        url: redisUrl,
        keyPrefix: config.redisKeyPrefix ?? 'pickport:',
        windowMs,
        // Redis keeps the time (its own clock) unless a test injects one.
        clock: options.clock,
        fallback: memory,
        log: scope.log,
      });
      store = redis;
      await redis.connect();
    });
    scope.healthChecks.set('redis', async () => redis?.health() ?? 'degraded');
  }
  scope.addHook('onClose', () => store.close());
  /** Per key bucket: requests this instance may still judge ahead of their verdict. */
  const headroom = new Map<string, number>();

  scope.decorateRequest('rateLimitAhead', null);
  scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!needsApiKey(request)) return done();
    const key = request.apiKey;
    const limits = key ? { perMinute: key.rateLimitPerMinute, perDay: key.dailyLimit } : ADDRESS_LIMITS;
    const bucket = key ? `key:${key.id}` : `ip:${request.ip}`;
    const verdict = store.count(bucket, limits).then((tally) => {
      const judged = judge(tally, limits, windowMs);
      if (key) {
        if (headroom.size >= MAX_REMEMBERED_BUCKETS) headroom.clear();
        const dayLeft = limits.perDay === undefined ? Infinity : limits.perDay - tally.dayCount;
        const margin = Math.ceil(Math.min(limits.perMinute, limits.perDay ?? Infinity) * HEADROOM_SHARE);
        headroom.set(bucket, Math.min(judged.remaining, dayLeft) - margin);
      }
      return judged;
    });
    const ahead = key ? (headroom.get(bucket) ?? 0) : 0;
    if (ahead > 0 && !request.routeOptions.config.idempotencyLookupFirst) {
      headroom.set(bucket, ahead - 1);
      request.rateLimitAhead = { verdict, headersBefore: new Set(Object.keys(reply.getHeaders())) };
      return done();
    }
    verdict.then((judged) => {
      try {
        applyVerdict(request, reply, judged);
      } catch (refusal) {
        return done(refusal as ApiError);
      }
      done();
    }, done);
  });
  // Whatever the answer, it leaves with its verdict: a refusal replaces it.
  scope.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (!request.rateLimitAhead) return done(null, payload);
    applyRateLimitVerdict(request, reply).then(
      () => done(null, payload),
      (error: unknown) => {
        const refusal = error as ApiError;
        reply.status(refusal.statusCode).header('retry-after', String(refusal.retryAfter)).type('application/json; charset=utf-8');
        done(null, JSON.stringify(errorBody(request.id, refusal)));
      },
    );
  });

}

/** Sets the rate-limit headers of a verdict, and throws its refusal. */
function applyVerdict(request: FastifyRequest, reply: FastifyReply, verdict: Verdict): void {
  reply.header('x-ratelimit-limit', String(verdict.limit));
  reply.header('x-ratelimit-remaining', String(verdict.remaining));
  reply.header('x-ratelimit-reset', String(verdict.resetSeconds));
  if (verdict.refusal) {
    request.server.metrics.rateLimited(request.apiKey ? 'key' : 'address');
    throw verdict.refusal;
  }
}

/**
 * Waits for the verdict of a request judged ahead of it (installRateLimiting) and applies it: its
 * headers, and its refusal thrown. Nothing to do for a request that waited for its verdict.
 */
export async function applyRateLimitVerdict(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const ahead = request.rateLimitAhead;
  if (!ahead) return;
  request.rateLimitAhead = null;
  const verdict = await ahead.verdict;
  if (verdict.refusal) {
    // The answer is the refusal alone, without what the request's work set on it (a Location).
    for (const name of Object.keys(reply.getHeaders())) if (!ahead.headersBefore.has(name)) reply.removeHeader(name);
  }
  applyVerdict(request, reply, verdict);
}
