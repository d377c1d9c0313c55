import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Clock, RateLimits, WindowStore, WindowTally } from './rate-limit-store';

/**
 * Counts n requests of one bucket atomically, as if they came one after another at the same
 * time: the Redis server's clock, or ARGV[4] when a test injects time. KEYS[1]: sorted set of the
 * window's request times (score: ms; member: unique per request); KEYS[2]: hash of request counts
 * by UTC day number (today's, and yesterday's until the first request of today deletes it).
 * ARGV: perMinute, perDay (0: none), windowMs, nowMs or '', n, a member prefix unique to this call.
 * Returns {nowMs, inWindowBefore of the first request, dayCount after the last (0 without a daily
 * quota), then the pivot times of the ranks max(0, before + 1 - perMinute) to max(0, before + n - perMinute)}.
 * Seven commands whatever n; the day key's expiry is set only by the first request of a day.
 */
const COUNT_SCRIPT = `
local perMinute = tonumber(ARGV[1])
local perDay = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = time[1] * 1000 + math.floor(time[2] / 1000)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local before = redis.call('ZCARD', KEYS[1])
local entries = {}
for i = 1, n do
  entries[2 * i - 1] = now
  entries[2 * i] = ARGV[6] .. i
end
redis.call('ZADD', KEYS[1], unpack(entries))
redis.call('PEXPIRE', KEYS[1], windowMs)
local dayCount = 0
if perDay > 0 then
  local today = math.floor(now / 86400000)
  dayCount = redis.call('HINCRBY', KEYS[2], today, n)
  if dayCount == n then
    redis.call('HDEL', KEYS[2], today - 1)
    redis.call('PEXPIRE', KEYS[2], (today + 1) * 86400000 + windowMs - now)
  end
end
local reply = {now, before, dayCount}
local pivots = redis.call('ZRANGE', KEYS[1], math.max(0, before + 1 - perMinute), math.max(0, before + n - perMinute), 'WITHSCORES')
for i = 2, #pivots, 2 do reply[#reply + 1] = tonumber(pivots[i]) end
return reply
`;

/** At most this many requests per script call (Lua's unpack has a stack limit). */
const MAX_BATCH = 500;

interface CountingRedis extends Redis {
  countRequests(window: string, day: string, ...args: (string | number)[]): Promise<number[]>;
}

/** The requests of one bucket waiting for the next script call, and how to answer each. */
interface Batch {
  bucket: string;
  limits: RateLimits;
  waiters: ((tally: WindowTally | Promise<WindowTally>) => void)[];
}

export interface RedisWindowStoreOptions {
  url: string;
  /** Put before every key, so that deployments (and parallel test runs) sharing a Redis never collide. */
  keyPrefix: string;
  windowMs: number;
  clock: Clock | undefined;
  /** Counts while Redis is unreachable: the API keeps serving, limited per instance. */
  fallback: WindowStore;
  log: FastifyBaseLogger;
}

/** Windows shared by every instance through Redis; falls back to this instance's memory when Redis is down. */
export class RedisWindowStore implements WindowStore {
  readonly #redis: CountingRedis;
  /** Window members are this instance's random prefix, a call's sequence number and its request's index: unique, and short. */
  readonly #memberPrefix = randomBytes(6).toString('base64url');
  #sequence = 0;
  /** Per bucket, the requests waiting for their script call. */
  readonly #pending = new Map<string, Batch>();
  /** Per bucket, how many script calls are on their way to Redis and back. */
  readonly #inFlight = new Map<string, number>();
  #flushScheduled = false;
  #failing = false;

  constructor(private readonly options: RedisWindowStoreOptions) {
    this.#redis = new Redis(options.url, {
      lazyConnect: true,
      // Fail fast rather than queue requests behind a dead connection; reconnection goes on meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
    }) as CountingRedis;
    this.#redis.defineCommand('countRequests', { numberOfKeys: 2, lua: COUNT_SCRIPT });
    this.#redis.on('error', (error: Error) => this.#markFailing(error));
    this.#redis.on('ready', () => this.#markWorking());
  }

  /** Waits for the first connection so that the first requests share the window; never throws. */
  async connect(): Promise<void> {
    await this.#redis.connect().catch((error: Error) => this.#markFailing(error));
  }

  /**
   * Requests of one bucket share script calls: those that arrive in the same turn of the event
   * loop are sent together once the turn's I/O is handled (setImmediate), and while a bucket's call
   * is on its way, the bucket's new requests wait and go together in the next call when it is back.
   * One command and one reply serve many requests (that is where a Redis round trip costs, on both
   * sides), the more so the busier the bucket; a request waits at most for one call before its own.
   */
  count(bucket: string, limits: RateLimits): Promise<WindowTally> {
    let batch = this.#pending.get(bucket);
    if (batch && (batch.limits.perMinute !== limits.perMinute || batch.limits.perDay !== limits.perDay || batch.waiters.length >= MAX_BATCH)) {
      this.#pending.delete(bucket);
      void this.#send(batch);
      batch = undefined;
    }
    if (!batch) {
      batch = { bucket, limits, waiters: [] };
      this.#pending.set(bucket, batch);
      if (!this.#inFlight.has(bucket)) this.#scheduleFlush();
    }
    const waiters = batch.waiters;
    return new Promise((resolve) => waiters.push(resolve));
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(this.#flush);
  }

  /** Sends the waiting requests of every bucket that has no call on its way. */
  readonly #flush = (): void => {
    this.#flushScheduled = false;
    for (const [bucket, batch] of this.#pending) {
      if (this.#inFlight.has(bucket)) continue;
      this.#pending.delete(bucket);
      void this.#send(batch);
    }
  };

  async #send({ bucket, limits, waiters }: Batch): Promise<void> {
    const key = `${this.options.keyPrefix}rl:{${bucket}}`;
    const n = waiters.length;
    this.#inFlight.set(bucket, (this.#inFlight.get(bucket) ?? 0) + 1);
    try {
      const reply = await this.#redis.countRequests(
        `${key}:window`,
        `${key}:day`,
        limits.perMinute,
        limits.perDay ?? 0,
        this.options.windowMs,
        this.options.clock ? this.options.clock() : '',
        n,
        `${this.#memberPrefix}${(this.#sequence++).toString(36)}.`,
      );
      this.#markWorking();
      const [nowMs, before, dayTotal] = reply as [number, number, number];
      const firstPivot = Math.max(0, before + 1 - limits.perMinute);
      for (let i = 0; i < n; i++) {
        waiters[i]!({
          nowMs,
          inWindowBefore: before + i,
          pivotMs: reply[3 + Math.max(0, before + i + 1 - limits.perMinute) - firstPivot]!,
          dayCount: limits.perDay === undefined ? 0 : dayTotal - n + i + 1,
        });
      }
    } catch (error) {
      this.#markFailing(error as Error);
      for (const resolve of waiters) resolve(this.options.fallback.count(bucket, limits));
    } finally {
      const left = this.#inFlight.get(bucket)! - 1;
      if (left > 0) this.#inFlight.set(bucket, left);
      else this.#inFlight.delete(bucket);
      // The requests that came meanwhile go next, with those of the current turn.
      if (left === 0 && this.#pending.has(bucket)) this.#scheduleFlush();
    }
  }

  #markFailing(error: Error): void {
    if (!this.#failing) {
      this.options.log.warn({ err: error }, 'Redis unreachable; rate limits fall back to this instance (fail open)');
    }
    this.#failing = true;
  }

  #markWorking(): void {
    if (this.#failing) this.options.log.info('Redis is back; rate limits are shared again');
    this.#failing = false;
  }

  health(): 'ok' | 'degraded' {
    return this.#redis.status === 'ready' && !this.#failing ? 'ok' : 'degraded';
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
    await this.options.fallback.close();
  }
}
