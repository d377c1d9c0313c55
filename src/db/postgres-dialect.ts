import pg from 'pg';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { postgresDialect } from './dialect';
import { inlineParameters, preparedExecution, ridersForBegin, ridersForCommit, type TransactionRiders } from './riders';

const COUNTED_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The named COMMIT riders prepared on each pooled client (a prepared statement lives as long as its session). */
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();

/**
 * One pooled node-postgres client. A transaction's BEGIN is not sent on its own: it waits for the
 * transaction's first statement and goes in the same message (`BEGIN; <statement>`, the statement's
 * parameters written in as literals), which saves every transaction a round trip.
 */
class PostgresConnection implements DatabaseConnection {
  /** BEGIN was asked for and not sent yet. */
  pendingBegin = false;

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.pendingBegin) return this.#run(query.sql, query.parameters);
    this.pendingBegin = false;
    const inlined = inlineParameters(query);
    if (inlined !== undefined) return this.#result((await this.#send(`BEGIN; ${inlined}`, [])).at(-1)!);
    await this.#run('BEGIN', []);
    return this.#run(query.sql, query.parameters);
  }

  /**
   * The text that sends the COMMIT rider: `EXECUTE` of its prepared statement when it is named
   * (prepared on this connection the first time), else the statement with its parameters written in.
   * Undefined when a parameter cannot be written as a literal.
   */
  async riderText(riders: TransactionRiders, rider: CompiledQuery): Promise<string | undefined> {
    const name = riders.beforeCommitName;
    if (name === undefined) return inlineParameters(rider);
    if (!SQL_IDENTIFIER.test(name)) throw new Error(`not a statement name: ${name}`);
    const execution = preparedExecution(name, rider);
    let prepared = preparedOn.get(this.client);
    if (execution !== undefined && !prepared?.has(name)) {
      // On its own: PREPARE is not transactional, a failure after it in the same message would
      // leave it prepared without this connection knowing.
      await this.client.query(`PREPARE ${name} AS ${rider.sql}`);
      if (!prepared) preparedOn.set(this.client, (prepared = new Set()));
      prepared.add(name);
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
    const riders = ridersForCommit(connection);
    const rider = riders?.beforeCommit;
    const inlined = riders && rider && (await postgres.riderText(riders, rider));
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
