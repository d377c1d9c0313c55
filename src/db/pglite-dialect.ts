import type { PGlite, Transaction } from '@electric-sql/pglite';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { postgresDialect } from './dialect';
import { takeRiders } from './riders';

const ROLLBACK = Symbol('rollback');

/** Resolves once the event loop has polled for I/O (see PGliteConnection). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One Kysely connection over the embedded PostgreSQL. PGlite has a single session, so a Kysely
 * transaction is carried by PGlite's own `transaction()`: PGlite queues transactions (and plain
 * queries) behind it, and BEGIN/COMMIT of two callers can never interleave on the shared session.
 *
 * The engine runs each statement on this thread, and hands the session to the next caller in its
 * queue within the same turn of the event loop: without a pause, statements queued by many
 * requests run back to back as one task, and a request arriving meanwhile (a health check, a scan)
 * is not even read until the queue is empty. So a statement outside a transaction, and a
 * transaction's BEGIN, first wait for the event loop's next turn (`nextTurn`): the requests that
 * arrived meanwhile queue their own statements in between. Inside a transaction there is no pause,
 * which would only hold the session longer.
 */
class PGliteConnection implements DatabaseConnection {
  #tx: Transaction | undefined;
  #finish: ((commit: boolean) => void) | undefined;
  #done: Promise<void> | undefined;

  constructor(private readonly client: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.#tx ?? this.client;
    if (!this.#tx) await nextTurn();
    // Like node-postgres, a query without parameters goes by the simple protocol, which also
    // runs scripts of several statements (migrations).
    const result =
      query.parameters.length === 0
        ? ((await target.exec(query.sql)).at(-1) ?? { rows: [] as R[], affectedRows: 0 })
        : await target.query<R>(query.sql, query.parameters as unknown[]);
    return {
      rows: result.rows as R[],
      ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded database');
  }

  async begin(): Promise<void> {
    await nextTurn();
    let started!: () => void;
    const isOpen = new Promise<void>((resolve) => (started = resolve));
    this.#done = this.client
      .transaction(async (tx) => {
        this.#tx = tx;
        started();
        await new Promise<void>((resolve, reject) => {
          this.#finish = (commit) => (commit ? resolve() : reject(ROLLBACK));
        });
      })
      .then(
        () => undefined,
        (error: unknown) => {
          if (error !== ROLLBACK) throw error;
        },
      );
    // A failing BEGIN settles #done before the transaction opens; surface it.
    await Promise.race([isOpen, this.#done]);
  }

  async end(commit: boolean): Promise<void> {
    this.#finish?.(commit);
    try {
      await this.#done;
    } finally {
      this.#tx = undefined;
      this.#finish = undefined;
      this.#done = undefined;
    }
  }
}

/**
 * Takes the engine or its opening: Kysely runs init() before the first query, so that queries made
 * while the engine still opens wait for it (the service builds its app meanwhile, db/index.ts).
 */
class PGliteDriver implements Driver {
  #client: PGlite | undefined;
  constructor(private readonly opening: PGlite | Promise<PGlite>) {}
  async init(): Promise<void> {
    this.#client = await this.opening;
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const client = this.#client!;
    // A closed PGlite may still answer from its WASM state; refuse like a stopped server would.
    if (client.closed) throw new Error('the embedded database is closed');
    return new PGliteConnection(client);
  }
  // The COMMIT rider (riders.ts) runs as a statement of its own: in process, a round trip is free.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).begin();
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const rider = takeRiders(connection)?.beforeCommit;
    // If the rider fails, Kysely rolls the transaction back.
    if (rider) await connection.executeQuery(rider);
    await (connection as PGliteConnection).end(true);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    takeRiders(connection);
    await (connection as PGliteConnection).end(false);
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    if (this.#client && !this.#client.closed) await this.#client.close();
  }
}

export const pgliteDialect = (client: PGlite | Promise<PGlite>) => postgresDialect(() => new PGliteDriver(client));
