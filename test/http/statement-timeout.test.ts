import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { toApiError } from '../../src/http/errors';
import { respondWithWrite } from '../../src/http/write';
import { createTestContext, usingPostgres } from '../helpers/context';

/**
 * A statement cut short by `statement_timeout` (SQLSTATE 57014) answers 503 with Retry-After, its
 * write rolled back. PostgreSQL only: the embedded database (PGlite, WASM) runs no timers, so its
 * statement_timeout never fires (`SELECT pg_sleep(1)` under a 200 ms timeout completes).
 */
describe.runIf(usingPostgres)('a statement past statement_timeout (PostgreSQL only: PGlite never fires statement_timeout)', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, and what the write did before it is rolled back', async () => {
    const ctx = await createTestContext();
    try {
      const tenant = await ctx.tenant();
      const app = await buildApp({ config: ctx.config, database: ctx.database, logger: false });
      app.post('/probe/slow-write', async (request, reply) =>
        respondWithWrite(request, reply, {
          work: async (tx) => {
            await tx.insertInto('events').values({ tenant_id: tenant.id, event: 'probe', data: '{}' }).execute();
            await sql`SET LOCAL statement_timeout = '50ms'`.execute(tx);
            await sql`SELECT pg_sleep(2)`.execute(tx);
            return {};
          },
          answer: () => ({ body: { success: true } }),
        }),
      );
      await app.ready();
      try {
        const response = await app.inject({ method: 'POST', url: '/probe/slow-write' });
        expect(response.statusCode, response.body).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.json()).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE', retryAfter: 5 }, requestId: response.headers['x-request-id'] });
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE tenant_id = ${tenant.id} AND event = 'probe'`.execute(ctx.database.db);
        expect(rows[0]!.n).toBe(0);
      } finally {
        await app.close();
      }
    } finally {
      await ctx.close();
    }
  });
});

describe('SQLSTATE 57014 on either database', () => {
  it('is SERVICE_UNAVAILABLE with a Retry-After, not an internal error', () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014', severity: 'ERROR' });
    expect(toApiError(cancelled)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', statusCode: 503, retryAfter: 5 });
  });
});
