import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_PREFIX } from '../../src/app';
import { ConfigError, loadConfig } from '../../src/config';
import { emit } from '../../src/events/outbox';
import { startMetricsListener } from '../../src/http/metrics';
import { startServer } from '../../src/server';
import { ADMIN_TOKEN, createTestContext, testConfig, usingPostgres, type TestTenant, UNLIMITED } from '../helpers/context';
import { useDeliveries } from '../helpers/setup';
import { freePort } from '../helpers/ports';
import { holdTransaction, waitFor } from '../helpers/wait';
import { floorOf, seedPlacedProducts } from '../floor/helpers';
import { item, order } from '../orders/helpers';

/** One line of the text exposition: a sample with its labels, sorted so that a test can name them in any order. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const sampleKey = (name: string, labels: Record<string, string | number> = {}) =>
  `${name}{${Object.entries(labels)
    .map(([label, value]) => `${label}=${value}`)
    .sort()
    .join(',')}}`;

/** Parses an exposition into samples; fails on any line that is neither a comment nor a sample. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1]!, m[2]!]));
    samples.set(sampleKey(match[1]!, labels), Number(match[3]));
  }
  return samples;
}

const PRODUCTS = `${PUBLIC_PREFIX}/products`;
const SECRET = 'whsec_metrics_tests_0123456789abcdef';

describe('metrics: GET /metrics in the Prometheus text format', () => {
  // One retry: a receiver that always fails gives one failed attempt, then a dead letter.
  const setup = useDeliveries({ webhookRetryDelaysMs: [50] }, { pollIntervalMs: 100, metrics: true });
  let tenant: TestTenant;

  beforeAll(async () => {
    setup.receiver.answer = (request) => ({ status: request.path.endsWith('/failing') ? 500 : 200 });
    tenant = await setup.ctx.tenant(UNLIMITED);
  });

  async function scrape(): Promise<Map<string, number>> {
    const response = await setup.ctx.admin('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(String(response.body));
  }

  it('answers 401 in the envelope without the admin token, and with a tenant API key', async () => {
    for (const authorization of [undefined, `Bearer ${tenant.key}`]) {
      const response = await setup.ctx.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('counts requests by method, route pattern and status, 429s by bucket and idempotent replays', async () => {
    const product = { externalId: 'm-1', sku: 'SKU-m-1', name: 'Widget', stock: 5 };
    expect((await tenant.api.post('/products', product)).status).toBe(201);
    expect((await tenant.api.post('/products', { sku: 'no-name' })).status).toBe(400);
    const key = randomUUID();
    const again = { ...product, externalId: 'm-2', sku: 'SKU-m-2' };
    expect((await tenant.api.post('/products', again, { 'x-idempotency-key': key })).status).toBe(201);
    const replayed = await tenant.api.post('/products', again, { 'x-idempotency-key': key });
    expect(replayed.headers['x-idempotency-replayed']).toBe('true');
    const limited = await setup.ctx.tenant({ rateLimitPerMinute: 1, dailyLimit: 1000 });
    expect((await limited.api.get('/products')).status).toBe(200);
    expect((await limited.api.get('/products')).status).toBe(429);
    expect((await setup.ctx.app.inject({ method: 'GET', url: `/no/such/${randomUUID()}` })).statusCode).toBe(404);

    const samples = await scrape();
    const requests = (method: string, route: string, status: number) => samples.get(sampleKey('pickport_http_requests_total', { method, route, status }));
    expect(requests('POST', PRODUCTS, 201)).toBe(3);
    expect(requests('POST', PRODUCTS, 400)).toBe(1);
    expect(requests('GET', PRODUCTS, 200)).toBe(1);
    expect(requests('GET', PRODUCTS, 429)).toBe(1);
    expect(requests('GET', 'unmatched', 404)).toBe(1);
    const durations = (suffix: string, labels: Record<string, string | number>) => samples.get(sampleKey(`pickport_http_request_duration_seconds_${suffix}`, labels));
    const created = { method: 'POST', route: PRODUCTS, status: 201 };
    expect(durations('count', created)).toBe(3);
    expect(durations('bucket', { ...created, le: '+Inf' })).toBe(3);
    expect(durations('sum', created)).toBeGreaterThan(0);
    expect(samples.get(sampleKey('pickport_rate_limit_rejections_total', { bucket: 'key' }))).toBe(1);
    expect(samples.get(sampleKey('pickport_rate_limit_rejections_total', { bucket: 'address' }))).toBe(0);
    expect(samples.get(sampleKey('pickport_idempotent_replays_total'))).toBe(1);
    // Routes are patterns: no raw URL, and so no client-chosen value, becomes a label.
    const routes = [...samples.keys()].filter((k) => k.startsWith('pickport_http_requests_total')).map((k) => /route=([^,}]*)/.exec(k)?.[1]);
    expect(routes.every((route) => route === 'unmatched' || route === '/metrics' || route?.startsWith('/api/v1/'))).toBe(true);
    expect([...samples.keys()].some((k) => k.includes('/no/such'))).toBe(false);
  });

  it('counts deliveries by outcome with their lag, and reads pending and dead letters from the database', async () => {
    const before = await scrape();
    for (const path of ['ok', 'failing']) {
      const response = await tenant.api.post('/webhooks', { url: `${setup.receiver.url}/${randomUUID()}/${path}`, events: ['product.stock_updated'], secret: SECRET });
      expect(response.status).toBe(201);
    }
    const event = { event: 'product.stock_updated', data: { productId: randomUUID(), sku: 'SKU-m-1', previousStock: 5, newStock: 4, reason: 'INVENTORY_SYNC' } } as const;
    await setup.ctx.database.db.transaction().execute((tx) => emit(tx, tenant.id, [event]));
    const deadLetters = async () =>
      Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'dead_letter'`.execute(setup.ctx.database.db)).rows[0]!.n);
    await waitFor('the failing delivery dead-lettered', async () => (await deadLetters()) === 1);
    await waitFor('the other delivered', () => setup.receiver.requests.some((r) => r.path.endsWith('/ok')));

    // Each attempt is counted once the receiver has answered; its row is written right after.
    const delivered = sampleKey('pickport_webhook_deliveries_total', { outcome: 'delivered' });
    const pending = sampleKey('pickport_webhook_deliveries_pending');
    const samples = await waitFor('the delivered attempt counted and recorded', async () => {
      const current = await scrape();
      return current.get(delivered) === 1 && current.get(pending) === 0 ? current : undefined;
    });
    const deliveries = (outcome: string) => {
      const key = sampleKey('pickport_webhook_deliveries_total', { outcome });
      return samples.get(key)! - before.get(key)!;
    };
    expect(before.get(delivered)).toBe(0);
    expect(deliveries('failed')).toBe(1);
    expect(deliveries('dead_letter')).toBe(1);
    expect(samples.get(sampleKey('pickport_webhook_delivery_lag_seconds_count'))).toBe(1);
    expect(samples.get(sampleKey('pickport_webhook_delivery_lag_seconds_bucket', { le: '+Inf' }))).toBe(1);
    expect(samples.get(sampleKey('pickport_webhook_delivery_lag_seconds_sum'))).toBeGreaterThan(0);
    expect(samples.get(sampleKey('pickport_webhook_dead_letters'))).toBe(1);
  });

  it('shows orders by status and waves in progress, over every tenant', async () => {
    const picker = await setup.ctx.tenant(UNLIMITED);
    const floor = await floorOf(setup.ctx, picker, [{ code: 'A-01', aisle: 1, position: 1 }]);
    await seedPlacedProducts(picker, [{ externalId: 'SOCK', locationCode: 'A-01' }]);
    expect((await picker.api.post('/orders', order('W-1', [item('SOCK')]))).status).toBe(201);
    expect((await picker.api.post('/orders', order('W-2', [item('SOCK')]))).status).toBe(201);
    expect((await tenant.api.post('/orders', order('U-1', [item('UNKNOWN')]))).status).toBe(201);
    expect((await floor.post('/waves', { orders: ['W-1'] })).status).toBe(201);

    const samples = await scrape();
    const orders = [...samples].filter(([key]) => key.startsWith('pickport_orders{'));
    expect(Object.fromEntries(orders)).toEqual({
      [sampleKey('pickport_orders', { status: 'IN_PICKING' })]: 1,
      [sampleKey('pickport_orders', { status: 'PENDING' })]: 1,
      [sampleKey('pickport_orders', { status: 'PENDING_VALIDATION' })]: 1,
    });
    expect(samples.get(sampleKey('pickport_waves_in_progress'))).toBe(1);
  });

  it('reports the PostgreSQL pool, and no pool on the embedded database (one connection)', async () => {
    const samples = await scrape();
    const inUse = samples.get(sampleKey('pickport_db_pool_connections', { state: 'in_use' }));
    const idle = samples.get(sampleKey('pickport_db_pool_connections', { state: 'idle' }));
    const waiting = samples.get(sampleKey('pickport_db_pool_waiting'));
    if (usingPostgres) {
      // The test database's pool has 10 connections; the scrape's own queries hold some of them, and none waits.
      expect(inUse! + idle!).toBeGreaterThanOrEqual(1);
      expect(inUse! + idle!).toBeLessThanOrEqual(10);
      expect(waiting).toBe(0);
    } else {
      expect([inUse, idle, waiting]).toEqual([undefined, undefined, undefined]);
    }
  });

  it.skipIf(!usingPostgres)('counts the queries waiting for a connection while every connection of the pool is held', async () => {
    const { db } = setup.ctx.database;
    const held = await Promise.all(Array.from({ length: 10 }, () => holdTransaction(db)));
    const blocked = sql`SELECT 1`.execute(db);
    try {
      // The pool's own gauges, read without a query of their own (none could run now).
      const pool = async () => parseExposition((await setup.ctx.app.metrics.registry.getSingleMetricAsString('pickport_db_pool_waiting')) + '\n' + (await setup.ctx.app.metrics.registry.getSingleMetricAsString('pickport_db_pool_connections')));
      const samples = await waitFor('the query to wait for a connection', async () => {
        const read = await pool();
        // The delivery worker's polls may wait beside the blocked query.
        return read.get(sampleKey('pickport_db_pool_waiting'))! >= 1 ? read : undefined;
      });
      expect(samples.get(sampleKey('pickport_db_pool_connections', { state: 'in_use' }))).toBe(10);
      expect(samples.get(sampleKey('pickport_db_pool_connections', { state: 'idle' }))).toBe(0);
    } finally {
      await Promise.all(held.map(({ trx }) => trx.rollback().execute()));
    }
    await blocked;
    expect((await scrape()).get(sampleKey('pickport_db_pool_waiting'))).toBe(0);
  });

  it('serves the same exposition without a token on the separate metrics listener', async () => {
    const listener = await startMetricsListener(setup.ctx.app.metrics, 0, '127.0.0.1', setup.ctx.app.log);
    try {
      const response = await fetch(`${listener.address}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = parseExposition(await response.text());
      expect(samples.get(sampleKey('pickport_idempotent_replays_total'))).toBe(1);
      expect((await fetch(`${listener.address}/`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});

describe('metrics: PICKPORT_METRICS_PORT', () => {
  it('is validated like the other settings', () => {
    const dir = join(tmpdir(), `pickport-test-${randomUUID()}`);
    expect(loadConfig({ PICKPORT_DATA_DIR: dir, PICKPORT_METRICS_PORT: '9464' }).config.metricsPort).toBe(9464);
    expect(loadConfig({ PICKPORT_DATA_DIR: dir }).config.metricsPort).toBeUndefined();
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dir, PICKPORT_METRICS_PORT: 'metrics' })).toThrow(ConfigError);
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dir, PICKPORT_METRICS_PORT: '70000' })).toThrow(/PICKPORT_METRICS_PORT must be an integer from 0 to 65535/);
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dir, PORT: '8080', PICKPORT_METRICS_PORT: '8080' })).toThrow(/PICKPORT_METRICS_PORT must differ from PORT/);
  });

  // startServer opens the configured database itself: on PostgreSQL that would migrate the shared test database's own schema.
  it.skipIf(usingPostgres)('makes serve listen on a second port for /metrics, the main port still taking the token', async () => {
    const config = testConfig({ metricsPort: 0, databaseUrl: undefined });
    mkdirSync(config.dataDir, { recursive: true });
    const server = await startServer(config);
    try {
      expect(server.metricsAddress).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const open = await fetch(`${server.metricsAddress}/metrics`);
      expect(open.status).toBe(200);
      expect(await open.text()).toContain('# TYPE pickport_http_requests_total counter');
      expect((await fetch(`${server.address}/metrics`)).status).toBe(401);
      expect((await fetch(`${server.address}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.metricsAddress}/metrics`)).rejects.toThrow();
  });

  // `pickport worker` is a separate process, which the embedded database (in this process's memory) cannot serve.
  it.skipIf(!usingPostgres)('makes the worker process serve its delivery metrics', async () => {
    const ctx = await createTestContext();
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(ctx.database.db);
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${rows[0]!.schema}`);
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/pickport.js', 'worker'], {
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        ADMIN_TOKEN,
        PICKPORT_SECRET_KEY: ctx.config.secretKey.toString('hex'),
        PICKPORT_DATA_DIR: join(tmpdir(), `pickport-worker-${randomUUID()}`),
        PICKPORT_METRICS_PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('webhook delivery worker started') && resolve());
        child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it started`)));
      });
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      const samples = parseExposition(await response.text());
      expect(samples.get(sampleKey('pickport_webhook_deliveries_total', { outcome: 'delivered' }))).toBe(0);
      expect(samples.get(sampleKey('pickport_webhook_deliveries_pending'))).toBe(0);
      expect(samples.has(sampleKey('pickport_db_pool_waiting'))).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await ctx.close();
    }
  }, 60_000);
});
