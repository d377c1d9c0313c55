import { createHash, randomInt } from 'node:crypto';
import type { Executor } from '../db';

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
