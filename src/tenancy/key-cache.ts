import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db';
import { findApiKeyByHash } from './api-keys';

/** Where the trigger of migration 007 announces, with the key's hash, every change to a key. */
export const API_KEYS_CHANNEL = 'pickport_api_keys';
/** A cached key is looked up again after this long even when no change was heard (a bound, not the mechanism). */
export const CACHED_KEY_TTL_MS = 30_000;
const MAX_CACHED_KEYS = 10_000;
const RESUBSCRIBE_DELAY_MS = 1_000;

export type ApiKeyRecord = NonNullable<Awaited<ReturnType<typeof findApiKeyByHash>>>;

/**
 * API keys by hash, so that a request does not cost a database lookup of its key. Keys only change
 * by being revoked (or rotated, which revokes), and every change NOTIFYs each instance at its commit,
 * which forgets the key: a revoked key is refused everywhere within the time a notification takes
 * to arrive. While this instance is not subscribed (before `start`, or after its connection was
 * lost, until it is back) nothing is cached and every request looks its key up.
 */
export class ApiKeyCache {
  readonly #database: DatabaseHandle;
  readonly #log: FastifyBaseLogger;
  readonly #entries = new Map<string, { key: ApiKeyRecord; freshUntil: number }>();
  /**
   * Moves whenever what the cache may hold changes (a key forgotten, the subscription lost or
   * regained); a lookup that started before a move does not store what it read, which may predate it.
   */
  #generation = 0;
  #subscribed = false;
  #stopped = false;
  #unsubscribe: (() => Promise<void>) | undefined;
  #resubscribeTimer: NodeJS.Timeout | undefined;

  constructor(database: DatabaseHandle, log: FastifyBaseLogger) {
    this.#database = database;
    this.#log = log;
  }

  /** Subscribes to key changes; until this resolves, keys are looked up without caching. */
  async start(): Promise<void> {
    await this.#subscribe();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#resubscribeTimer);
    this.#subscribed = false;
    this.#entries.clear();
    await this.#unsubscribe?.();
  }

  /** The key with this hash, whatever its state (callers judge revocation and expiry). */
  async find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const now = Date.now();
    const cached = this.#entries.get(keyHash);
    if (cached && cached.freshUntil > now) return cached.key;
    const generation = this.#generation;
    const key = await findApiKeyByHash(this.#database.db, keyHash);
    if (key && this.#subscribed && generation === this.#generation) this.#remember(keyHash, key, now);
    return key;
  }

  /** Drops one key; called for each change heard, and by the instance that made the change. */
  forget(keyHash: string): void {
    this.#generation++;
    this.#entries.delete(keyHash);
  }

  #remember(keyHash: string, key: ApiKeyRecord, now: number): void {
    this.#entries.delete(keyHash);
    if (this.#entries.size >= MAX_CACHED_KEYS) {
      // Maps iterate in insertion order: the first entry is the one stored longest ago.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(keyHash, { key, freshUntil: now + CACHED_KEY_TTL_MS });
  }

  async #subscribe(): Promise<void> {
    try {
      const unsubscribe = await this.#database.listen(API_KEYS_CHANNEL, (keyHash) => this.forget(keyHash), () => this.#lost());
      if (this.#stopped) {
        await unsubscribe();
        return;
      }
      this.#unsubscribe = unsubscribe;
      this.#generation++;
      this.#subscribed = true;
    } catch (err) {
      this.#log.warn({ err }, 'cannot subscribe to API key changes; looking every key up until it can');
      this.#resubscribeLater();
    }
  }

  #lost(): void {
    this.#subscribed = false;
    this.#generation++;
    this.#entries.clear();
    this.#log.warn('lost the subscription to API key changes; looking every key up until it is back');
    this.#resubscribeLater();
  }

  #resubscribeLater(): void {
    if (this.#stopped) return;
    this.#resubscribeTimer = setTimeout(() => void this.#subscribe(), RESUBSCRIBE_DELAY_MS);
    this.#resubscribeTimer.unref();
  }
}
