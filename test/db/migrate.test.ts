import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { openTestDatabase } from '../helpers/context';

const FILES = readdirSync(join(import.meta.dirname, '../../src/db/migrations')).filter((name) => name.endsWith('.sql')).sort();

describe('migrate', { timeout: 60_000 }, () => {
  const opened: DatabaseHandle[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
    for (const database of opened) await database.close();
  });

  it('applies nothing on a migrated database, where every file is recorded', async () => {
    const { database, drop } = await openTestDatabase();
    drops.push(drop);
    expect(await migrate(database.db)).toEqual([]);
    const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(database.db);
    expect(rows.map((row) => row.name)).toEqual(FILES);
  });

  it('applies each file once when two instances migrate a fresh database at the same time', async () => {
    // Two pools on one new schema of PostgreSQL; on the embedded database, one fresh in memory (a single connection).
    const url = process.env.DATABASE_URL;
    const schema = `test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const first = await openDatabase(url ? { url, schema, poolSize: 2 } : {});
    opened.push(first);
    const second = url ? await openDatabase({ url, schema, poolSize: 2 }) : first;
    if (url) {
      opened.push(second);
      await sql.raw(`CREATE SCHEMA ${schema}`).execute(first.db);
      drops.push(async () => void (await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(first.db)));
    }
    const [a, b] = await Promise.all([migrate(first.db), migrate(second.db)]);
    expect([...a, ...b].sort()).toEqual(FILES);
  });
});
