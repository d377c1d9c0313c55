import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { MIGRATIONS_LOCK_KEY } from './locks';
import type { Db } from './index';

const MIGRATIONS_DIR = join(fileURLToPath(new URL('.', import.meta.url)), 'migrations');

/**
 * Applies the SQL files of migrations/ in name order, each once, each in its own transaction.
 * An advisory lock lets several instances start at once: the others wait, then find nothing to do.
 */
export async function migrate(db: Db): Promise<string[]> {
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  const applied: string[] = [];
  for (const name of files) {
    const text = await readFile(join(MIGRATIONS_DIR, name), 'utf8');
    const ran = await db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATIONS_LOCK_KEY})`.execute(tx);
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
