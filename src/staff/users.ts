import type { Selectable, Updateable } from 'kysely';
import type { Executor, Tx } from '../db';
import { conflict, notFound } from '../http/errors';
import { clearUserSignInFailures } from './limits';
import { hashPin } from './pins';
import type { StaffRole, StaffTables } from './tables';

export type UserRow = Selectable<StaffTables['staff_users']>;

export interface UserView {
  id: string;
  username: string;
  name: string;
  role: StaffRole;
  disabled: boolean;
  createdAt: string;
}

export const userView = (row: UserRow): UserView => ({
  id: row.id,
  username: row.username,
  name: row.name,
  role: row.role,
  disabled: row.disabled_at !== null,
  createdAt: row.created_at.toISOString(),
});

/** Usernames are case-insensitive: stored and looked up lower-case. */
export const normalUsername = (username: string) => username.toLowerCase();

/** A user to create, with its PIN hashed: scrypt is slow on purpose, so it runs before the write's transaction. */
export interface NewUser {
  username: string;
  name: string;
  role: StaffRole;
  pinHash: string;
}

export async function newUser(input: { username: string; name: string; role: StaffRole; pin: string }): Promise<NewUser> {
  return { username: normalUsername(input.username), name: input.name, role: input.role, pinHash: await hashPin(input.pin) };
}

/** Creates the user; 409 while an active user of the tenant has its username. */
export async function createUser(tx: Tx, tenantId: string, user: NewUser): Promise<{ user: UserView }> {
  const { username } = user;
  const row = await tx
    .insertInto('staff_users')
    .values({ tenant_id: tenantId, username, name: user.name, role: user.role, pin_hash: user.pinHash })
    .onConflict((oc) => oc.columns(['tenant_id', 'username']).where('disabled_at', 'is', null).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw conflict(`Username ${username} is taken in this warehouse`);
  return { user: userView(row) };
}

export async function listUsers(db: Executor, tenantId: string): Promise<UserView[]> {
  const rows = await db.selectFrom('staff_users').selectAll().where('tenant_id', '=', tenantId).orderBy('username').execute();
  return rows.map(userView);
}

/** Disables the user and ends every session of it in the same transaction: its next request answers 401. */
export async function disableUser(tx: Tx, userId: string): Promise<{ user: UserView }> {
  const row = await tx
    .updateTable('staff_users')
    .set((eb) => ({ disabled_at: eb.fn.coalesce('disabled_at', eb.fn<Date>('now')) }))
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(`User ${userId}`);
  await tx.deleteFrom('staff_sessions').where('user_id', '=', userId).execute();
  return { user: userView(row) };
}

/**
 * Changes an active user; 404 for an unknown id, 409 for a disabled one (its row is history: a
 * new user is made under the freed username instead).
 */
async function changeActiveUser(tx: Tx, userId: string, change: Updateable<StaffTables['staff_users']>): Promise<UserRow> {
  const row = await tx.updateTable('staff_users').set(change).where('id', '=', userId).where('disabled_at', 'is', null).returningAll().executeTakeFirst();
  if (row) return row;
  const exists = await tx.selectFrom('staff_users').select('id').where('id', '=', userId).executeTakeFirst();
  throw exists ? conflict(`User ${userId} is disabled; create a new user instead`) : notFound(`User ${userId}`);
}

/**
 * Sets a PIN hashed before the transaction (hashPin) and ends every session of the user with it:
 * whoever had the old PIN is out. The user's failed sign-ins are cleared too: the new PIN works at
 * once, even where failures had locked the user out.
 */
export async function setUserPin(tx: Tx, userId: string, pinHash: string): Promise<{ user: UserView }> {
  const row = await changeActiveUser(tx, userId, { pin_hash: pinHash });
  await tx.deleteFrom('staff_sessions').where('user_id', '=', userId).execute();
  const { slug } = await tx.selectFrom('tenants').select('slug').where('id', '=', row.tenant_id).executeTakeFirstOrThrow();
  await clearUserSignInFailures(tx, slug, row.username);
  return { user: userView(row) };
}

/** Sets the role; sessions stay, and each console request reads the role afresh (sessions.ts). */
export async function setUserRole(tx: Tx, userId: string, role: StaffRole): Promise<{ user: UserView }> {
  return { user: userView(await changeActiveUser(tx, userId, { role })) };
}
