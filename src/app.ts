import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import secureJson from 'secure-json-parse';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ADMIN_PREFIX, PUBLIC_PREFIX, WAREHOUSE_PREFIX } from './api-prefixes';
import { plannerSettings, type Config } from './config';
import type { DatabaseHandle, Db } from './db';
import { backupRoutes } from './backup/routes';
import { catalogRoutes } from './catalog/routes';
import { SESSION_COOKIE } from './console/auth';
import { CONSOLE_API_PREFIX, consoleRoutes } from './console/routes';
import { consoleStatic } from './console/static';
import { floorMetrics } from './floor/metrics';
import { Planner } from './floor/planner/planner';
import { floorRoutes } from './floor/routes';
import { insightRoutes } from './insight/routes';
import { settingsRoutes } from './settings/routes';
import { installAdminAuth } from './http/admin-auth';
import { installApiKeyAuth } from './http/auth';
import { frameworkErrors, installErrorHandling, MAX_PATH_SEGMENT, validationError } from './http/errors';
import { installIdempotency } from './http/idempotency';
import { inspectParsedBody, installInputChecks } from './http/input-check';
import { installMetrics, Metrics } from './http/metrics';
import { installRateLimiting, type Clock } from './http/rate-limit';
import { installTracing } from './http/tracing';
import { healthRoutes } from './http/health';
import { finishDocument, PICKPORT_LOGO, refResolver } from './http/openapi';
import { ErrorResponse } from './http/schemas';
import { serializersOnFirstUse, validatorCompiler } from './http/validation';
import { orderMetrics } from './orders/metrics';
import { orderRoutes } from './orders/routes';
import { apiKeyIdentifier } from './tenancy/identify';
import { ApiKeyCache } from './tenancy/key-cache';
import { staffRoutes } from './staff/routes';
import { tenancyRoutes } from './tenancy/routes';
import { warehouseRoutes } from './warehouse/routes';
import { webhookMetrics } from './webhooks/metrics';
import { webhookRoutes } from './webhooks/routes';
import { SERVICE_VERSION } from './version';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    database: DatabaseHandle;
    apiKeys: ApiKeyCache;
    planner: Planner;
  }
}

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  /** Pino options; tests pass `false`. */
  logger?: FastifyServerOptions['logger'];
  /** Milliseconds since the epoch for rate limits and idempotency expiry; tests move it. */
  clock?: Clock;
}

export { ADMIN_PREFIX, PUBLIC_PREFIX, WAREHOUSE_PREFIX };

/** Single requests; the batch routes raise their own limit. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

export async function buildApp({ config, database, logger, clock }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["x-idempotency-key"]'],
    },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Long-lived webhook receivers and batch clients must not hang shutdown forever.
    forceCloseConnections: 'idle',
    // Fastify's own closing 503 is not in the spec's envelope; a request that still arrives on an
    // open connection during shutdown is served instead (the database closes after the server).
    return503OnClosing: false,
    // The router's own errors (bad percent-encoding, an overlong path segment) in the envelope.
    frameworkErrors,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('db', database.db);
  app.decorate('database', database);
  const apiKeys = new ApiKeyCache(database, app.log);
  app.decorate('apiKeys', apiKeys);
  app.decorate('identifyApiKey', apiKeyIdentifier(apiKeys));
  // Subscribed when the app is ready, not while it is built: the service builds it while the
  // database still opens.
  app.addHook('onReady', () => apiKeys.start());
  app.addHook('onClose', () => apiKeys.stop());
  app.decorate('healthChecks', new Map());
  app.decorate('readinessChecks', new Map());
  // First of the hooks: a request's span covers all the others.
  installTracing(app);
  app.setValidatorCompiler(validatorCompiler());
  installErrorHandling(app);
  installJsonParser(app);
  installInputChecks(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  await installMetrics(app, serviceMetrics(database));
  const planner = new Planner(config.planner ?? plannerSettings({}), app.metrics.registry, app.log);
  app.decorate('planner', planner);
  app.readinessChecks.set('planner', async () => planner.readiness());
  app.addHook('onClose', () => planner.close());

  app.addSchema(ErrorResponse);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pickport API',
        version: SERVICE_VERSION,
        license: { name: 'Proprietary; use is governed by your Pickport agreement', identifier: 'LicenseRef-Pickport-Proprietary' },
        contact: { name: 'Pickport integration support' },
        description:
          'Order-picking integration service: catalog sync, order intake and lifecycle, signed webhooks. ' +
          `The public API lives under ${PUBLIC_PREFIX}; the operator and warehouse APIs take the admin token.`,
      },
      // Paths carry their full prefix, so the server is the deployment's own origin.
      servers: [{ url: '/', description: 'This deployment' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'pk_live_ followed by 40 characters' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN of the deployment' },
          consoleSession: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /console/api/session' },
        },
      },
      tags: [
        { name: 'health', description: 'Whether the service and its database answer (no key)' },
        { name: 'products', description: 'Catalog sync: create, update and list products by externalId' },
        { name: 'orders', description: 'Order intake and lifecycle: create, update, list and cancel orders' },
        { name: 'webhooks', description: 'Signed event deliveries: register endpoints, test, inspect and replay deliveries' },
        { name: 'operator', description: 'Tenants, API keys and warehouse users (admin token)' },
        { name: 'warehouse', description: 'Moves orders on the floor (admin token)' },
        { name: 'console', description: "The console's API for warehouse staff (session cookie; state-changing requests need the service's own Origin)" },
      ],
    },
    refResolver,
    transformObject: finishDocument,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    theme: { title: 'Pickport API reference' },
    logo: { type: 'image/svg+xml', content: PICKPORT_LOGO },
  });

  await app.register(
    async (scope) => {
      await scope.register(healthRoutes);
      scope.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      installApiKeyAuth(scope, (keyed) => installRateLimiting(keyed, { clock }));
      installIdempotency(scope, { clock });
      await scope.register(catalogRoutes);
      await scope.register(webhookRoutes);
      await scope.register(orderRoutes);
    },
    { prefix: PUBLIC_PREFIX },
  );
  await app.register(
    async (scope) => {
      installAdminAuth(scope);
      await scope.register(tenancyRoutes);
      await scope.register(staffRoutes);
      await scope.register(backupRoutes);
    },
    { prefix: ADMIN_PREFIX },
  );
  await app.register(
    async (scope) => {
      installAdminAuth(scope);
      await scope.register(warehouseRoutes);
      await scope.register(floorRoutes);
      await scope.register(insightRoutes);
      await scope.register(settingsRoutes);
    },
    { prefix: WAREHOUSE_PREFIX },
  );
  await app.register(consoleStatic);
  await app.register(consoleRoutes(clock ?? Date.now), { prefix: CONSOLE_API_PREFIX });
  return app;
}

/**
 * The metrics of a serve or worker process: the HTTP core's, and every feature's registered into
 * them, so that each series exists from the first scrape whichever process is scraped.
 */
export function serviceMetrics(database: DatabaseHandle): Metrics {
  const metrics = new Metrics(database);
  metrics.feature(webhookMetrics);
  metrics.feature(orderMetrics);
  metrics.feature(floorMetrics);
  return metrics;
}

/**
 * JSON is the only body the API takes (other types answer 400). An empty body, as a bodiless POST
 * such as cancel may send, is read as no body rather than an error. A body nested deeper than
 * MAX_NESTING is refused here, before anything walks it (V8's JSON.parse and secure-json-parse's
 * scan are iterative themselves).
 */
function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      // Drops `__proto__` and `constructor.prototype` keys: a body can never reach a prototype.
      parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch (error) {
      return done(error as Error, undefined);
    }
    const tooDeep = inspectParsedBody(text, parsed);
    done(tooDeep ? validationError([tooDeep]) : null, tooDeep ? undefined : parsed);
  });
}
