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

/** One pooled node-postgres client. */
class PostgresConnection implements DatabaseConnection {
  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const answer: pg.QueryResult | pg.QueryResult[] = await this.client.query(query.sql, [...query.parameters]);
    // A text of several statements (a transaction with its rider) answers with one result per statement.
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
 * Kysely's PostgreSQL driver, plus transaction riders (riders.ts): a rider goes in the same
 * message as its BEGIN or COMMIT, so it costs no round trip.
 */
class PostgresDriver implements Driver {
  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PostgresConnection(await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const riders = ridersForBegin(connection);
    if (!riders?.afterBegin) {
      await connection.executeQuery(CompiledQuery.raw('BEGIN'));
      return;
    }
    try {
      riders.beginRows = (await connection.executeQuery(CompiledQuery.raw(`BEGIN; ${inlineParameters(riders.afterBegin)}`))).rows;
    } catch (error) {
      // BEGIN ran and the rider failed: Kysely does not roll back a BEGIN that threw, so do it here.
      await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const rider = ridersForCommit(connection)?.beforeCommit;
    // If the rider fails, COMMIT does not run; Kysely then rolls the transaction back.
    await connection.executeQuery(CompiledQuery.raw(rider ? `${inlineParameters(rider)}; COMMIT` : 'COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
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
