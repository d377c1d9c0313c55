import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db';
import { openTestDatabase, usingPostgres } from '../helpers/context';

describe.skipIf(!usingPostgres)('pooled sessions on PostgreSQL', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  beforeAll(async () => ({ database, drop } = await openTestDatabase()));
  afterAll(() => drop());

  it('compile no statement just in time, on every connection of the pool', async () => {
    // Several transactions at once, so that they hold different connections.
    const settings = await Promise.all(
      Array.from({ length: 4 }, () =>
        database.db.transaction().execute(async (tx) => {
          const { rows } = await sql<{ jit: string; pid: number }>`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(tx);
          return rows[0]!;
        }),
      ),
    );
    expect(new Set(settings.map((s) => s.pid)).size).toBe(4);
    expect(settings.map((s) => s.jit)).toEqual(['off', 'off', 'off', 'off']);
  });
});
