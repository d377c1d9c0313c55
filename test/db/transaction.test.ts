import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db';
import { inTransaction } from '../../src/db/transaction';
import { openTestDatabase, usingPostgres } from '../helpers/context';

/** Concurrent transactions need a server: the embedded database runs one transaction at a time. */
describe.skipIf(!usingPostgres)('transactions on PostgreSQL', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase());
    await sql`CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)`.execute(database.db);
    await sql`INSERT INTO counters VALUES (1, 0), (2, 0)`.execute(database.db);
  });
  afterAll(() => drop());

  it('runs the deadlock victim again, so both writers succeed', async () => {
    let bothHoldTheirFirstRow!: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldTheirFirstRow = resolve));
    let holding = 0;
    const attempts = { a: 0, b: 0 };
    const writer = (name: 'a' | 'b', first: number, second: number) =>
      inTransaction(database.db, async (tx) => {
        attempts[name]++;
        await sql`UPDATE counters SET value = value + 1 WHERE id = ${first}`.execute(tx);
        if (++holding === 2) bothHoldTheirFirstRow();
        await barrier;
        await sql`UPDATE counters SET value = value + 1 WHERE id = ${second}`.execute(tx);
      });

    await Promise.all([writer('a', 1, 2), writer('b', 2, 1)]);

    // One of the two was a deadlock victim and ran again; under load its rerun can race the other
    // writer into a second deadlock, which is run again too. Both must end up applied, once each.
    expect(attempts.a + attempts.b).toBeGreaterThanOrEqual(3);
    const { rows } = await sql<{ value: number }>`SELECT value FROM counters ORDER BY id`.execute(database.db);
    expect(rows.map((r) => r.value)).toEqual([2, 2]);
  });

  it('does not run a transaction again for other errors', async () => {
    let runs = 0;
    await expect(
      inTransaction(database.db, async (tx) => {
        runs++;
        await sql`INSERT INTO counters VALUES (1, 0)`.execute(tx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
  });
});

describe.skipIf(usingPostgres)('the embedded database and the event loop', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  beforeAll(async () => ({ database, drop } = await openTestDatabase()));
  afterAll(() => drop());

  it('lets the event loop turn between statements, so a request arriving meanwhile is read before the last of them runs', async () => {
    // A timer stands for the I/O of a request arriving: it fires only when the event loop turns.
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    try {
      const before = turns;
      // One caller running statements one after the other, as a request's handler does.
      for (let n = 0; n < 300; n++) await sql`SELECT ${n}::int AS n`.execute(database.db);
      // Without a pause the statements run back to back as one task: the timer never fires.
      expect(turns).toBeGreaterThan(before);
    } finally {
      clearInterval(ticker);
    }
  });
});
