import type { PGlite } from '@electric-sql/pglite';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema';

// What both engines' handles share (index.ts opens the embedded one, postgres.ts a server's pool).

export type { Database };
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
  /** The embedded engine, once open; absent on PostgreSQL. A backup copies its data directory. */
  embeddedEngine?: () => Promise<PGlite>;
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

/** bigint counts and numeric amounts come back as JS numbers on both engines. */
export const parseNumber = (value: string) => Number(value);

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
