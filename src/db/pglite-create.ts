import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EMBEDDED_BUFFERS_MB } from '../config';
import { PACKAGE_ROOT } from '../package-root';

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

/**
 * How to run create-embedded.ts in a child: the built file beside the running bundle (dist/), or the
 * source through tsx where this module runs from the sources (tests, `npm run bench`, a checkout
 * whose dist/ is stale).
 */
function childArguments(): string[] {
  return import.meta.url.endsWith('.ts')
    ? ['--import', 'tsx', join(PACKAGE_ROOT, 'src/db/create-embedded.ts')]
    : [join(PACKAGE_ROOT, 'dist/create-embedded.js')];
}

/** Creations in flight by directory; a failed one is tried again by the next call. */
const creations = new Map<string, Promise<void>>();

/**
 * Creates the embedded database in `dataDir` if it holds none yet, and migrates it, in a
 * short-lived child process (create-embedded.ts). PGlite's initdb runs a second engine instance
 * beside the first and keeps a full copy of its heap; that memory stays referenced after the
 * database is open (the service would carry it for the rest of its life: docs/operations.md,
 * "Memory of the embedded default"). In a child it is returned to the system when the child exits.
 * The child applies the migrations too, while its engine is warm: a fresh engine (the service's,
 * opening the directory afterwards) took several times longer for the same SQL. The service then
 * opens the directory like on any later start, and its migrate() finds nothing left to do.
 */
export async function createPGliteDataDir(dataDir: string, settings: string[]): Promise<void> {
  // The engine's own error for this is an object without a message.
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) throw new Error(`${dataDir} is a file, not a directory`);
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  // The command running the service starts the child before loading the service, whose opening of
  // the engine then waits for that same child instead of finding a half-made directory.
  let creating = creations.get(dataDir);
  if (!creating) {
    creating = createInChild(dataDir, settings).finally(() => creations.delete(dataDir));
    creations.set(dataDir, creating);
  }
  return creating;
}

async function createInChild(dataDir: string, settings: string[]): Promise<void> {
  try {
    await run(process.execPath, [...childArguments(), dataDir, JSON.stringify(settings)], { cwd: PACKAGE_ROOT });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr ? `creating the database failed: ${stderr.split('\n')[0]}` : String(error));
  }
}
