import type { Db, Tx } from './index';
import { isRetryableAbort } from './errors';
import { attachRiders, type TransactionRiders } from './riders';

const ATTEMPTS = 3;

/**
 * Runs `work` in one transaction, running it again when PostgreSQL aborted it as a deadlock victim.
 * Locks taken in a fixed order keep deadlocks rare (see src/orders/store.ts); this keeps the rare
 * one from reaching the client as a 500. `work` must do nothing outside the transaction.
 *
 * `work` may set `riders.beforeCommit`, which rides with COMMIT (riders.ts). Each attempt has
 * riders of its own; `genericPlans` is given to each.
 */
export async function inTransaction<T>(db: Db, work: (tx: Tx, riders: TransactionRiders) => Promise<T>, genericPlans = false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const riders: TransactionRiders = genericPlans ? { genericPlans } : {};
    try {
      return await db.transaction().execute(async (tx) => {
        await attachRiders(tx, riders);
        return work(tx, riders);
      });
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableAbort(error)) throw error;
    }
  }
}
