import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../db';
import { ApiError } from '../http/errors';
import { checkSignInLimits, clearSignInFailures, limitKeys, recordSignInFailure, type LimitKeys } from './limits';
import { unknownUserHash, verifyPin } from './pins';
import type { StaffRole } from './tables';
import { normalUsername } from './users';

/** A session ends after this long unused… */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** …and this long after sign-in, however much it is used. */
export const SESSION_MAX_MS = 24 * 60 * 60 * 1000;
/** The idle expiry is moved on at most this often, so that reads do not each write. */
const IDLE_REFRESH_MS = 60 * 1000;

export interface Me {
  user: { id: string; username: string; name: string; role: StaffRole };
  warehouse: { slug: string; name: string };
}

export interface Session extends Me {
  tenantId: string;
  tokenHash: string;
}

/** Only the SHA-256 of a session token is stored: a copy of the table opens no session. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

const signInRefused = () => new ApiError('UNAUTHORIZED', 'Unknown warehouse, user or PIN');

/** A user whose sign-in passed the limits and the PIN check: what a new session is made of. */
export interface VerifiedSignIn {
  user: Me['user'] & { tenantId: string };
  warehouse: Me['warehouse'];
  keys: LimitKeys;
}

/**
 * Checks a sign-in: the limits of limits.ts (429 once used up), then the warehouse, user and PIN.
 * Wrong warehouse, user or PIN and a disabled user all answer the same 401, after the same PIN
 * check, and the failure is recorded at once: it counts against the limits whatever happens next.
 */
export async function verifySignIn(
  db: Executor,
  input: { warehouse: string; username: string; pin: string; address: string },
  now: number,
): Promise<VerifiedSignIn> {
  const warehouse = input.warehouse.toLowerCase();
  const username = normalUsername(input.username);
  const keys = limitKeys(warehouse, username, input.address);
  await checkSignInLimits(db, keys, now);
  const user = await db
    .selectFrom('staff_users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id', 'u.tenant_id', 'u.username', 'u.name', 'u.role', 'u.pin_hash', 'u.disabled_at', 't.slug', 't.name as tenant_name'])
    .where('t.slug', '=', warehouse)
    .where('u.username', '=', username)
    // The active user of that name, else a disabled one (refused below, after the same PIN check).
    .orderBy(sql`u.disabled_at IS NULL`, 'desc')
    .orderBy('u.disabled_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const pinMatches = await verifyPin(input.pin, user?.pin_hash ?? (await unknownUserHash()));
  if (!user || !pinMatches || user.disabled_at !== null) {
    await recordSignInFailure(db, keys, now);
    throw signInRefused();
  }
  return {
    user: { id: user.id, tenantId: user.tenant_id, username: user.username, name: user.name, role: user.role },
    warehouse: { slug: user.slug, name: user.tenant_name },
    keys,
  };
}

/** Starts a session for a verified sign-in, clearing its failures; its token (for the cookie) is never stored. */
export async function startSession(tx: Tx, verified: VerifiedSignIn, now: number): Promise<{ token: string; session: Session }> {
  const { user, warehouse, keys } = verified;
  await clearSignInFailures(tx, keys, now);
  const token = randomBytes(32).toString('base64url');
  const hash = tokenHash(token);
  await tx.deleteFrom('staff_sessions').where('expires_at', '<=', new Date(now)).execute();
  await tx
    .insertInto('staff_sessions')
    .values({
      token_hash: hash,
      tenant_id: user.tenantId,
      user_id: user.id,
      idle_expires_at: new Date(now + SESSION_IDLE_MS),
      expires_at: new Date(now + SESSION_MAX_MS),
    })
    .execute();
  const { tenantId, ...shown } = user;
  return { token, session: { tenantId, tokenHash: hash, user: shown, warehouse } };
}

/** The live session of a token, its idle expiry moved on; undefined when unknown, expired or its user disabled. */
export async function sessionOf(db: Db, token: string, now: number): Promise<Session | undefined> {
  const hash = tokenHash(token);
  const row = await db
    .selectFrom('staff_sessions as s')
    .innerJoin('staff_users as u', 'u.id', 's.user_id')
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .select(['s.idle_expires_at', 's.expires_at', 'u.id', 'u.tenant_id', 'u.username', 'u.name', 'u.role', 'u.disabled_at', 't.slug', 't.name as tenant_name'])
    .where('s.token_hash', '=', hash)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.disabled_at !== null || row.expires_at.getTime() <= now || row.idle_expires_at.getTime() <= now) {
    await endSession(db, hash);
    return undefined;
  }
  const idleExpiry = Math.min(now + SESSION_IDLE_MS, row.expires_at.getTime());
  if (idleExpiry - row.idle_expires_at.getTime() >= IDLE_REFRESH_MS) {
    await db.updateTable('staff_sessions').set({ idle_expires_at: new Date(idleExpiry) }).where('token_hash', '=', hash).execute();
  }
  return {
    tenantId: row.tenant_id,
    tokenHash: hash,
    user: { id: row.id, username: row.username, name: row.name, role: row.role },
    warehouse: { slug: row.slug, name: row.tenant_name },
  };
}

export async function endSession(db: Executor, hash: string): Promise<void> {
  await db.deleteFrom('staff_sessions').where('token_hash', '=', hash).execute();
}
