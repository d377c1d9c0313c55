import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, tracingSettings } from '../../src/config';
import { tracedDialect } from '../../src/db/statement-spans';
import { pgliteDialect } from '../../src/db/pglite-dialect';
import { emit } from '../../src/events/outbox';
import { startTracing, type Tracing } from '../../src/http/tracing';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker';
import { ADMIN_TOKEN, createTestContext, UNLIMITED, usingPostgres, type TestContext } from '../helpers/context';
import { PickportProcesses } from '../helpers/processes';
import { waitFor } from '../helpers/wait';
import { floorOf, seedPlacedProducts } from '../floor/helpers';
import { Receiver } from '../webhooks/receiver';

/*
 * Issue 46, traces: spans of each request (with its request id), each SQL statement, each webhook
 * delivery and each planning job, sent by OTLP/HTTP to the endpoint configured, and nothing at all
 * without one. The collector is a small HTTP server of this file's own.
 */

type AttributeValue = string | number | boolean | undefined;

/** A span as the collector received it, its attributes flattened. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

const flatten = (attributes: OtlpAttribute[] = []): Record<string, AttributeValue> =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue]));

/**
 * An OTLP/HTTP collector on loopback: the webhook tests' receiver, which keeps every JSON body
 * POSTed to it, here at /v1/traces. `spans` reads the spans out of what it got.
 */
async function startCollector(): Promise<{ receiver: Receiver; url: string; spans(): ReceivedSpan[] }> {
  const receiver = await new Receiver().start();
  receiver.answer = () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' });
  return { receiver, url: new URL(receiver.url).origin, spans: () => receiver.requests.filter((request) => request.path === '/v1/traces').flatMap((request) => spansOf(request.body as unknown as OtlpExport)) };
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource' | 'status'> & { attributes?: OtlpAttribute[]; status?: { code?: number } })[] }[];
  }[];
}

function spansOf({ resourceSpans = [] }: OtlpExport): ReceivedSpan[] {
  return resourceSpans.flatMap(({ resource, scopeSpans = [] }) =>
    scopeSpans.flatMap(({ spans = [] }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        status: span.status?.code ?? 0,
        attributes: flatten(span.attributes),
        resource: flatten(resource?.attributes),
      })),
    ),
  );
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);

/** POSTs `body` with the admin token, the second half of it written 50 ms after the first. */
function postInTwoWrites(url: string, body: unknown): Promise<{ status: number; requestId: string; body: string }> {
  const text = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': text.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']), body: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', reject);
    sent.write(text.subarray(0, 10));
    setTimeout(() => sent.end(text.subarray(10)), 50);
  });
}

const log = pino({ level: 'silent' });
const SECRET = 'whsec_tracing_tests_0123456789abcdef';

describe('traces: requests, SQL, planning and deliveries, sent to the OTLP endpoint', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let tracing: Tracing | undefined;
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker | undefined;

  beforeAll(async () => {
    collector = await startCollector();
    const settings = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'pickport-test', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test' });
    // Before the database opens, as the service does: its statements are traced only then.
    tracing = await startTracing(settings, log);
    ctx = await createTestContext({ tracing: settings });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await ctx?.close();
    await tracing?.shutdown();
    await collector?.receiver.close();
  });

  it('takes the endpoint from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({ endpoint: 'http://collector:4318/v1/traces', serviceName: 'pickport', resourceAttributes: {} });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp' })?.endpoint).toBe('https://traces.example/otlp');
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_RESOURCE_ATTRIBUTES: 'service.name=floor%20a,team=ops' })).toMatchObject({ serviceName: 'floor a', resourceAttributes: { team: 'ops' } });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT must start with http:// or https://');
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_RESOURCE_ATTRIBUTES: 'team' })).toThrow('OTEL_RESOURCE_ATTRIBUTES');
  });

  it('spans a request with its request id, route and status, its SQL statements and its planning job under it', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    await floorOf(ctx, tenant, [
      { code: 'A-01', aisle: 1, position: 1 },
      { code: 'B-03', aisle: 2, position: 3 },
    ]);
    await seedPlacedProducts(tenant, [
      { externalId: 'P-1', locationCode: 'A-01' },
      { externalId: 'P-2', locationCode: 'B-03' },
    ]);
    // Over a socket, its body in two writes: the second arrives outside the request's context.
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const routed = await postInTwoWrites(`${address}/api/v1/warehouse/tenants/${tenant.slug}/routes`, { items: [{ productExternalId: 'P-1', quantity: 1 }, { productExternalId: 'P-2', quantity: 2 }] });
    expect(routed.status, routed.body).toBe(200);
    const requestId = routed.requestId;
    await tracing!.forceFlush();

    const request = await waitFor('the request span', () => collector.spans().find((span) => span.attributes['pickport.request_id'] === requestId));
    expect(request).toMatchObject({
      name: 'POST /api/v1/warehouse/tenants/:slug/routes',
      kind: 2,
      parentSpanId: '',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/api/v1/warehouse/tenants/:slug/routes',
        'http.response.status_code': 200,
        'url.path': `/api/v1/warehouse/tenants/${tenant.slug}/routes`,
      },
      resource: { 'service.name': 'pickport-test', 'deployment.environment.name': 'test' },
    });
    const children = childrenOf(collector.spans(), request);
    const statements = children.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThanOrEqual(2);
    for (const statement of statements) {
      expect(statement.kind).toBe(3);
      expect(statement.attributes['db.system']).toBe('postgresql');
      expect(statement.attributes['db.statement']).toBe(statement.attributes['db.query.text']);
      // The text as sent: the values are parameters, never in it.
      expect(String(statement.attributes['db.query.text'])).not.toContain(tenant.id);
      expect(String(statement.attributes['db.query.text'])).not.toContain('P-1');
    }
    expect(statements.some((span) => /\$1/.test(String(span.attributes['db.query.text'])))).toBe(true);
    const planning = children.find((span) => span.name === 'planning job');
    expect(planning?.attributes).toEqual({ 'pickport.planner.task': 'routeItems', 'pickport.planner.quick_answer': false });
  });

  it('spans a request no route matched under its method alone, never the URL sent', async () => {
    const unmatched = await ctx.admin('GET', `/api/v1/nothing/${randomUUID()}`);
    expect(unmatched.status).toBe(404);
    await tracing!.forceFlush();
    const span = await waitFor('its span', () => collector.spans().find((received) => received.attributes['pickport.request_id'] === unmatched.headers['x-request-id']));
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(404);
  });

  it('spans each webhook delivery, outside any request, with its event, endpoint and outcome', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    const url = `${receiver.url}/${randomUUID()}?token=receiver-secret`;
    expect((await tenant.api.post('/webhooks', { url, events: ['product.stock_updated'], secret: SECRET })).status).toBe(201);
    worker = await startDeliveryWorker({ database: ctx.database, config: ctx.config, log, pollIntervalMs: 100 });
    await ctx.database.db.transaction().execute((tx) =>
      emit(tx, tenant.id, [{ event: 'product.stock_updated', data: { productId: randomUUID(), sku: 'SKU-T', previousStock: 1, newStock: 2, reason: 'MANUAL_ADJUSTMENT' } }]),
    );
    await waitFor('the delivery', () => receiver.requests.some((request) => request.path.startsWith(new URL(url).pathname)));
    const eventId = String(receiver.requests.find((request) => request.path.startsWith(new URL(url).pathname))!.headers['x-service-event-id']);
    await waitFor('its span', async () => {
      await tracing!.forceFlush();
      return collector.spans().some((span) => span.name === 'webhook delivery' && span.attributes['pickport.event_id'] === eventId);
    });
    const delivery = collector.spans().find((span) => span.name === 'webhook delivery' && span.attributes['pickport.event_id'] === eventId)!;
    expect(delivery).toMatchObject({
      kind: 3,
      parentSpanId: '',
      status: 0,
      attributes: {
        'pickport.event': 'product.stock_updated',
        'pickport.webhook.attempt': 1,
        'pickport.webhook.outcome': 'delivered',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'url.scheme': 'http',
      },
    });
    // The endpoint's path and query may hold the receiver's secret: never in a span.
    expect(JSON.stringify(collector.spans())).not.toContain('receiver-secret');
  });
});

describe('traces: off without an endpoint', () => {
  it('starts nothing and wraps no database driver when no OTLP endpoint is set', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pickport-tracing-'));
    try {
      const { config } = loadConfig({ OTEL_SERVICE_NAME: 'pickport', ADMIN_TOKEN, PICKPORT_DATA_DIR: dataDir });
      expect(config.tracing).toBeUndefined();
      expect(await startTracing(config.tracing, log)).toBeUndefined();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // The dialect itself: not one call is added to a query.
    const dialect = pgliteDialect(new Promise(() => {}));
    expect(tracedDialect(dialect)).toBe(dialect);
  });
});

describe('traces: a serve process', { timeout: 120_000 }, () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let ctx: TestContext | undefined;
  let processes: PickportProcesses;
  const dataDir = mkdtempSync(join(tmpdir(), 'pickport-tracing-serve-'));

  beforeAll(async () => {
    collector = await startCollector();
    if (usingPostgres) ctx = await createTestContext();
    processes = ctx ? await PickportProcesses.forContext(ctx) : PickportProcesses.embedded(dataDir);
  });
  afterAll(async () => {
    processes?.killAll();
    await ctx?.close();
    await collector?.receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends the spans still batched when it shuts down on SIGTERM', async () => {
    // Batches would go out after a minute: what arrives was sent by the shutdown.
    const { process, url } = await processes.serve({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '60000' });
    const response = await fetch(`${url}/api/v1/admin/tenants`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(collector.spans()).toEqual([]);

    process.child.kill('SIGTERM');
    expect(await process.exited).toBe(0);
    const request = collector.spans().find((span) => span.attributes['pickport.request_id'] === requestId);
    expect(request).toMatchObject({ name: 'GET /api/v1/admin/tenants', resource: { 'service.name': 'pickport' } });
    expect(childrenOf(collector.spans(), request!).some((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(true);
  });
});
