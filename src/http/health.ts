import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pingDatabase, type Db } from '../db';
import { pendingMigrations } from '../db/migrate';
import { SERVICE_VERSION } from '../version';
import { ErrorResponse, RequestId } from './schemas';

const CheckStatus = Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('degraded')]);
const HealthResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  checks: Type.Object({ database: CheckStatus, redis: Type.Optional(CheckStatus) }),
  requestId: RequestId,
});

const LiveResponse = Type.Object({ status: Type.Literal('live'), requestId: RequestId });
const ReadyCheck = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('error')]), message: Type.Optional(Type.String()) });
const ReadyResponse = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  checks: Type.Record(Type.String(), ReadyCheck, { description: 'database, migrations, and what features add (planner); each ok, or error with why' }),
  requestId: RequestId,
});

/** Extra checks features add (the Redis-backed rate limiter reports here); `degraded` does not fail health. */
export type HealthCheck = () => Promise<'ok' | 'error' | 'degraded'>;

/** What a feature adds to readiness: undefined when ready, else why not. */
export type ReadinessCheck = () => Promise<string | undefined>;

declare module 'fastify' {
  interface FastifyInstance {
    healthChecks: Map<'redis', HealthCheck>;
    readinessChecks: Map<string, ReadinessCheck>;
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        operationId: 'getHealth', summary: 'Service health; needs no key',
        security: [],
        // 400 is the router's own answer to a path that is not valid percent-encoding.
        response: { 200: HealthResponse, 400: Type.Ref(ErrorResponse), 503: HealthResponse },
      },
    },
    async (request, reply) => {
      const database = (await pingDatabase(app.db)) ? 'ok' : 'error';
      const checks: { database: typeof database; redis?: 'ok' | 'error' | 'degraded' } = { database };
      for (const [name, check] of app.healthChecks) checks[name] = await check();
      const healthy = database === 'ok' && checks.redis !== 'error';
      return reply.status(healthy ? 200 : 503).send({
        status: healthy ? 'ok' : 'unavailable',
        version: SERVICE_VERSION,
        checks,
        requestId: request.id,
      });
    },
  );

  app.get(
    '/health/live',
    {
      schema: {
        tags: ['health'],
        operationId: 'getLiveness', summary: 'Liveness: 200 while the process can answer; asks nothing of the database; needs no key',
        security: [],
        response: { 200: LiveResponse, 400: Type.Ref(ErrorResponse) },
      },
    },
    async (request) => ({ status: 'live' as const, requestId: request.id }),
  );

  app.get(
    '/health/ready',
    {
      schema: {
        tags: ['health'],
        operationId: 'getReadiness',
        summary: 'Readiness: 200 only when the database answers, its migrations are applied and the planner threads are up; 503 saying which is not; needs no key',
        security: [],
        response: { 200: ReadyResponse, 400: Type.Ref(ErrorResponse), 503: ReadyResponse },
      },
    },
    async (request, reply) => {
      const checks: Record<string, { status: 'ok' | 'error'; message?: string }> = {};
      const record = (name: string, problem: string | undefined) => (checks[name] = problem === undefined ? { status: 'ok' } : { status: 'error', message: problem });
      const answers = await pingDatabase(app.db);
      record('database', answers ? undefined : 'the database does not answer');
      record('migrations', answers ? await migrationsProblem(app.db) : 'unknown while the database does not answer');
      for (const [name, check] of app.readinessChecks) record(name, await check());
      const ready = Object.values(checks).every((check) => check.status === 'ok');
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks, requestId: request.id });
    },
  );
};

/** Why the migrations are not all applied, or undefined when they are. */
async function migrationsProblem(db: Db): Promise<string | undefined> {
  try {
    const pending = await pendingMigrations(db);
    return pending.length === 0 ? undefined : `${pending.length} migration(s) not applied: ${pending.join(', ')}`;
  } catch {
    return 'the migrations table cannot be read';
  }
}
