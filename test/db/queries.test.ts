import { beforeAll, describe, expect, it } from 'vitest';
import { committed, namedStatements, preparedCalls, REGENERATE, render, type NamedStatement } from '../../scripts/generate-sql';

/** The reference files of the SQL that runs (src/db/queries), written by scripts/generate-sql.ts. */
describe('the reference files of the named statements', () => {
  let statements: NamedStatement[];
  beforeAll(async () => {
    statements = await namedStatements();
  });

  it('hold each named statement as the code builds it now', async () => {
    const [now, before] = [render(statements), await committed()];
    const stale = [...new Set([...now.keys(), ...before.keys()])].filter((file) => now.get(file) !== before.get(file)).sort();
    expect(stale, `The named statements changed since src/db/queries was generated; run \`${REGENERATE}\` and commit the result`).toEqual([]);
  });

  it('cover every call of prepared', async () => {
    const reached = new Set(statements.map((statement) => statement.site));
    const unreached = (await preparedCalls()).filter((call) => !reached.has(call));
    expect(unreached, `No step of scripts/generate-sql.ts reaches these calls of prepared: add one, then run \`${REGENERATE}\``).toEqual([]);
  });
});
