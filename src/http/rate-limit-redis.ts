import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Clock, RateLimits, WindowStore, WindowTally } from './rate-limit';

/**
 * Counts one request atomically, on the Redis server's clock (or ARGV[4] when a test injects
 * time). KEYS[1]: sorted set of the window's request times; KEYS[2]: hash {day, count}.
 * ARGV: perMinute, perDay (0: none), windowMs, nowMs or '', a unique member.
 * Returns {nowMs, inWindowBefore, pivotMs, dayCount}, the fields of WindowTally.
 */
const COUNT_SCRIPT = `
local perMinute = tonumber(ARGV[1])
local perDay = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local before = redis.call('ZCARD', KEYS[1])
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], windowMs)
local counted = before + 1
local pivot = 0
if counted > perMinute then pivot = counted - perMinute end
local pivotMs = tonumber(redis.call('ZRANGE', KEYS[1], pivot, pivot, 'WITHSCORES')[2])
local dayCount = 0
if perDay > 0 then
  local day = math.floor(now / 86400000)
  if tonumber(redis.call('HGET', KEYS[2], 'day')) == day then
    dayCount = redis.call('HINCRBY', KEYS[2], 'count', 1)
  else
    redis.call('HSET', KEYS[2], 'day', day, 'count', 1)
    dayCount = 1
  end
  redis.call('PEXPIRE', KEYS[2], (day + 1) * 86400000 + windowMs - now)
end
return {now, before, pivotMs, dayCount}
`;

interface CountingRedis extends Redis {
  countRequest(window: string, day: string, ...args: (string | number)[]): Promise<[number, number, number, number]>;
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
  #failing = false;

  constructor(private readonly options: RedisWindowStoreOptions) {
    this.#redis = new Redis(options.url, {
      lazyConnect: true,
      // Fail fast rather than queue requests behind a dead connection; reconnection goes on meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
    }) as CountingRedis;
    this.#redis.defineCommand('countRequest', { numberOfKeys: 2, lua: COUNT_SCRIPT });
    this.#redis.on('error', (error: Error) => this.#markFailing(error));
    this.#redis.on('ready', () => this.#markWorking());
  }

  /** Waits for the first connection so that the first requests share the window; never throws. */
  async connect(): Promise<void> {
    await this.#redis.connect().catch((error: Error) => this.#markFailing(error));
  }

  async count(bucket: string, limits: RateLimits): Promise<WindowTally> {
    const key = `${this.options.keyPrefix}rl:{${bucket}}`;
    try {
      const [nowMs, inWindowBefore, pivotMs, dayCount] = await this.#redis.countRequest(
        `${key}:window`,
        `${key}:day`,
        limits.perMinute,
        limits.perDay ?? 0,
        this.options.windowMs,
        this.options.clock ? this.options.clock() : '',
        randomUUID(),
      );
      this.#markWorking();
      return { nowMs, inWindowBefore, pivotMs, dayCount };
    } catch (error) {
      this.#markFailing(error as Error);
      return this.options.fallback.count(bucket, limits);
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
