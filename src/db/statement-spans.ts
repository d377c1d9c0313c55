import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import type { PipelinedConnection } from './together';

/**
 * What makes a span of each SQL statement: the tracing (src/http/tracing-otel.ts) sets one while it
 * runs. The database core knows nothing of OpenTelemetry; it only calls this.
 */
export interface StatementTracer {
  /**
   * Runs `send`, which sends the statements `texts` in one write (one, or several pipelined), inside
   * a span for each of them.
   */
  trace<T>(texts: readonly string[], send: () => Promise<T>): Promise<T>;
}

let statementTracer: StatementTracer | undefined;

/** Sets (or, with undefined, clears) what traces the statements of the databases opened from now on. */
export function traceStatements(tracer: StatementTracer | undefined): void {
  statementTracer = tracer;
}

const traced = <T>(texts: readonly string[], send: () => Promise<T>): Promise<T> => {
  const tracer = statementTracer;
  return tracer ? tracer.trace(texts, send) : send();
};

/**
 * `dialect` with a span around each statement, COMMIT and ROLLBACK, when tracing runs as the
 * database opens; otherwise `dialect` itself, so that without tracing not one call is added to a
 * query. At the driver rather than a Kysely plugin: a plugin sees neither the SQL text nor the
 * statements sent without the query builder (`executeTogether`, `preparedOnce`, COMMIT's rider),
 * and is not told when a statement fails.
 */
export function tracedDialect(dialect: Dialect): Dialect {
  if (!statementTracer) return dialect;
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => tracedDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

const COMMIT = ['COMMIT'];
const ROLLBACK = ['ROLLBACK'];

function tracedDriver(driver: Driver): Driver {
  // The driver's own connection objects, not wrappers around them: the dialects and riders.ts know
  // a connection by its identity (its class, a WeakMap key).
  return {
    init: () => driver.init(),
    acquireConnection: async () => tracedConnection(await driver.acquireConnection()),
    beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection) => traced(COMMIT, () => driver.commitTransaction(connection)),
    rollbackTransaction: (connection) => traced(ROLLBACK, () => driver.rollbackTransaction(connection)),
    releaseConnection: (connection) => driver.releaseConnection(connection),
    destroy: () => driver.destroy(),
  };
}

/** Connections whose methods already trace, should a driver hand the same one out again. */
const tracing = new WeakSet<DatabaseConnection>();

function tracedConnection(connection: DatabaseConnection): DatabaseConnection {
  if (tracing.has(connection)) return connection;
  tracing.add(connection);
  const executeQuery = connection.executeQuery.bind(connection);
  connection.executeQuery = <R>(query: CompiledQuery) => traced([query.sql], () => executeQuery<R>(query));
  const pipelined = connection as Partial<PipelinedConnection>;
  if (typeof pipelined.executeQueries === 'function') {
    const executeQueries = pipelined.executeQueries.bind(connection);
    pipelined.executeQueries = (queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> =>
      traced(
        queries.map((query) => query.sql),
        () => executeQueries(queries),
      );
  }
  return connection;
}
