import pg from 'pg';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { postgresDialect } from './dialect';
import { preparedName } from './prepared';
import { ridersOf, takeRiders } from './riders';
import type { PipelinedConnection } from './together';

const COUNTED_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');
/** BEGIN for a transaction whose riders ask for generic plans (riders.ts); one simple query, one message. */
const BEGIN_WITH_GENERIC_PLANS = 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan';

/**
 * The text each name given with `prepared` stands for, the first time it was sent. node-postgres
 * refuses a second text only on a connection that already prepared the first; this refuses it on
 * every connection.
 */
const preparedTexts = new Map<string, string>();

/** node-postgres's query for a compiled query: its parameters bound by the protocol, under its name if it was given one. */
function pgQuery(query: CompiledQuery): pg.QueryConfig {
  const values = [...query.parameters];
  const name = preparedName(query.sql);
  if (name === undefined) return { text: query.sql, values };
  const text = preparedTexts.get(name);
  if (text === undefined) preparedTexts.set(name, query.sql);
  else if (text !== query.sql) throw new Error(`the statement named ${name} has another text than the one prepared under that name`);
  return { name, text: query.sql, values };
}

/**
 * One pooled node-postgres client, in pipeline mode (src/db/index.ts): queries written one after
 * another go out without waiting for each other's answers. A transaction's BEGIN is not sent on its
 * own: it waits for the transaction's first statement and goes in the same write, which saves every
 * transaction a round trip. A statement named with `prepared` is a named prepared statement of the
 * protocol, which node-postgres prepares once per connection.
 */
class PostgresConnection implements PipelinedConnection {
  /** BEGIN was asked for and not sent yet. */
  pendingBegin = false;

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.#result((await this.send([query])).at(-1)!);
  }

  /** The queries in one write (together.ts), one result each. */
  async executeQueries(queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
    // A pending BEGIN answers first.
    return (await this.send(queries)).slice(-queries.length).map((result) => this.#result(result));
  }

  /**
   * Sends the queries, after a pending BEGIN, in one write and waits for all of their answers: one
   * result each. A failure is thrown once every query has answered, so nothing of this call is still
   * running after it. After a failed one, the queries of the same transaction fail too, except
   * COMMIT, which then ends the transaction with a rollback.
   */
  async send(queries: readonly CompiledQuery[]): Promise<pg.QueryResult[]> {
    const configs = queries.map(pgQuery);
    if (this.pendingBegin) {
      // The transaction's riders are known by its first statement (riders.ts).
      configs.unshift({ text: ridersOf(this)?.genericPlans ? BEGIN_WITH_GENERIC_PLANS : 'BEGIN' });
      this.pendingBegin = false;
    }
    const { stream } = (this.client as unknown as pg.Client).connection;
    stream.cork();
    let answers: Promise<pg.QueryResult | pg.QueryResult[]>[];
    try {
      answers = configs.map((config) => this.client.query(config) as Promise<pg.QueryResult | pg.QueryResult[]>);
    } finally {
      stream.uncork();
    }
    const settled = await Promise.allSettled(answers);
    const failed = settled.find((answer) => answer.status === 'rejected');
    if (failed) throw failed.reason;
    // A text of several statements (a migration) answers with one result each; the last is the answer.
    return settled.map((answer) => {
      const value = (answer as PromiseFulfilledResult<pg.QueryResult | pg.QueryResult[]>).value;
      return Array.isArray(value) ? value.at(-1)! : value;
    });
  }

  #result<R>(result: pg.QueryResult): QueryResult<R> {
    return {
      rows: (result.rows ?? []) as R[],
      ...(COUNTED_COMMANDS.has(result.command) ? { numAffectedRows: BigInt(result.rowCount ?? 0) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used by Pickport');
  }
}

/**
 * Kysely's PostgreSQL driver, with BEGIN sent along with a transaction's first statement, and the
 * COMMIT rider (riders.ts) in the same write as COMMIT.
 */
class PostgresDriver implements Driver {
  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PostgresConnection(await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresConnection).pendingBegin = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const postgres = connection as PostgresConnection;
    const rider = takeRiders(connection)?.beforeCommit;
    if (postgres.pendingBegin) {
      // The transaction ran no statement: its rider, if any, is a transaction on its own.
      postgres.pendingBegin = false;
      if (rider) await postgres.send([rider]);
      return;
    }
    // If the rider fails, COMMIT rolls the transaction back, and the rider's error is thrown.
    await postgres.send(rider ? [rider, COMMIT] : [COMMIT]);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    takeRiders(connection);
    const postgres = connection as PostgresConnection;
    if (postgres.pendingBegin) {
      postgres.pendingBegin = false;
      return;
    }
    // Nothing is left to roll back after a failed rider's COMMIT, or a failed COMMIT.
    if (postgres.client.getTransactionStatus() === 'I') return;
    await postgres.send([ROLLBACK]);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresConnection).client.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

export const nodePostgresDialect = (pool: pg.Pool) => postgresDialect(() => new PostgresDriver(pool));
