import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { PACKAGE_ROOT } from '../package-root';
import { MIGRATIONS_LOCK_KEY } from './locks';
import type { Db } from './index';

/** Read from the sources by the built server too: the SQL files are its migrations, not a copy. */
const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'src/db/migrations');

/** The migrations not applied to the database yet, by file name (readiness asks). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db);
  const applied = new Set(rows.map((row) => row.name));
  return readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql') && !applied.has(file)).sort();
}

/**
 * Applies the SQL files of migrations/ in name order, each once, each in its own transaction.
 * An advisory lock lets several instances start at once: the others wait, then find nothing to do.
 * What is applied already is read once first (under the lock, which the table's creation needs
 * too: two `CREATE TABLE IF NOT EXISTS` at once collide), so that a start with nothing to do takes
 * one transaction, not one per file (each is a commit, which the embedded database writes out).
 */
export async function migrate(db: Db): Promise<string[]> {
  const appliedBefore = await db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATIONS_LOCK_KEY})`.execute(tx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(tx);
    const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(tx);
    return new Set(rows.map((row) => row.name));
  });
  // Listed synchronously: at start, while V8 compiles the embedded engine's WebAssembly to optimized
  // code on its background threads, an asynchronous listing (on libuv's thread pool) waited behind
  // that compilation (docs/benchmarks.md, the start); the listing itself is instant.
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && !appliedBefore.has(f)).sort();
  const applied: string[] = [];
  for (const name of files) {
    const text = await readFile(join(MIGRATIONS_DIR, name), 'utf8');
    const ran = await db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATIONS_LOCK_KEY})`.execute(tx);
      // Another instance may have applied it since the read above.
      const done = await sql`SELECT 1 FROM schema_migrations WHERE name = ${name}`.execute(tx);
      if (done.rows.length > 0) return false;
      await sql.raw(text).execute(tx);
      await sql`INSERT INTO schema_migrations (name) VALUES (${name})`.execute(tx);
      return true;
    });
    if (ran) applied.push(name);
  }
  return applied;
}
