import pg from 'pg';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { inlineParameters, ridersForBegin, ridersForCommit } from './riders';

const COUNTED_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * One pooled node-postgres client. A transaction's BEGIN is not sent on its own: it waits for the
 * transaction's first statement and goes in the same message (`BEGIN; <statement>`, the statement's
 * parameters written in as literals), which saves every transaction a round trip.
 */
class PostgresConnection implements DatabaseConnection {
  /** BEGIN was asked for and not sent yet. */
  beginPending = false;

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.beginPending) return this.#run(query.sql, query.parameters);
    this.beginPending = false;
    const inlined = inlineParameters(query);
    if (inlined !== undefined) return this.#run(`BEGIN; ${inlined}`, []);
    await this.#run('BEGIN', []);
    return this.#run(query.sql, query.parameters);
  }

  async #run<R>(text: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    const answer: pg.QueryResult | pg.QueryResult[] = await this.client.query(text, [...parameters]);
    // A text of several statements answers with one result per statement; the last is the caller's.
    const result = Array.isArray(answer) ? answer.at(-1)! : answer;
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
 * Kysely's PostgreSQL driver, with BEGIN sent along with a transaction's first statement, and
 * transaction riders (riders.ts): the BEGIN rider is that first statement, the COMMIT rider goes in
 * the same message as COMMIT.
 */
class PostgresDriver implements Driver {
  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PostgresConnection(await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const postgres = connection as PostgresConnection;
    postgres.beginPending = true;
    const riders = ridersForBegin(connection);
    if (!riders?.afterBegin) return;
    try {
      riders.beginRows = (await postgres.executeQuery(riders.afterBegin)).rows;
    } catch (error) {
      // BEGIN ran and the rider failed: Kysely does not roll back a BEGIN that threw, so do it here.
      await postgres.executeQuery(CompiledQuery.raw('ROLLBACK'));
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const postgres = connection as PostgresConnection;
    const rider = ridersForCommit(connection)?.beforeCommit;
    const inlined = rider && inlineParameters(rider);
    // If the rider fails, COMMIT does not run; Kysely then rolls the transaction back. A BEGIN
    // still pending goes first, in the same message.
    if (inlined) {
      await postgres.executeQuery(CompiledQuery.raw(`${inlined}; COMMIT`));
      return;
    }
    if (rider) await postgres.executeQuery(rider);
    if (postgres.beginPending) {
      // The transaction ran no statement: there is nothing to commit.
      postgres.beginPending = false;
      return;
    }
    await postgres.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const postgres = connection as PostgresConnection;
    if (postgres.beginPending) {
      postgres.beginPending = false;
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

export class PostgresDialect implements Dialect {
  constructor(private readonly pool: pg.Pool) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PostgresDriver(this.pool);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
