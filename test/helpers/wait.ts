import { sql, type ControlledTransaction, type Kysely, type Transaction } from 'kysely';
import { SETTLE_MARGIN_MS, settledBefore } from '../../src/db/settled';
import type { Database } from '../../src/db/schema';

/** Polls `condition` until it holds or the deadline passes (then fails with `what`). */
export async function waitFor<T>(what: string, condition: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Resolves once listings by updatedAt (src/db/settled.ts) show every write committed before the
 * call: the service's settled time, as its listings read it, has passed the database's clock at
 * the call. Waits longer while a transaction of the service runs (as the listings do).
 */
export async function settled(db: Kysely<Database>, timeoutMs = 15_000): Promise<void> {
  const { rows } = await sql<{ now: string }>`SELECT clock_timestamp()::text AS now`.execute(db);
  const calledAt = rows[0]!.now;
  await waitFor(
    'the writes so far to show in listings by updatedAt',
    async () => {
      const horizon = await settledBefore(db);
      const { rows } = await sql<{ passed: boolean }>`SELECT ${horizon}::timestamptz > ${calledAt}::timestamptz AS passed`.execute(db);
      return rows[0]!.passed;
    },
    timeoutMs,
  );
}

/**
 * The settle margin, slept: only to show that a write is NOT listed for as long as something holds
 * it back (a transaction still running), where there is no event to wait for. To wait for writes
 * to show, use `settled`.
 */
export const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MARGIN_MS + 50));

/**
 * A write that starts first and commits last (`lateWrite`, in a transaction held open) while a
 * later one commits (`laterWrite`): what `list` shows while the first is still running (once the
 * later one has settled), and once both have committed and settled.
 */
export async function listAroundLateCommit<T>(
  db: Kysely<Database>,
  lateWrite: (trx: Transaction<Database>) => Promise<unknown>,
  laterWrite: () => Promise<unknown>,
  list: () => Promise<T>,
): Promise<{ whileRunning: T; afterCommit: T }> {
  const late = await db.startTransaction().execute();
  let whileRunning: T;
  try {
    await lateWrite(late);
    await laterWrite();
    // Sleeps: the later write must stay unlisted while the late one runs, so there is nothing to wait for.
    await settle();
    whileRunning = await list();
    await late.commit().execute();
  } finally {
    await late.rollback().execute().catch(() => undefined);
  }
  await settled(db);
  return { whileRunning, afterCommit: await list() };
}

export type HeldTransaction = ControlledTransaction<Database>;

/** A transaction held open on its own connection (PostgreSQL), with that connection's backend pid. */
export async function holdTransaction(db: Kysely<Database>): Promise<{ trx: HeldTransaction; pid: number }> {
  const trx = await db.startTransaction().execute();
  const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
  return { trx, pid: Number(rows[0]?.pid) };
}

/** Resolves once the backend `pid` waits for a lock; fails if it never does. */
export async function waitsForLock(db: Kysely<Database>, pid: number): Promise<void> {
  await waitFor(
    `backend ${pid} to wait for a lock`,
    async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE pid = ${pid} AND NOT granted`.execute(db);
      return Number(rows[0]?.n) > 0;
    },
    5_000,
  );
}
