// The child process of pglite-create.ts: `node create-embedded.js <dataDir> <settings as JSON>`
// (from the sources: `node --import tsx create-embedded.ts ...`). Creates the embedded database in
// <dataDir> and applies the migrations while the engine that ran initdb is warm, then exits; the
// service opens the migrated directory like on any later start, and its own migrate() finds nothing
// left to do. Exit code 0 once both are done; 1 with one line on stderr otherwise.
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { migrate } from './migrate';
import { pgliteDialect } from './pglite-dialect';
import type { Database } from './schema';

const [dataDir, settingsJson] = process.argv.slice(2);

async function createAndMigrate(): Promise<void> {
  if (!dataDir || !settingsJson) throw new Error('usage: create-embedded <dataDir> <settings as JSON>');
  const settings = JSON.parse(settingsJson) as string[];
  const client = await PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, ...settings], initDbStartParams: settings });
  const db = new Kysely<Database>({ dialect: pgliteDialect(client) });
  try {
    await migrate(db);
  } finally {
    await db.destroy();
    if (!client.closed) await client.close();
  }
}

createAndMigrate().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(String((error as Error)?.message ?? error).split('\n')[0]);
    process.exit(1);
  },
);
