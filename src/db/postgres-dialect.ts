import pg from 'pg';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { postgresDialect } from './dialect';
import { preparedName } from './prepared';
import { inlineParameters, preparedExecution, ridersForBegin, ridersForCommit } from './riders';

const COUNTED_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** The statements named with `prepared` that each pooled client prepared, by name, with their text (a prepared statement lives as long as its session). */
const preparedOn = new WeakMap<pg.PoolClient, Map<string, string>>();

/**
 * One pooled node-postgres client. A transaction's BEGIN is not sent on its own: it waits for the
 * transaction's first statement and goes in the same message (`BEGIN; <statement>`, the statement's
 * parameters written in as literals), which saves every transaction a round trip. A statement
 * named with `prepared` is sent as `EXECUTE name(...)`, prepared the first time.
 */
class PostgresConnection implements DatabaseConnection {
  /** BEGIN was asked for and not sent yet. */
  pendingBegin = false;

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const execution = await this.execution(query);
    if (this.pendingBegin) {
      this.pendingBegin = false;
      const inlined = execution ?? inlineParameters(query);
      if (inlined !== undefined) return this.#result((await this.#send(`BEGIN; ${inlined}`, [])).at(-1)!);
      await this.#run('BEGIN', []);
    } else if (execution !== undefined) {
      return this.#run(execution, []);
    }
    return this.#run(query.sql, query.parameters);
  }

  /**
   * `EXECUTE name(...)` with the parameters written in as literals, for a statement named with
   * `prepared` (prepared on this connection the first time); undefined for any other statement, or
   * when a parameter cannot be written as a literal.
   */
  async execution(query: CompiledQuery): Promise<string | undefined> {
    const name = preparedName(query.sql);
    const execution = name === undefined ? undefined : preparedExecution(name, query);
    if (name === undefined || execution === undefined) return undefined;
    let prepared = preparedOn.get(this.client);
    if (!prepared) preparedOn.set(this.client, (prepared = new Map()));
    const preparedText = prepared.get(name);
    if (preparedText === undefined) {
      // On its own, before a pending BEGIN: PREPARE is not transactional, and one that a later
      // statement of the same message failed would stay prepared without this connection knowing.
      await this.client.query(`PREPARE ${name} AS ${query.sql}`);
      prepared.set(name, query.sql);
    } else if (preparedText !== query.sql) {
      throw new Error(`the statement named ${name} has another text than the one prepared under that name`);
    }
    return execution;
  }

  async #run<R>(text: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#result((await this.#send(text, parameters)).at(-1)!);
  }

  /** One result per statement of the text. */
  async #send(text: string, parameters: readonly unknown[]): Promise<pg.QueryResult[]> {
    const answer: pg.QueryResult | pg.QueryResult[] = await this.client.query(text, [...parameters]);
    return Array.isArray(answer) ? answer : [answer];
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
 * COMMIT rider (riders.ts) in the same message as COMMIT.
 */
class PostgresDriver implements Driver {
  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PostgresConnection(await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    ridersForBegin(connection);
    (connection as PostgresConnection).pendingBegin = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const postgres = connection as PostgresConnection;
    const rider = ridersForCommit(connection)?.beforeCommit;
    const inlined = rider && ((await postgres.execution(rider)) ?? inlineParameters(rider));
    // A rider that cannot be inlined runs on its own (taking a pending BEGIN with it).
    if (rider && !inlined) await postgres.executeQuery(rider);
    if (postgres.pendingBegin && !inlined) {
      // The transaction ran no statement: there is nothing to send.
      postgres.pendingBegin = false;
      return;
    }
    // One message: a BEGIN still pending, the COMMIT rider, COMMIT. If a statement
    // fails, COMMIT does not run; Kysely then rolls the transaction back.
    await postgres.executeQuery(CompiledQuery.raw(inlined ? `${inlined}; COMMIT` : 'COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const postgres = connection as PostgresConnection;
    if (postgres.pendingBegin) {
      postgres.pendingBegin = false;
      return;
    }
    await postgres.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresConnection).client.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

export const nodePostgresDialect = (pool: pg.Pool) => postgresDialect(() => new PostgresDriver(pool));
