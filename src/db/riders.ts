import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { CompiledQuery, DatabaseConnection } from 'kysely';

/**
 * Statements that travel with a transaction's BEGIN and COMMIT instead of costing round trips of
 * their own (the idempotency lookup and the stored answer, src/http/write.ts). On PostgreSQL each
 * goes in one message with its BEGIN or COMMIT (the simple query protocol runs several statements
 * per message, but takes no parameters: the rider's are written into its text as literals); on the
 * embedded database, where a round trip costs nothing, it runs as a statement of its own.
 */
export interface TransactionRiders {
  /** Runs right after BEGIN; its rows land in `beginRows`. */
  afterBegin?: CompiledQuery;
  beginRows?: unknown[];
  /** Runs right before COMMIT; set by the transaction's work once it knows what to write. If it fails, the transaction rolls back. */
  beforeCommit?: CompiledQuery;
  /** The connection whose transaction took the riders: any other transaction started meanwhile leaves them alone. */
  connection?: DatabaseConnection;
}

const current = new AsyncLocalStorage<TransactionRiders>();

/** Runs `start` (which begins one transaction) with riders for that transaction. */
export function withRiders<T>(riders: TransactionRiders, start: () => Promise<T>): Promise<T> {
  return current.run(riders, start);
}

/** For a dialect's BEGIN: the riders of the transaction beginning on `connection`, if any; it takes them. */
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

/**
 * The query as one parameterless text, each `$n` replaced by its value as an SQL literal (strings
 * escaped by node-postgres's own `escapeLiteral`). Only for the values riders carry: strings,
 * numbers, booleans, dates and null; anything else is refused rather than guessed at.
 */
export function inlineParameters(query: CompiledQuery): string {
  return query.sql.replace(/\$(\d+)/g, (_, position: string) => literal(query.parameters[Number(position) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  throw new Error(`a transaction rider cannot carry a parameter of type ${typeof value}`);
}
