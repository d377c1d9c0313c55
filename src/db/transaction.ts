import type { Db, Tx } from './index';

/** deadlock_detected and serialization_failure: PostgreSQL rolled the transaction back, and running it again is safe. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

/**
 * Runs `work` in one transaction, running it again when PostgreSQL aborted it as a deadlock victim.
 * Locks taken in a fixed order keep deadlocks rare (see src/orders/store.ts); this keeps the rare
 * one from reaching the client as a 500. `work` must do nothing outside the transaction.
 */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !RETRYABLE_SQLSTATES.has(code)) throw error;
    }
  }
}
