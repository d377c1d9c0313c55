import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db';
import { prepared } from '../../src/db/prepared';
import { inTransaction } from '../../src/db/transaction';
import { openTestDatabase, usingPostgres } from '../helpers/context';

/** Statements named with `prepared` (src/db/prepared.ts), on the database this run uses. */
describe('prepared statements', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase());
    await sql`CREATE TABLE prepared_notes (note text PRIMARY KEY, tags text[], doc jsonb)`.execute(database.db);
  });
  afterAll(() => drop());

  const insertNote = (note: string, tags: string[], doc: unknown) =>
    prepared('prepared_note_insert', sql<{ note: string }>`
      INSERT INTO prepared_notes (note, tags, doc) SELECT ${note}, ${tags}::text[], ${JSON.stringify(doc)}::jsonb RETURNING note`);
  const readNotes = (notes: string[]) =>
    prepared('prepared_notes_read', sql<{ note: string; tags: string[]; doc: unknown }>`
      SELECT note, tags, doc FROM prepared_notes WHERE note = ANY (${notes}::text[]) ORDER BY note`);

  it('runs as the first statement of a transaction, after another, and on its own, on every connection, values exact', async () => {
    const db = database.db;
    const note = (i: number) => `it's \\ note ${i} $1`;
    const doc = (i: number) => ({ quote: "it's", i, list: [i, 'x'] });
    // More transactions than the pool has connections, each with the statements first and later.
    const read = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        inTransaction(db, async (tx) => {
          await insertNote(note(i), ['a', "b'c", 'd"e'], doc(i)).execute(tx);
          return (await readNotes([note(i)]).execute(tx)).rows;
        }),
      ),
    );
    read.forEach((rows, i) => expect(rows).toEqual([{ note: note(i), tags: ['a', "b'c", 'd"e'], doc: doc(i) }]));
    const first = await Promise.all(Array.from({ length: 24 }, (_, i) => inTransaction(db, async (tx) => (await readNotes([note(i)]).execute(tx)).rows[0]?.note)));
    expect(first).toEqual(Array.from({ length: 24 }, (_, i) => note(i)));
    expect((await readNotes([note(0), note(23)]).execute(db)).rows.map((r) => r.note)).toEqual([note(0), note(23)]);
    await sql`DELETE FROM prepared_notes`.execute(db);
  });

  it('stays usable on a connection where it failed, and fails the transaction it ran in', async () => {
    const db = database.db;
    await insertNote('taken', [], {}).execute(db);
    for (let i = 0; i < 24; i++) {
      const attempt = inTransaction(db, async (tx) => {
        if (i % 2 === 0) await insertNote(`work ${i}`, [], {}).execute(tx);
        await insertNote('taken', [], {}).execute(tx);
      });
      await expect(attempt).rejects.toMatchObject({ code: '23505' });
    }
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM prepared_notes`.execute(db)).rows[0]!.n).toBe(1);
    await Promise.all(Array.from({ length: 24 }, (_, i) => inTransaction(db, (tx) => insertNote(`later ${i}`, [], {}).execute(tx))));
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM prepared_notes`.execute(db)).rows[0]!.n).toBe(25);
    await sql`DELETE FROM prepared_notes`.execute(db);
  });

  it.skipIf(!usingPostgres)('is prepared once per connection by the protocol, not by SQL PREPARE, and refuses a second text under the same name', async () => {
    const db = database.db;
    const statements = await Promise.all(
      Array.from({ length: 12 }, () =>
        inTransaction(db, async (tx) => {
          await readNotes(['x']).execute(tx);
          await readNotes(['y']).execute(tx);
          const { rows } = await sql<{ pid: number; from_sql: boolean }>`
            SELECT pg_backend_pid() AS pid, from_sql FROM pg_prepared_statements WHERE name = 'prepared_notes_read'`.execute(tx);
          await sql`SELECT pg_sleep(0.02)`.execute(tx);
          return rows;
        }),
      ),
    );
    // Twelve transactions at once on a pool of ten connections: each connection prepared it once.
    expect(new Set(statements.flat().map((row) => row.pid)).size).toBe(10);
    for (const rows of statements) expect(rows).toEqual([{ pid: rows[0]!.pid, from_sql: false }]);
    // On every connection, including those that never ran it.
    const anotherText = Array.from({ length: 12 }, () => prepared('prepared_notes_read', sql`SELECT 2`).execute(db));
    for (const attempt of anotherText) await expect(attempt).rejects.toThrow('another text');
    await expect(inTransaction(db, (tx) => prepared('prepared_notes_never_run', sql`SELECT 1 AS one`).execute(tx))).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await expect(prepared('prepared_notes_never_run', sql`SELECT 2 AS one`).execute(db)).rejects.toThrow('another text');
  });

  it('refuses a name that is not a lower-case SQL identifier', () => {
    expect(() => prepared('notes; DROP TABLE prepared_notes', sql`SELECT 1`)).toThrow('not a statement name');
  });
});
