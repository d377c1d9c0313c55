import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import type { Config } from '../../src/config';
import { installApiKeyAuth, tenantOf } from '../../src/http/auth';
import { WriteRaced } from '../../src/db/errors';
import { ApiError } from '../../src/http/errors';
import { installIdempotency } from '../../src/http/idempotency';
import { installRateLimiting, type Clock } from '../../src/http/rate-limit';
import { respondWithWrite } from '../../src/http/write';
import type { TestContext } from '../helpers/context';

/** A clock the test moves by hand. */
export function manualClock(start = Date.UTC(2026, 4, 4, 12, 0, 0)) {
  let now = start;
  const clock: Clock = () => now;
  return {
    clock,
    set: (ms: number) => (now = ms),
    advance: (ms: number) => (now += ms),
    get now() {
      return now;
    },
  };
}

/** Lets a test hold a request inside its handler, to make "still running" deterministic. */
export class Gate {
  #open!: () => void;
  #entered!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.#open = resolve));
  /** Resolves once a request waits at the gate. */
  readonly reached = new Promise<void>((resolve) => (this.#entered = resolve));
  async pass(): Promise<void> {
    this.#entered();
    await this.opened;
  }
  open(): void {
    this.#open();
  }
}

export interface ProbeOptions {
  clock?: Clock;
  windowMs?: number;
  config?: Partial<Config>;
  /** Held before the write of `POST /probe/write` when set. */
  gate?: () => Gate | undefined;
  /** Held inside the write's transaction, before it writes, when set. */
  gateInWrite?: () => Gate | undefined;
}

/**
 * Another instance of the service on the test context's database (and Redis), with probe routes
 * under the public prefix behind the same hooks as the public API: `GET /probe/read`, and
 * `POST /probe/write` which records one `probe` event per execution. Its body `{fail}` makes it
 * write and then fail: `404` (a 4xx, the write rolled back) or `500`; `{races: n}` makes its first n
 * runs lose a race (WriteRaced) after writing.
 */
export async function probeApp(ctx: TestContext, options: ProbeOptions = {}): Promise<FastifyInstance> {
  const { clock } = options;
  const app = await buildApp({ config: { ...ctx.config, ...options.config }, database: ctx.database, logger: false, ...(clock ? { clock } : {}) });
  await app.register(
    async (scope) => {
      installApiKeyAuth(scope, (keyed) => installRateLimiting(keyed, { ...(clock ? { clock } : {}), ...(options.windowMs ? { windowMs: options.windowMs } : {}) }));
      installIdempotency(scope, clock ? { clock } : {});
      scope.get('/read', { config: { permission: 'products:read' } }, async (request) => ({ success: true, data: {}, requestId: request.id }));
      scope.post<{ Body: { note?: string; fail?: 404 | 500; races?: number } | undefined }>(
        '/write',
        {
          config: { permission: 'products:write' },
          schema: { body: { type: 'object', properties: { note: { type: 'string', maxLength: 20 }, fail: { type: 'integer' }, races: { type: 'integer' } } } },
        },
        async (request, reply) => {
          await options.gate?.()?.pass();
          let runs = 0;
          return respondWithWrite(request, reply, {
            work: async (tx) => {
              await options.gateInWrite?.()?.pass();
              await tx.insertInto('events').values({ tenant_id: tenantOf(request), event: 'probe', data: JSON.stringify(request.body ?? {}) }).execute();
              if (request.body?.fail === 404) throw new ApiError('NOT_FOUND', 'Probe not found');
              if (request.body?.fail === 500) throw new Error('probe failure');
              // As if a concurrent request had written a row this one read as absent, for its first `races` runs.
              if (++runs <= (request.body?.races ?? 0)) throw new WriteRaced(new Error('probe race'));
              reply.header('location', '/probe/1');
              return { note: request.body?.note ?? null };
            },
            answer: (data) => ({ statusCode: 201, body: { success: true, data, requestId: request.id } }),
          });
        },
      );
    },
    { prefix: `${PUBLIC_PREFIX}/probe` },
  );
  await app.ready();
  return app;
}

/** How many times `POST /probe/write` committed for a tenant. */
export async function probeExecutions(ctx: TestContext, tenantId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE tenant_id = ${tenantId} AND event = 'probe'`.execute(ctx.database.db);
  return rows[0]!.n;
}
