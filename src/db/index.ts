import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { parseNumber, quoteIdentifier, type Database, type DatabaseHandle, type DatabaseOptions, type Db } from './handle';
import { createPGliteDataDir, embeddedSettings } from './pglite-create';
import { pgliteDialect } from './pglite-dialect';
import { tracedDialect } from './statement-spans';

export { parseNumber, quoteIdentifier, type DatabaseHandle, type DatabaseOptions, type Db, type Executor, type Tx } from './handle';

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (!options.url) {
    const { database, opened } = openPGliteLater(options);
    await opened;
    return database;
  }
  // node-postgres is loaded only for a PostgreSQL server: the embedded default starts without it.
  const { openPostgres } = await import('./postgres');
  return openPostgres(options.url, options);
}

/**
 * The embedded database's handle at once, its engine opening behind it (after the child creating
 * its directory, on a first start): queries and subscriptions wait for the engine, so that the
 * service builds its app meanwhile. `opened` settles when the engine has opened or failed to; a
 * handle whose engine failed fails its queries the same way, and closes.
 */
export function openPGliteLater(options: DatabaseOptions): { database: DatabaseHandle; opened: Promise<void> } {
  const settings = embeddedSettings(options.sharedBuffersMb);
  const opening = (async () => {
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
    return client;
  })();
  const db = new Kysely<Database>({ dialect: tracedDialect(pgliteDialect(opening)) });
  const database: DatabaseHandle = {
    db,
    kind: 'pglite',
    embeddedEngine: () => opening,
    async listen(channel, onNotify) {
      const client = await opening;
      const unlisten = await client.listen(channel, onNotify);
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    async close() {
      await db.destroy();
      // Kysely skips a driver that never ran a query; the embedded database must close regardless.
      const client = await opening.catch(() => undefined);
      if (client && !client.closed) await client.close();
    },
  };
  return { database, opened: opening.then(() => undefined) };
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
