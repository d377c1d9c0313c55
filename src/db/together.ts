import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type { Executor } from './handle';

/** A connection that can send several statements in one write (PostgreSQL's, in pipeline mode). */
export interface PipelinedConnection extends DatabaseConnection {
  executeQueries(queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]>;
}

const pipelines = (connection: DatabaseConnection): connection is PipelinedConnection =>
  typeof (connection as Partial<PipelinedConnection>).executeQueries === 'function';

/**
 * Runs two statements one after the other, as `executeQuery` would, but on PostgreSQL sends them
 * in one write: one round trip instead of two, for a second statement that needs nothing of the
 * first's answer. Each still runs as a statement of its own, so the second reads a snapshot taken
 * after the first finished (the locks it took are held). If either fails, this throws the first
 * failure once both have answered; in a transaction the second then fails as well.
 */
export async function executeTogether<A, B>(db: Executor, first: CompiledQuery<A>, second: CompiledQuery<B>): Promise<[QueryResult<A>, QueryResult<B>]> {
  return db.getExecutor().provideConnection(async (connection) => {
    if (pipelines(connection)) {
      const [a, b] = await connection.executeQueries([first, second]);
      return [a as QueryResult<A>, b as QueryResult<B>];
    }
    // The embedded database runs in process: a round trip costs nothing there.
    return [await connection.executeQuery<A>(first), await connection.executeQuery<B>(second)];
  });
}
