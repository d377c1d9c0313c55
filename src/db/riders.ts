import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery, DatabaseConnection } from 'kysely';

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
  /** The connection whose transaction took the riders: any other transaction started meanwhile leaves them alone. */
  connection?: DatabaseConnection;
}

const current = new AsyncLocalStorage<TransactionRiders>();

/** Runs `start` (which begins one transaction) with riders for that transaction. */
export function withRiders<T>(riders: TransactionRiders, start: () => Promise<T>): Promise<T> {
  return current.run(riders, start);
}

/** For a dialect's BEGIN: the riders of the transaction beginning on `connection`, if any; it takes them for its COMMIT. */
export function ridersForBegin(connection: DatabaseConnection): TransactionRiders | undefined {
  const riders = current.getStore();
  if (!riders || riders.connection) return undefined;
  riders.connection = connection;
  return riders;
}

/** For a dialect's COMMIT: the riders its BEGIN took on `connection`, if any. */
export function ridersForCommit(connection: DatabaseConnection): TransactionRiders | undefined {
  const riders = current.getStore();
  return riders?.connection === connection ? riders : undefined;
}
