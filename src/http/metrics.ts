import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from '../db';
import { installAdminAuth } from './admin-auth';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

/** The label of a request no route matched: the raw URL would let any client add series. */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * A feature's own metrics: registers its instruments on `registry` (gauges may read `database` at
 * scrape time) and returns what the feature records through.
 */
export type FeatureMetrics<T> = (registry: Registry, database: DatabaseHandle) => T;

/**
 * The service's Prometheus metrics: one Registry per app or worker process (tests build several
 * apps in one process; the global default registry would collide). Counters and histograms move
 * as things happen; the database gauges are read by SQL at scrape time, over every tenant. The
 * core keeps the HTTP and connection-pool metrics; each feature registers its own (`feature`).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'pickport_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly #requestDuration = new Histogram({
    name: 'pickport_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly #rateLimited = new Counter({
    name: 'pickport_rate_limit_rejections_total',
    help: 'Requests refused with 429 by the rate limits, by bucket (an API key, or a source address without a valid key)',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });
  readonly #replays = new Counter({
    name: 'pickport_idempotent_replays_total',
    help: 'Requests answered with the stored answer of an earlier request with the same X-Idempotency-Key',
    registers: [this.registry],
  });
  readonly #database: DatabaseHandle;
  readonly #features = new Map<FeatureMetrics<unknown>, unknown>();

  constructor(database: DatabaseHandle) {
    this.#database = database;
    for (const bucket of ['key', 'address'] as const) this.#rateLimited.inc({ bucket }, 0);
    registerPoolGauges(this.registry, database);
  }

  /**
   * A feature's metrics on this registry: registered the first time they are asked for, the same
   * instruments after. The app registers every feature's when it builds the metrics, so that their
   * series exist from the first scrape; code that records into them asks again and gets those.
   */
  feature<T>(register: FeatureMetrics<T>): T {
    if (!this.#features.has(register)) this.#features.set(register, register(this.registry, this.#database));
    return this.#features.get(register) as T;
  }

  requestAnswered(request: FastifyRequest, reply: FastifyReply): void {
    const labels = { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: reply.statusCode };
    this.#requests.inc(labels);
    this.#requestDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.getHeader('x-idempotency-replayed') === 'true') this.#replays.inc();
  }

  rateLimited(bucket: 'key' | 'address'): void {
    this.#rateLimited.inc({ bucket });
  }

  /** The exposition, with its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The PostgreSQL pool's connections, read at scrape time. */
function registerPoolGauges(registry: Registry, database: DatabaseHandle): void {
  const pool = database.poolStats;
  // The embedded database has one connection and its own queue, which it does not report: no pool gauges.
  if (!pool) return;
  new Gauge({
    name: 'pickport_db_pool_connections',
    help: 'Connections of the PostgreSQL pool, by state (in_use, idle)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const { total, idle } = pool();
      this.set({ state: 'in_use' }, total - idle);
      this.set({ state: 'idle' }, idle);
    },
  });
  new Gauge({
    name: 'pickport_db_pool_waiting',
    help: 'Queries waiting for a free connection of the PostgreSQL pool',
    registers: [registry],
    collect() {
      this.set(pool().waiting);
    },
  });
}

/** Counts every answer and serves GET /metrics on the main port, behind the admin token. */
export async function installMetrics(app: FastifyInstance, metrics: Metrics): Promise<void> {
  app.decorate('metrics', metrics);
  app.addHook('onResponse', (request, reply, done) => {
    metrics.requestAnswered(request, reply);
    done();
  });
  await app.register(async (scope) => {
    installAdminAuth(scope);
    scope.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      const { contentType, body } = await metrics.scrape();
      return reply.type(contentType).send(body);
    });
  });
}

export interface MetricsListener {
  address: string;
  close(): Promise<void>;
}

/**
 * The separate metrics port (PICKPORT_METRICS_PORT): GET /metrics without a token, for a
 * Prometheus that reaches this port only. Anything else is 404.
 */
export async function startMetricsListener(metrics: Metrics, port: number, host: string, log: Pick<FastifyBaseLogger, 'error'>): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: this port serves GET /metrics\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      (error: unknown) => {
        // No detail on a port without a token: the database's message goes to the log.
        log.error({ err: error }, 'a metrics scrape could not read the database');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be read from the database\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return {
    address: `http://${address.includes(':') ? `[${address}]` : address}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
