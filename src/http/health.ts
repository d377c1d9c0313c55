import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pingDatabase } from '../db';
import { SERVICE_VERSION } from '../version';
import { ErrorResponse, RequestId } from './schemas';

const CheckStatus = Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('degraded')]);
const HealthResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  checks: Type.Object({ database: CheckStatus, redis: Type.Optional(CheckStatus) }),
  requestId: RequestId,
});

/** Extra checks features add (the Redis-backed rate limiter reports here); `degraded` does not fail health. */
export type HealthCheck = () => Promise<'ok' | 'error' | 'degraded'>;

declare module 'fastify' {
  interface FastifyInstance {
    healthChecks: Map<'redis', HealthCheck>;
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
};
