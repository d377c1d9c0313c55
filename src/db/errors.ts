/** Whether PostgreSQL refused a write because `constraint` (a unique index) already holds its key. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e.code === '23505' && e.constraint === constraint;
}

/** deadlock_detected and serialization_failure: PostgreSQL rolled the work back, and running it again is safe. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
export const isRetryableAbort = (error: unknown) => RETRYABLE_SQLSTATES.has((error as { code?: string }).code ?? '');

/** Whether a statement gave up waiting for a lock (lock_timeout). */
export const isLockTimeout = (error: unknown) => (error as { code?: string }).code === '55P03';

/** Whether a write tried as one statement aborted itself because it needs a transaction (migration 021). */
export const isWriteNeedingTransaction = (error: unknown) => (error as { code?: string }).code === 'PPTX1';

/**
 * Thrown by a write's work when a row it had read as absent was written meanwhile by a concurrent
 * transaction (its statement failed on a unique index): the transaction rolls back and the work
 * runs again from the start (runWrite), now reading that row.
 */
export class WriteRaced extends Error {
  constructor(cause: unknown) {
    super('a row the write read as absent was written by a concurrent transaction', { cause });
  }
}
