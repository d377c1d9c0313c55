/**
 * What the rate limiter and its stores share: the limits a bucket is counted against, what a store
 * answers, and the store's interface. The limiter (rate-limit.ts) chooses a store and judges its
 * tallies; the stores (the in-memory one there, Redis in rate-limit-redis.ts) only count. Both
 * sides import this module and neither imports the other's, so there is no import circle.
 */

/** Milliseconds since the epoch; injectable so tests can move time instead of waiting. */
export type Clock = () => number;

export interface RateLimits {
  perMinute: number;
  /** Per UTC day; undefined for buckets without a daily quota (source addresses). */
  perDay: number | undefined;
}

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
 * Keeps the sliding windows. Every request is counted, refused ones included: retrying sooner
 * adds to the counter.
 */
export interface WindowStore {
  count(bucket: string, limits: RateLimits): Promise<WindowTally>;
  health(): 'ok' | 'degraded';
  close(): Promise<void>;
}
