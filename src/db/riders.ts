import type { CompiledQuery, DatabaseConnection, QueryExecutor } from 'kysely';

/**
 * A statement that travels with a transaction's COMMIT instead of costing a round trip of its own
 * (the stored answer of an idempotent write, src/http/write.ts). On PostgreSQL it goes in one write
 * with COMMIT, its parameters bound by the protocol (postgres-dialect.ts, in pipeline mode); on the
 * embedded database, where a round trip costs nothing, it runs on its own.
 */
export interface TransactionRiders {
  /**
   * Runs right before COMMIT; set by the transaction's work once it knows what to write. If it
   * fails, the transaction rolls back. It may be named with `prepared` (prepared.ts).
   */
  beforeCommit?: CompiledQuery;
  /**
   * Every statement of the transaction runs on its generic plan, set with BEGIN in the same write
   * (PostgreSQL; the embedded database plans each statement anyway). For a transaction whose named
   * statements take arrays of keys: PostgreSQL's cost model, guessing an array's length, rates
   * their generic plan above a plan for the given keys and plans them again at every run, which
   * costs more than running them. Only for statements written so that their generic plan reads by
   * the keys they name (test/db/plans.test.ts checks the named ones).
   */
  genericPlans?: boolean;
}

/**
 * The riders of the transaction running on each connection, until it ends. Kept by connection rather than in an
 * AsyncLocalStorage around the transaction: that enables async hooks for the whole process, which
 * then run for every promise of every request.
 */
const ridersByConnection = new WeakMap<DatabaseConnection, TransactionRiders>();

/**
 * Gives `riders` to the transaction `tx` runs in; called before its first statement, which is when
 * a dialect sends its BEGIN (a dialect that sends BEGIN at once takes no rider at BEGIN).
 */
export async function attachRiders(tx: { getExecutor(): QueryExecutor }, riders: TransactionRiders): Promise<void> {
  await tx.getExecutor().provideConnection(async (connection) => {
    ridersByConnection.set(connection, riders);
  });
}

/** For a dialect's BEGIN: the riders of the transaction on `connection`, if any. */
export const ridersOf = (connection: DatabaseConnection): TransactionRiders | undefined => ridersByConnection.get(connection);

/** For a dialect's COMMIT and ROLLBACK: the riders of the transaction ending on `connection`, which a next one does not inherit. */
export function takeRiders(connection: DatabaseConnection): TransactionRiders | undefined {
  const riders = ridersByConnection.get(connection);
  ridersByConnection.delete(connection);
  return riders;
}
