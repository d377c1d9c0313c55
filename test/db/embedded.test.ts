import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db';
import { migrate } from '../../src/db/migrate';

const MIGRATIONS = readdirSync(join(import.meta.dirname, '../../src/db/migrations')).filter((name) => name.endsWith('.sql')).sort();

const root = mkdtempSync(join(tmpdir(), 'pickport-embedded-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sharedBuffers = async (database: DatabaseHandle) =>
  (await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(database.db)).rows[0]!.shared_buffers;

describe('the embedded database in a data directory', () => {
  it('is created on first open with small shared buffers, keeps its data, and takes another size on a later start', async () => {
    const dataDir = join(root, 'pglite');
    const first = await openDatabase({ dataDir });
    try {
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
      expect(await sharedBuffers(first)).toBe('16MB');
      await sql`CREATE TABLE kept (note text)`.execute(first.db);
      await sql`INSERT INTO kept VALUES ('still here')`.execute(first.db);
    } finally {
      await first.close();
    }
    // initdb wrote the size into the directory's own configuration, like the engine's 128MB before.
    expect(readFileSync(join(dataDir, 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 16MB/m);

    const again = await openDatabase({ dataDir, sharedBuffersMb: 48 });
    try {
      expect(await sharedBuffers(again)).toBe('48MB');
      expect((await sql<{ note: string }>`SELECT note FROM kept`.execute(again.db)).rows).toEqual([{ note: 'still here' }]);
    } finally {
      await again.close();
    }
  });

  it('comes out of its creation migrated: opening it finds every migration applied and nothing left to do', async () => {
    const dataDir = join(root, 'created-migrated');
    const database = await openDatabase({ dataDir });
    try {
      const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(database.db);
      expect(rows.map((row) => row.name)).toEqual(MIGRATIONS);
      expect(await migrate(database.db)).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('reports why a data directory cannot be created', async () => {
    const file = join(root, 'not-a-directory');
    writeFileSync(file, 'x');
    await expect(openDatabase({ dataDir: join(file, 'pglite') })).rejects.toThrow(/creating the database failed: ENOTDIR/);
  });
});
