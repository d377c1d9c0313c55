import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { Kysely, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema';
import { createPGliteDataDir, embeddedSettings } from './pglite-create';
import { pgliteDialect } from './pglite-dialect';
import { nodePostgresDialect } from './postgres-dialect';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Anything a query can run on: the pool or an open transaction. */
export type Executor = Db | Tx;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /**
   * Subscribes to a NOTIFY channel; resolves to an unsubscribe function. `onLost` is called once if
   * the subscription breaks (its connection failed): notifications may have been missed since.
   */
  listen(channel: string, onNotify: (payload: string) => void, onLost?: () => void): Promise<() => Promise<void>>;
  /** Connections of the PostgreSQL pool and queries waiting for one; absent on the embedded database (one connection). */
  poolStats?: () => { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL server; without it the embedded PGlite is used. */
  url?: string | undefined;
  /** Directory of the embedded database; unset keeps it in memory (tests). */
  dataDir?: string | undefined;
  /** For the embedded database: start from this dumped data directory (a migrated template). */
  loadDataDir?: Blob | undefined;
  /** Confines every connection to one schema, so parallel test runs never collide. */
  schema?: string | undefined;
  poolSize?: number;
  /** Shared buffers of the embedded database, MB; default EMBEDDED_BUFFERS_MB. */
  sharedBuffersMb?: number | undefined;
}

// bigint counts and numeric amounts come back as JS numbers on both engines.
const INT8 = 20;
const NUMERIC = 1700;
const parseNumber = (value: string) => Number(value);

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres(options.url, options) : openPGlite(options);
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const connectionOptions = options.schema ? `-c search_path=${options.schema}` : undefined;
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8 || oid === NUMERIC ? parseNumber : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 20,
    // settled.ts looks for this service's running transactions by this name; one per schema, so
    // that test files sharing a database do not hold back each other's listings.
    application_name: options.schema ? `pickport/${options.schema}` : 'pickport',
    types,
    // Queries written one after another go out without waiting for each other's answers: a
    // transaction's BEGIN travels with its first statement, COMMIT with its rider (postgres-dialect.ts).
    pipeline: true,
    ...(connectionOptions ? { options: connectionOptions } : {}),
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // JIT compilation pays off for long analytical queries, not for these short ones; but a statement
  // planned on stale statistics (a catalog growing by its first syncs) looks expensive enough to
  // trigger it, and its compilation then took 40 to 200 ms of a 2 ms batch read. Set per session
  // rather than as a startup option, which connection poolers refuse.
  pool.on('connect', (client) => {
    client.query('SET jit = off').catch(() => {});
  });
  const listeners = new Set<pg.Client>();
  let closing = false;
  return {
    db: new Kysely<Database>({ dialect: nodePostgresDialect(pool) }),
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async listen(channel, onNotify, onLost) {
      // keepAlive: a connection whose peer vanished is noticed, rather than waiting for NOTIFYs forever.
      const client = new pg.Client({ connectionString: url, keepAlive: true });
      let ended = false;
      const lost = () => {
        if (ended) return;
        ended = true;
        listeners.delete(client);
        if (!closing) onLost?.();
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (message) => onNotify(message.payload ?? ''));
      try {
        await client.connect();
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        ended = true;
        await client.end().catch(() => {});
        throw error;
      }
      listeners.add(client);
      return async () => {
        ended = true;
        listeners.delete(client);
        await client.end().catch(() => {});
      };
    },
    async close() {
      closing = true;
      const open = [...listeners];
      listeners.clear();
      await Promise.all(open.map((client) => client.end().catch(() => {})));
      await pool.end();
    },
  };
}

async function openPGlite(options: DatabaseOptions): Promise<DatabaseHandle> {
  const settings = embeddedSettings(options.sharedBuffersMb);
  if (options.dataDir) await createPGliteDataDir(options.dataDir, settings);
  const client = await PGlite.create(options.dataDir ?? 'memory://', {
    startParams: [...PGlite.defaultStartParams, ...settings],
    initDbStartParams: settings,
    parsers: { [pgliteTypes.INT8]: parseNumber, [pgliteTypes.NUMERIC]: parseNumber },
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  if (options.schema) {
    await client.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(options.schema)}; SET search_path = ${quoteIdentifier(options.schema)}`);
  }
  const db = new Kysely<Database>({ dialect: pgliteDialect(client) });
  return {
    db,
    kind: 'pglite',
    async listen(channel, onNotify) {
      const unlisten = await client.listen(channel, onNotify);
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    async close() {
      await db.destroy();
      // Kysely skips a driver that never ran a query; the embedded database must close regardless.
      if (!client.closed) await client.close();
    },
  };
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Answers whether the database takes queries; used by the health check. */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
