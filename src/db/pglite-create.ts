import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EMBEDDED_BUFFERS_MB } from '../config';

const run = promisify(execFile);

/**
 * The embedded engine's settings, given to PostgreSQL at initdb and at every start. PGlite zeroes
 * PostgreSQL's shared memory inside its WASM heap at start, so all of shared_buffers is resident
 * from the first second: PostgreSQL's default was the largest part of the service's memory.
 * EMBEDDED_BUFFERS_MB holds a small warehouse's working set, and pages beyond it are read from the
 * data directory through the operating system's file cache (docs/operations.md, "Memory").
 */
export function embeddedSettings(sharedBuffersMb = EMBEDDED_BUFFERS_MB): string[] {
  return ['-c', `shared_buffers=${sharedBuffersMb}MB`];
}

// Runs in a child `node -e`: argv[1] is the engine's module, argv[2] the directory, argv[3] the settings.
const CREATE_SCRIPT = `
const { PGlite } = require(process.argv[1]);
const settings = JSON.parse(process.argv[3]);
PGlite.create(process.argv[2], { startParams: [...PGlite.defaultStartParams, ...settings], initDbStartParams: settings })
  .then((db) => db.close())
  .then(() => process.exit(0), (error) => { console.error(error?.message ?? String(error)); process.exit(1); });
`;

/**
 * Creates the embedded database in `dataDir` if it holds none yet, in a short-lived child process.
 * PGlite's initdb runs a second engine instance beside the first and keeps a full copy of its
 * heap; that memory stays referenced after the database is open (the service would carry it for
 * the rest of its life: docs/operations.md, "Memory of the embedded default"). In a child it is returned to the
 * system when the child exits, and the service then opens the directory like on any later start.
 */
export async function createPGliteDataDir(dataDir: string, settings: string[]): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const engine = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  try {
    await run(process.execPath, ['-e', CREATE_SCRIPT, engine, dataDir, JSON.stringify(settings)]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr ? `creating the database failed: ${stderr.split('\n')[0]}` : String(error));
  }
}
