import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db';
import { prepared } from '../../src/db/prepared';
import { inTransaction } from '../../src/db/transaction';
import { openTestDatabase, usingPostgres } from '../helpers/context';
import { roundTripCounter } from '../helpers/round-trips';

/**
 * The statement that rides with COMMIT (src/db/riders.ts), and on PostgreSQL a transaction's first
 * statement, which carries its BEGIN (src/db/postgres-dialect.ts); on the database this run uses.
 */
describe('transaction riders', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  const notes = () => sql<{ note: string }>`SELECT note FROM rider_notes ORDER BY note`.execute(database.db).then((r) => r.rows.map((row) => row.note));

  /** More transactions at once than the pool has connections: one left in a failed transaction would fail them. */
  async function expectEveryConnectionUsable() {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => inTransaction(database.db, async (tx) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(tx)).rows[0])),
    );
    expect(results).toEqual(Array.from({ length: 12 }, () => ({ one: 1 })));
  }

  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase());
    await sql`CREATE TABLE rider_notes (note text PRIMARY KEY, at timestamptz, n numeric, flag boolean)`.execute(database.db);
  });
  afterAll(() => drop());

  it('commits the COMMIT rider with the work', async () => {
    const db = database.db;
    await inTransaction(db, async (tx, riders) => {
      await sql`INSERT INTO rider_notes (note) VALUES ('work')`.execute(tx);
      riders.beforeCommit = sql`INSERT INTO rider_notes (note) VALUES (${'rider'})`.compile(db);
    });
    expect(await notes()).toEqual(['rider', 'work']);
    await sql`DELETE FROM rider_notes`.execute(db);
  });

  it('carries values exactly, whatever quotes or backslashes they hold', async () => {
    const db = database.db;
    const tricky = `it's a \\'quote\\' -- and $1; DROP TABLE rider_notes; \\x00`;
    const at = new Date('2026-11-22T10:11:12.345Z');
    await inTransaction(db, async (_tx, riders) => {
      riders.beforeCommit = sql`INSERT INTO rider_notes VALUES (${tricky}, ${at}, ${12.5}, ${true})`.compile(db);
    });
    const { rows } = await sql<{ note: string; at: Date; n: number; flag: boolean }>`SELECT * FROM rider_notes`.execute(db);
    expect(rows).toEqual([{ note: tricky, at, n: 12.5, flag: true }]);
    await sql`DELETE FROM rider_notes`.execute(db);
  });

  it("carries a transaction's first statement with its BEGIN exactly: quotes, backslashes, arrays, dates, and `$1` inside a string", async () => {
    const db = database.db;
    const tricky = `o'clock \\ $2 "x"`;
    const at = new Date('2026-01-02T03:04:05.678Z');
    const read = await inTransaction(db, async (tx) => {
      const first = await sql<{ note: string; tags: string[]; at: Date; n: string }>`
        SELECT ${tricky} || ' $1' AS note, ${['a', "b'c", 'd"e', null]}::text[] AS tags, ${at}::timestamptz AS at, ${7}::int + 1 AS n`.execute(tx);
      await sql`INSERT INTO rider_notes (note) VALUES (${'second'})`.execute(tx);
      return first.rows[0];
    });
    expect(read).toEqual({ note: `${tricky} $1`, tags: ['a', "b'c", 'd"e', null], at, n: 8 });
    expect(await notes()).toEqual(['second']);
    await sql`DELETE FROM rider_notes`.execute(db);
  });

  it('binds every value, where a comment holds an apostrophe and `$1` or comes before a parameter', async () => {
    const db = database.db;
    const hostile = (where: string) => `x'); DROP TABLE rider_notes; -- ${where}`;
    const insert = (note: string): RawBuilder<unknown> => sql`
      INSERT INTO rider_notes (note) /* it's '$1' */ VALUES (
        -- it's the note, not '$1':
        ${note}) -- it's '$1'`;
    const read = await inTransaction(db, async (tx, riders) => {
      const first = await sql<{ literal: string; note: string }>`
        SELECT /* it's */ '$1' AS literal, -- a comment before the parameter
          ${hostile('read')}::text AS note -- it's '$1'`.execute(tx);
      await insert(hostile('statement')).execute(tx);
      riders.beforeCommit = insert(hostile('rider')).compile(db);
      return first.rows;
    });
    expect(read).toEqual([{ literal: '$1', note: hostile('read') }]);
    await inTransaction(db, async (tx, riders) => {
      await prepared('rider_commented_insert', insert(hostile('named first statement'))).execute(tx);
      riders.beforeCommit = prepared('rider_commented_insert', insert(hostile('named rider'))).compile(db);
    });
    await inTransaction(db, async (_tx, riders) => {
      riders.beforeCommit = insert(hostile('lone rider')).compile(db);
    });
    await insert(hostile('autocommit')).execute(db);
    const expected = ['statement', 'rider', 'named first statement', 'named rider', 'lone rider', 'autocommit'].map(hostile);
    expect((await notes()).sort()).toEqual(expected.sort());
    await sql`DELETE FROM rider_notes`.execute(db);
  });

  it.skipIf(!usingPostgres)('sends BEGIN with the first statement and the rider with COMMIT, and nothing for a transaction that ran no statement', async () => {
    const counter = await roundTripCounter(process.env.DATABASE_URL!);
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(database.db);
    // One connection, so that every statement below goes through it.
    const counted = await openDatabase({ url: counter.url, schema: rows[0]!.schema, poolSize: 1 });
    const db = counted.db;
    const insert = (note: string) => sql`INSERT INTO rider_notes (note) VALUES (${note})`;
    const tripsOf = async (work: () => Promise<unknown>) => {
      const before = counter.trips();
      await work();
      return counter.trips() - before;
    };
    try {
      await sql`SELECT 1`.execute(db);
      const trips = {
        statementAndRider: await tripsOf(() =>
          inTransaction(db, async (tx, riders) => {
            await insert('statement').execute(tx);
            riders.beforeCommit = insert('rider').compile(db);
          }),
        ),
        twoStatements: await tripsOf(() =>
          inTransaction(db, async (tx) => {
            await insert('first').execute(tx);
            await prepared('rider_note_named_insert', insert('second')).execute(tx);
          }),
        ),
        nothing: await tripsOf(() => inTransaction(db, async () => 'nothing ran')),
        riderAlone: await tripsOf(() =>
          inTransaction(db, async (_tx, riders) => {
            riders.beforeCommit = prepared('rider_note_named_insert', insert('alone')).compile(db);
          }),
        ),
        // BEGIN and the failing statement, then ROLLBACK.
        firstStatementFails: await tripsOf(() => expect(inTransaction(db, (tx) => insert('first').execute(tx))).rejects.toMatchObject({ code: '23505' })),
        // The failed rider's COMMIT ends the transaction: no ROLLBACK follows.
        riderFails: await tripsOf(() =>
          expect(
            inTransaction(db, async (tx, riders) => {
              await insert('work').execute(tx);
              riders.beforeCommit = insert('rider').compile(db);
            }),
          ).rejects.toMatchObject({ code: '23505' }),
        ),
      };
      expect(trips).toEqual({ statementAndRider: 2, twoStatements: 3, nothing: 0, riderAlone: 1, firstStatementFails: 2, riderFails: 2 });
      expect(await notes()).toEqual(['alone', 'first', 'rider', 'second', 'statement']);
      await sql`DELETE FROM rider_notes`.execute(db);
      // The connection is left in no transaction.
      expect((await sql<{ open: boolean }>`SELECT now() = statement_timestamp() AS open`.execute(db)).rows).toEqual([{ open: true }]);
    } finally {
      await counted.close();
      await counter.close();
    }
  });

  it.skipIf(!usingPostgres)('runs every statement of a transaction asking for generic plans on its generic plan, and only that transaction', async () => {
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(database.db);
    // One connection: its named statements and its settings are the ones read below.
    const single = await openDatabase({ url: process.env.DATABASE_URL!, schema: rows[0]!.schema, poolSize: 1 });
    const db = single.db;
    const planCacheMode = async (executor: typeof db) => (await sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`.execute(executor)).rows[0]!.plan_cache_mode;
    const countNamed = (names: string[]) => prepared('rider_generic_plans_count', sql<{ count: string }>`SELECT count(*) FROM unnest(${names}::text[]) AS n WHERE n <> ''`);
    try {
      const during: string[] = [];
      for (let run = 0; run < 3; run++) {
        const counted = await inTransaction(
          db,
          async (tx) => {
            const { rows: counts } = await countNamed(['a', 'b', `${run}`]).execute(tx);
            during.push(await planCacheMode(tx));
            return counts[0]!.count;
          },
          true,
        );
        expect(Number(counted)).toBe(3);
      }
      expect(during).toEqual(['force_generic_plan', 'force_generic_plan', 'force_generic_plan']);
      // Other transactions and statements of the connection plan as PostgreSQL chooses.
      expect(await inTransaction(db, (tx) => planCacheMode(tx))).toBe('auto');
      expect(await planCacheMode(db)).toBe('auto');
      const { rows: plans } = await sql<{ generic_plans: string; custom_plans: string }>`
        SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'rider_generic_plans_count'`.execute(db);
      expect(plans.map((plan) => ({ generic: Number(plan.generic_plans), custom: Number(plan.custom_plans) }))).toEqual([{ generic: 3, custom: 0 }]);
    } finally {
      await single.close();
    }
  });

  it('commits or rolls back a transaction that ran no statement, and one whose first statement failed', async () => {
    const db = database.db;
    expect(await inTransaction(db, async () => 'nothing ran')).toBe('nothing ran');
    await expect(inTransaction(db, async () => Promise.reject(new Error('refused before any statement')))).rejects.toThrow('refused');
    for (let i = 0; i < 12; i++) {
      await expect(inTransaction(db, (tx) => sql`SELECT 1 / ${0}::int`.execute(tx))).rejects.toMatchObject({ code: '22012' });
    }
    await expectEveryConnectionUsable();
  });

  it('sends a named COMMIT rider again and again on every connection, failures included, with its values exact', async () => {
    const db = database.db;
    const store = (note: string, n: number) =>
      inTransaction(db, async (_tx, riders) => {
        riders.beforeCommit = prepared('rider_note_insert', sql`INSERT INTO rider_notes (note, n, flag) VALUES (${note}, ${n}, ${n % 2 === 0})`).compile(db);
      });
    // More transactions than the pool has connections, several times each; every third one fails on
    // the primary key, after which its connection must still know the statement as prepared.
    const notes = Array.from({ length: 36 }, (_, i) => `it's note ${i % 3 === 2 ? i - 1 : i}`);
    const outcomes = await Promise.allSettled(notes.map((note, i) => store(note, i)));
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as { code?: string }).code] : []));
    expect(failures).toEqual(Array(12).fill('23505'));
    const { rows } = await sql<{ note: string; n: number; flag: boolean }>`SELECT note, n::int AS n, flag FROM rider_notes`.execute(db);
    expect(rows).toHaveLength(24);
    for (const row of rows) expect(row).toEqual({ note: notes[row.n], n: row.n, flag: row.n % 2 === 0 });
    await sql`DELETE FROM rider_notes`.execute(db);
    if (usingPostgres) {
      const prepared = await Promise.all(
        Array.from({ length: 12 }, () =>
          inTransaction(db, async (tx) => (await sql<{ name: string }>`SELECT name FROM pg_prepared_statements`.execute(tx)).rows),
        ),
      );
      expect(prepared.flat()).toContainEqual({ name: 'rider_note_insert' });
    }
    await expectEveryConnectionUsable();
  });

  it("leaves a transaction's rider out of the next transaction on the same connection", async () => {
    const db = database.db;
    await db.connection().execute(async (connection) => {
      await inTransaction(connection, async (_tx, riders) => {
        riders.beforeCommit = sql`INSERT INTO rider_notes (note) VALUES (${'once'})`.compile(db);
      });
      // A rider carried over would run again here and fail on the primary key.
      await connection.transaction().execute((tx) => sql`INSERT INTO rider_notes (note) VALUES ('next')`.execute(tx));
    });
    expect(await notes()).toEqual(['next', 'once']);
    await sql`DELETE FROM rider_notes`.execute(db);
  });

  it('rolls the work back when the COMMIT rider fails', async () => {
    const db = database.db;
    await sql`INSERT INTO rider_notes (note) VALUES ('taken')`.execute(db);
    const attempt = inTransaction(db, async (tx, riders) => {
      await sql`INSERT INTO rider_notes (note) VALUES ('work')`.execute(tx);
      riders.beforeCommit = sql`INSERT INTO rider_notes (note) VALUES (${'taken'})`.compile(db);
    });
    await expect(attempt).rejects.toMatchObject({ code: '23505' });
    expect(await notes()).toEqual(['taken']);
    await sql`DELETE FROM rider_notes`.execute(db);
  });

  it('leaves every connection usable after a COMMIT rider fails, in a transaction that ran no statement too', async () => {
    const db = database.db;
    for (let i = 0; i < 12; i++) {
      const failing = inTransaction(db, async (_tx, riders) => {
        riders.beforeCommit = sql`SELECT 1 / ${0}::int`.compile(db);
      });
      await expect(failing).rejects.toMatchObject({ code: '22012' });
    }
    await expectEveryConnectionUsable();
  });
});
