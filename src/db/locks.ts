import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './index';
import type { Bindable } from './prepared';

/**
 * Every advisory lock the service takes, in one place, so that no two kinds of lock can share a
 * key by accident. PostgreSQL has two key spaces: one 64-bit key, and two 32-bit keys (a class and
 * a key within it), which never collide with each other.
 *
 * - 64-bit keys: the migrations' one key, and a key per tenant and product externalId (hashed,
 *   orders/store.ts) that serializes order intake against the catalog writes that can resolve or
 *   free something for orders.
 * - The classes below, in the two-key space, each serialize one kind of whole-set write.
 */

/** One instance migrates at a time. */
export const MIGRATIONS_LOCK_KEY = 7364021;

export const LOCK_CLASS = {
  /** A tenant's floor description (layout and locations): each write replaces a whole set. */
  floor: 13,
  /** A picker's wave start: two starts by one picker at once get the same wave. */
  pickerWave: 14,
  /** A console user's take of a replenishment task: they hold one at a time. */
  replenisher: 15,
  /**
   * A barcode of a tenant's catalog (lower case), taken by the products' trigger of migration 038
   * before it checks a product barcode against the packagings' and back.
   */
  barcode: 16,
} as const;

/** Takes the transaction-scoped lock of `key` (hashed to 32 bits) in `lockClass`, waiting for it. */
export async function lockInClass(tx: Executor, lockClass: (typeof LOCK_CLASS)[keyof typeof LOCK_CLASS], key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${lockClass}, hashtext(${key}::text))`.execute(tx);
}

/** SQL taking the 64-bit key of one of a tenant's products (the externalId is SQL), yielding true. */
export function productKeySql(tenantId: Bindable<string>, externalId: RawBuilder<string>): RawBuilder<boolean> {
  return sql<boolean>`(pg_advisory_xact_lock(${productKey(tenantId, externalId)})::text IS NOT NULL)`;
}

/** The 64-bit key of a tenant's product, as SQL (the externalId is SQL). */
export function productKey(tenantId: Bindable<string>, externalId: RawBuilder<string>): RawBuilder<bigint> {
  return sql<bigint>`hashtextextended(${tenantId}::text || ':' || ${externalId}, 0)`;
}
