import { sql } from 'kysely';
import type { Executor } from '../db';
import { ApiError } from '../http/errors';
import { MINUTE_MS } from '../http/rate-limit';

/**
 * Failed sign-ins allowed per fixed window: per warehouse and username (guessing one user's PIN)
 * and per client address (trying many users from one place). Counted in the database, so they
 * hold across instances. Once a key reaches its limit, sign-ins under it answer 429 until the
 * window ends, whatever the PIN: a right PIN does not get through either.
 */
export const SIGN_IN_LIMITS = {
  user: { failures: 5, windowMs: 15 * MINUTE_MS },
  address: { failures: 50, windowMs: 15 * MINUTE_MS },
} as const;

export interface LimitKeys {
  user: string;
  address: string;
}

/** The key of one user's failures: its warehouse (the tenant's slug) and username, both lower-case. */
const userLimitKey = (warehouse: string, username: string) => `user:${warehouse}:${username}`;

export const limitKeys = (warehouse: string, username: string, address: string): LimitKeys => ({
  user: userLimitKey(warehouse, username),
  address: `address:${address}`,
});

/** 429 RATE_LIMIT_EXCEEDED with the seconds to wait when either key has used up its window. */
export async function checkSignInLimits(db: Executor, keys: LimitKeys, now: number): Promise<void> {
  const rows = await db
    .selectFrom('staff_sign_in_failures')
    .selectAll()
    .where('key', 'in', [keys.user, keys.address])
    .where('window_ends_at', '>', new Date(now))
    .execute();
  const blocked = rows.filter((row) => row.failures >= SIGN_IN_LIMITS[row.key === keys.user ? 'user' : 'address'].failures);
  if (blocked.length === 0) return;
  const until = Math.max(...blocked.map((row) => row.window_ends_at.getTime()));
  const retryAfter = Math.max(1, Math.ceil((until - now) / 1000));
  throw new ApiError('RATE_LIMIT_EXCEEDED', `Too many failed sign-ins; try again in ${retryAfter} seconds`, undefined, retryAfter);
}

/** Counts one failure against both keys, starting a new window where the last one ended. */
export async function recordSignInFailure(db: Executor, keys: LimitKeys, now: number): Promise<void> {
  for (const [kind, key] of [['user', keys.user], ['address', keys.address]] as const) {
    const at = new Date(now);
    const ends = new Date(now + SIGN_IN_LIMITS[kind].windowMs);
    await sql`
      INSERT INTO staff_sign_in_failures AS f (key, failures, window_ends_at) VALUES (${key}, 1, ${ends})
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE WHEN f.window_ends_at <= ${at} THEN 1 ELSE f.failures + 1 END,
        window_ends_at = CASE WHEN f.window_ends_at <= ${at} THEN ${ends} ELSE f.window_ends_at END`.execute(db);
  }
}

/** After a good sign-in: the user's count starts again (the address's does not), and ended windows go. */
export async function clearSignInFailures(db: Executor, keys: LimitKeys, now: number): Promise<void> {
  await db.deleteFrom('staff_sign_in_failures').where((eb) => eb.or([eb('key', '=', keys.user), eb('window_ends_at', '<=', new Date(now))])).execute();
}

/**
 * After an operator sets a user's PIN: its count starts again, so a user locked out by failures
 * (its own forgotten PIN, or someone guessing it) signs in with the new PIN at once. The
 * addresses' counts stay.
 */
export async function clearUserSignInFailures(db: Executor, warehouse: string, username: string): Promise<void> {
  await db.deleteFrom('staff_sign_in_failures').where('key', '=', userLimitKey(warehouse, username)).execute();
}
