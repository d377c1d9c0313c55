import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from '../db';
import type { DeliveryStatus } from '../webhooks/tables';
import { installAdminAuth } from './admin-auth';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

/** The label of a request no route matched: the raw URL would let any client add series. */
const UNMATCHED_ROUTE = 'unmatched';

/** Seconds from an event's commit to its delivery: retries take minutes to hours. */
const DELIVERY_LAG_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600];

/**
 * The service's Prometheus metrics: one Registry per app or worker process (tests build several
 * apps in one process; the global default registry would collide). Counters and histograms move
 * as things happen; the database gauges are read by SQL at scrape time, over every tenant.
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
  readonly #deliveries = new Counter({
    name: 'pickport_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, failed (a retry follows) or dead_letter (the last attempt failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #deliveryLag = new Histogram({
    name: 'pickport_webhook_delivery_lag_seconds',
    help: 'Seconds from the commit of an event to its successful delivery, retries included',
    buckets: DELIVERY_LAG_BUCKETS,
    registers: [this.registry],
  });

  constructor(database: DatabaseHandle) {
    for (const outcome of ['delivered', 'failed', 'dead_letter'] as const) this.#deliveries.inc({ outcome }, 0);
    for (const bucket of ['key', 'address'] as const) this.#rateLimited.inc({ bucket }, 0);
    registerDatabaseGauges(this.registry, database);
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

  /** One attempt's outcome; a delivered one also records how long after its event it arrived. */
  deliveryAttempted(outcome: DeliveryStatus, occurredAt: Date): void {
    this.#deliveries.inc({ outcome });
    if (outcome === 'delivered') this.#deliveryLag.observe(Math.max(0, Date.now() - occurredAt.getTime()) / 1000);
  }

  /** The exposition, with its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * Gauges read at scrape time. Each is one query over a partial or leading index except orders by
 * status, which counts the table. No tenant label: a series per tenant and status would grow with
 * the tenants; per-tenant figures are in the operator API.
 */
function registerDatabaseGauges(registry: Registry, database: DatabaseHandle): void {
  const { db } = database;
  const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(db)).rows[0]?.n ?? 0;
  new Gauge({
    name: 'pickport_webhook_deliveries_pending',
    help: 'Webhook deliveries waiting to be sent (due now or scheduled for a retry), over every tenant',
    registers: [registry],
    async collect() {
      this.set(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`));
    },
  });
  new Gauge({
    name: 'pickport_webhook_dead_letters',
    help: 'Webhook deliveries that failed their last attempt (dead letters), over every tenant',
    registers: [registry],
    async collect() {
      this.set(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'dead_letter'`));
    },
  });
  new Gauge({
    name: 'pickport_orders',
    help: 'Orders by status, over every tenant',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const result = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM orders GROUP BY status`.execute(db);
      this.reset();
      for (const row of result.rows) this.set({ status: row.status }, row.n);
    },
  });
  new Gauge({
    name: 'pickport_waves_in_progress',
    help: 'Waves being picked (status PICKING), over every tenant',
    registers: [registry],
    async collect() {
      this.set(await count(sql`SELECT count(*)::int AS n FROM waves WHERE status = 'PICKING'`));
    },
  });
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
  app.addHook('onResponse', async (request, reply) => metrics.requestAnswered(request, reply));
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
