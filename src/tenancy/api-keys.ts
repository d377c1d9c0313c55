import { createHash, randomInt } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Executor, Tx } from '../db';
import { conflict, notFound } from '../http/errors';
import type { TenancyTables } from './tables';
import { tenantIdOf } from './tenants';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_PATTERN = /^pk_live_[A-Za-z0-9]{40}$/;
/** How much of a key is kept readable, to tell keys apart in listings. */
const SHOWN_PREFIX_LENGTH = 12;

/** `pk_live_` and 40 characters drawn uniformly by a CSPRNG. */
export function generateApiKey(): string {
  let body = '';
  for (let i = 0; i < 40; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `pk_live_${body}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function shownPrefix(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

/** The key with this hash, whatever its state; callers judge revocation and expiry. */
export function findApiKeyByHash(db: Executor, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .select([
      'id',
      'tenant_id',
      'permissions',
      'rate_limit_per_minute',
      'daily_limit',
      'allowed_ips',
      'expires_at',
      'revoked_at',
    ])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
}

const KEY_COLUMNS = [
  'id',
  'name',
  'prefix',
  'permissions',
  'rate_limit_per_minute',
  'daily_limit',
  'allowed_ips',
  'expires_at',
  'revoked_at',
  'created_at',
] as const;

export type ApiKeyRow = Pick<Selectable<TenancyTables['api_keys']>, (typeof KEY_COLUMNS)[number]>;

export interface KeyInput {
  name?: string | undefined;
  permissions: string[];
  rateLimitPerMinute?: number | undefined;
  dailyLimit?: number | undefined;
  allowedIps?: string[] | undefined;
  expiresAt?: string | undefined;
}

/** A new key for the tenant the slug names (404 otherwise): its row, and the key itself, which is stored only hashed. */
export async function issueApiKey(tx: Tx, slug: string, input: KeyInput): Promise<{ row: ApiKeyRow; key: string }> {
  const tenantId = await tenantIdOf(tx, slug);
  const key = generateApiKey();
  const row = await tx
    .insertInto('api_keys')
    .values({
      tenant_id: tenantId,
      name: input.name ?? null,
      key_hash: hashApiKey(key),
      prefix: shownPrefix(key),
      permissions: input.permissions,
      rate_limit_per_minute: input.rateLimitPerMinute ?? 60,
      daily_limit: input.dailyLimit ?? 10_000,
      allowed_ips: input.allowedIps?.length ? input.allowedIps : null,
      expires_at: input.expiresAt ? new Date(input.expiresAt) : null,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
  return { row, key };
}

export async function listApiKeys(db: Executor, slug: string): Promise<ApiKeyRow[]> {
  const tenantId = await tenantIdOf(db, slug);
  return db.selectFrom('api_keys').select(KEY_COLUMNS).where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
}

/** Revokes the key (a revoked key keeps its first revocation time); 404 for an unknown id. */
export async function revokeApiKey(tx: Tx, id: string): Promise<{ row: ApiKeyRow; keyHash: string }> {
  const revoked = await tx
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning([...KEY_COLUMNS, 'key_hash'])
    .executeTakeFirst();
  if (!revoked) throw notFound('API key');
  const { key_hash: keyHash, ...row } = revoked;
  return { row, keyHash };
}

/**
 * Revokes the key and issues a new one with the same tenant, name, permissions, limits, allow list
 * and expiry. A revoked key cannot be rotated (409), an unknown one is 404.
 */
export async function rotateApiKey(tx: Tx, id: string): Promise<{ row: ApiKeyRow; key: string; oldKeyHash: string }> {
  const old = await tx
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!old) {
    const exists = await tx.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst();
    throw exists ? conflict('A revoked key cannot be rotated; issue a new key instead') : notFound('API key');
  }
  const key = generateApiKey();
  const row = await tx
    .insertInto('api_keys')
    .values({
      tenant_id: old.tenant_id,
      name: old.name,
      key_hash: hashApiKey(key),
      prefix: shownPrefix(key),
      permissions: old.permissions,
      rate_limit_per_minute: old.rate_limit_per_minute,
      daily_limit: old.daily_limit,
      allowed_ips: old.allowed_ips,
      expires_at: old.expires_at,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
  return { row, key, oldKeyHash: old.key_hash };
}
