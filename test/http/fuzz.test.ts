import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db';
import { ADMIN_TOKEN, createTestContext, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';

/**
 * Malformed requests at every write endpoint of the app (read from its own OpenAPI document, so a
 * route added later is covered): generated bodies, headers and path parameters. Whatever comes,
 * the answer is a 4xx in the envelope, and nothing is written.
 *
 * Nothing valid is ever generated: a path parameter is malformed or names nothing; a request that
 * names a real resource (or none) carries a body with at least one defect its route's schema
 * refuses. Batches answer 200 with every item refused. The only rows allowed to appear are the
 * stored answers of idempotent requests (4xx answers are stored too, so that a retry gets the same).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const WRITE_METHODS = ['post', 'put', 'patch', 'delete'] as const;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Endpoint {
  method: Uppercase<(typeof WRITE_METHODS)[number]>;
  /** OpenAPI form, `/api/v1/public/orders/{externalId}/cancel`. */
  path: string;
  params: string[];
  /** Public routes take the API key, the others the admin token. */
  publicApi: boolean;
}

/**
 * A valid body for a known route, the real path parameters it may name, and the fields its schema
 * surely refuses when their type is wrong (`checked`) or that hold dates (`dates`). A request built
 * from it always carries one such defect.
 */
interface Template {
  body: Record<string, unknown>;
  checked: string[];
  dates?: string[];
  realParams?: Record<string, string>;
}

const product = { externalId: 'FZ-P', sku: 'FZ-S', name: 'Fuzz', metadata: { colour: 'red' } };
const order = {
  externalId: 'FZ-O',
  orderNumber: 'FZ-N',
  items: [{ productExternalId: 'FZ-P', productSku: 'FZ-S', quantity: 1 }],
  orderDate: '2026-04-30',
  dueDate: '2026-05-01T10:00:00Z',
  customer: { externalId: 'C-1', name: 'Ann' },
  metadata: { note: 'x' },
};

/** Dates PostgreSQL would refuse or read back wrong, and text that is no date at all. */
const badDate = fc.oneof(
  fc.constantFrom(
    '0000-01-01',
    '0000-01-01T00:00:00Z',
    '2026-02-30',
    '2025-02-29T00:00:00Z',
    '2026-13-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T10:00:00+16:00',
    '9999-12-31T23:59:59-23:59',
    '9999-12-31T23:59:59.9999999Z',
    '1000-01-01T00:00:00+00:01',
    '0099-12-31',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    'yesterday',
    '',
  ),
  fc.record({ year: fc.integer({ min: 0, max: 9999 }), hours: fc.integer({ min: 16, max: 99 }), sign: fc.constantFrom('+', '-') }).map(
    ({ year, hours, sign }) => `${String(year).padStart(4, '0')}-06-15T12:00:00${sign}${String(hours).padStart(2, '0')}:00`,
  ),
);

/** Strings PostgreSQL cannot store. */
const unstorable = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\udc00', '\ud83d'), fc.string({ maxLength: 8 }))
  .map(([before, bad, after]) => before + bad + after);

/** Stands in a body for a document nested too deep, spliced into the JSON text after serialization. */
const DEEP = 'deep\u0001marker';
const deepText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/**
 * Values a `checked` field never takes: no string that fits a string field (too long, or holding
 * NUL), no boolean, no object with the fields an object field needs.
 */
const wrongType = fc.oneof(
  fc.constantFrom<unknown>(null, 0, -1, 1e308, -1e308, 2 ** 53 + 1, [], {}, [null], { $ref: '#' }),
  fc.double({ noNaN: true }),
  fc.array(fc.integer(), { maxLength: 3 }),
  unstorable,
  fc.constant('x'.repeat(5_000)),
);

type Defect =
  | { kind: 'field'; value: unknown }
  | { kind: 'date'; value: string }
  | { kind: 'deep'; depth: number }
  | { kind: 'key'; key: string };

const defect: fc.Arbitrary<Defect> = fc.oneof(
  fc.record({ kind: fc.constant('field' as const), value: wrongType }),
  fc.record({ kind: fc.constant('date' as const), value: badDate }),
  fc.record({ kind: fc.constant('deep' as const), depth: fc.oneof(fc.integer({ min: 33, max: 64 }), fc.constant(5_000)) }),
  fc.record({ kind: fc.constant('key' as const), key: unstorable }),
);

/**
 * Path parameters as they appear in the URL: NUL, percent-encoding that is not UTF-8 (or encodes a
 * surrogate), segments past any length limit, and well-formed values that name nothing.
 */
const hostileParam = fc.oneof(
  fc.constantFrom('%00', 'O%00', 'a%00b', '%ZZ', '%', '%E', '%ED%A0%80', '%C0%AF', '%FF', '%E2%82', '%F0%9F', '%2e%2e', '%0A', '%E2%80%A8'),
  fc.integer({ min: 101, max: 1_200 }).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 34, max: 340 }).map((count) => '%C3%A9'.repeat(count)),
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).map((text) => encodeURIComponent(`fz-${text}`)),
  fc.uuid({ version: 4 }),
);

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Text that is not JSON, or JSON nested past any limit. */
const junkJson = fc.oneof(
  fc.constantFrom('{', '{"a":', '[1,]', "{'a':1}", 'NaN', '{"a":1}}', '\u0000', '{"__proto__":{"x":1}', 'nul', '{"a":"\\u00"}'),
  fc
    .string({ maxLength: 40 })
    .map((text) => `{${text}`)
    .filter((text) => !isJson(text)),
  fc.integer({ min: 33, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 33, max: 20_000 }).map(deepText),
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/json; charset=utf-16',
      '',
    ),
  },
);

/** Ways to send the Authorization header, most of them right so that the body gets looked at. */
const authorization = fc.oneof(
  { weight: 8, arbitrary: fc.constant((valid: string) => valid) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      (valid: string) => valid.toLowerCase(),
      (valid: string) => valid.replace(' ', '  '),
      (valid: string) => `${valid} x`,
      () => 'Basic Zm9vOmJhcg==',
      () => 'Bearer',
      () => '',
      () => `Bearer pk_live_${'0'.repeat(40)}`,
    ),
  },
);

const idempotencyKey = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.uuid({ version: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom('not-a-uuid', '00000000-0000-0000-0000-000000000000', 'x'.repeat(300), '%00') },
);

function endpointsOf(document: { paths: Record<string, Record<string, unknown>> }): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of WRITE_METHODS) {
      if (!operations[method]) continue;
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
      endpoints.push({ method: method.toUpperCase() as Endpoint['method'], path, params, publicApi: path.startsWith('/api/v1/public/') });
    }
  }
  return endpoints;
}

/** Applies a defect to a body: at one of the template's fields, or spliced in as a key. */
function withDefect(template: Template, target: number, found: Defect): string {
  const body = structuredClone(template.body);
  // In a batch, the defect goes into its one item.
  const items = (body.products ?? body.orders) as Record<string, unknown>[] | undefined;
  const holder = items?.[0] ?? body;
  const pick = <T>(list: T[]) => list[target % list.length] as T;
  switch (found.kind) {
    case 'field':
      holder[pick(template.checked)] = found.value;
      break;
    case 'date':
      holder[pick(template.dates?.length ? template.dates : template.checked)] = template.dates?.length ? found.value : [found.value];
      break;
    case 'deep':
      holder[pick(template.checked)] = DEEP;
      return JSON.stringify(body).replace(JSON.stringify(DEEP), deepText(found.depth));
    case 'key':
      holder[found.key] = 'x';
      break;
  }
  return JSON.stringify(body);
}

async function rowCounts(db: Db): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::integer AS n FROM ${sql.table(name)}`.execute(db);
    counts[name] = rows[0]?.n ?? 0;
  }
  return counts;
}

describe('malformed requests at every write endpoint (property)', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  let endpoints: Endpoint[];
  let templates: Map<string, Template>;
  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant(UNLIMITED);
    // Real resources, so that requests naming them reach past the lookup to the body's checks.
    await tenant.api.post('/products', product);
    await tenant.api.post('/orders', order);
    const webhook = await tenant.api.post('/webhooks', { url: 'https://example.com/hook', events: ['order.status_changed'], secret: 's'.repeat(32) });
    const webhookId = webhook.body.data.id as string;
    templates = new Map<string, Template>([
      ['POST /api/v1/public/products', { body: product, checked: ['externalId', 'sku', 'name'] }],
      ['POST /api/v1/public/products/batch', { body: { products: [product] }, checked: ['externalId', 'sku', 'name'] }],
      ['POST /api/v1/public/orders', { body: order, checked: ['externalId', 'orderNumber', 'items', 'customer'], dates: ['orderDate', 'dueDate'] }],
      [
        'POST /api/v1/public/orders/batch',
        { body: { orders: [order] }, checked: ['externalId', 'orderNumber', 'items', 'customer'], dates: ['orderDate', 'dueDate'] },
      ],
      [
        'POST /api/v1/public/webhooks',
        { body: { url: 'https://example.com/h2', events: ['order.status_changed'], secret: 's'.repeat(32) }, checked: ['url', 'events', 'secret'] },
      ],
      ['PATCH /api/v1/public/webhooks/{id}', { body: { isActive: false }, checked: ['url', 'events'], realParams: { id: webhookId } }],
      ['POST /api/v1/public/webhooks/{id}/replay', { body: {}, checked: ['event'], dates: ['from', 'to'], realParams: { id: webhookId } }],
      ['POST /api/v1/admin/tenants', { body: { slug: 'fuzz-tenant', name: 'Fuzz' }, checked: ['slug', 'name'] }],
      [
        'POST /api/v1/admin/tenants/{slug}/api-keys',
        { body: { name: 'fuzz', permissions: ['products:read'] }, checked: ['name', 'permissions'], dates: ['expiresAt'], realParams: { slug: tenant.slug } },
      ],
    ]);
    endpoints = endpointsOf(ctx.app.swagger() as unknown as { paths: Record<string, Record<string, unknown>> });
  });
  afterAll(() => ctx.close());

  it('covers the write endpoints of the public, operator and warehouse APIs', () => {
    const names = endpoints.map((e) => `${e.method} ${e.path}`);
    expect(names).toEqual(
      expect.arrayContaining(['POST /api/v1/public/orders/{externalId}/cancel', 'POST /api/v1/admin/tenants', 'PUT /api/v1/warehouse/tenants/{slug}/locations']),
    );
    expect(endpoints.length).toBeGreaterThanOrEqual(18);
  });

  it('answers every malformed request with a 4xx in the envelope and writes nothing', async () => {
    const before = await rowCounts(ctx.database.db);
    let keyedRequests = 0;
    const request = fc.record({
      endpoint: fc.integer({ min: 0, max: 10_000 }),
      useTemplate: fc.boolean(),
      target: fc.nat(),
      defect,
      params: fc.array(hostileParam, { minLength: 3, maxLength: 3 }),
      junk: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: junkJson }),
      noise: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
      contentType,
      idempotencyKey,
      authorization,
    });
    await fc.assert(
      fc.asyncProperty(request, fc.context(), async (generated, log) => {
        const endpoint = endpoints[generated.endpoint % endpoints.length] as Endpoint;
        const template = templates.get(`${endpoint.method} ${endpoint.path}`);
        const real = generated.useTemplate && template !== undefined;
        let url = endpoint.path;
        endpoint.params.forEach((name, index) => {
          const value = real && template.realParams?.[name] !== undefined ? template.realParams[name] : (generated.params[index] as string);
          url = url.replace(`{${name}}`, value);
        });
        // Without a template nothing valid can be built: the body is junk, or any fields plus one
        // whose text PostgreSQL cannot store (refused by any body schema; a route without one reads no body).
        const payload =
          generated.junk ??
          (real ? withDefect(template, generated.target, generated.defect) : JSON.stringify({ ...generated.noise, [`k${generated.target}`]: 'x\u0000' }));
        const validAuth = endpoint.publicApi ? `Bearer ${tenant.key}` : `Bearer ${ADMIN_TOKEN}`;
        const headers: Record<string, string> = { authorization: generated.authorization(validAuth), 'content-type': generated.contentType };
        if (generated.idempotencyKey !== undefined) headers['x-idempotency-key'] = generated.idempotencyKey;
        if (endpoint.publicApi && generated.idempotencyKey !== undefined && UUID_V4.test(generated.idempotencyKey)) keyedRequests++;
        log.log(`${endpoint.method} ${url} ${JSON.stringify(headers)} ${payload.slice(0, 300)}`);

        const response = await ctx.app.inject({ method: endpoint.method, url, headers, payload } as InjectOptions);
        const body = response.json();
        expect(response.statusCode).toBeLessThan(500);
        expect(response.headers['x-request-id']).toMatch(UUID_V4);
        if (response.statusCode === 200 && body.success === true) {
          // A batch whose every item was refused.
          expect(body.data).toMatchObject({ successCount: 0, errorCount: 1 });
        } else {
          expect(response.statusCode).toBeGreaterThanOrEqual(400);
          expect(body).toMatchObject({
            success: false,
            error: { code: expect.any(String), message: expect.any(String) },
            requestId: response.headers['x-request-id'],
          });
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );

    const after = await rowCounts(ctx.database.db);
    const { idempotency_keys: storedAfter = 0, ...restAfter } = after;
    const { idempotency_keys: storedBefore = 0, ...restBefore } = before;
    expect(restAfter).toEqual(restBefore);
    // Idempotent requests store their answer (a refusal, or a batch that saved nothing); nothing else may appear.
    expect(storedAfter - storedBefore).toBeLessThanOrEqual(keyedRequests);
    const stored = await ctx.database.db.selectFrom('idempotency_keys').select('status_code').execute();
    expect(stored.map((row) => row.status_code).filter((status) => status >= 500 || status === 201)).toEqual([]);
  });
});

/**
 * A body that is no JSON object (null, nothing at all under a JSON content type, an array, a
 * string) at every route of the app's own OpenAPI document that takes a body, batches included: a
 * route added later is covered. Each answers 400 `VALIDATION_ERROR` naming `body`, as a request
 * without a body does; a route that may be sent without a body (complete-picking, waves, …) takes
 * null and an empty body as no body and answers as it answers that.
 */
describe('bodies that are no object, at every route that takes a body', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  let operations: { method: string; path: string }[];
  /** A signed-in console user of each role; a console route is asked as the first its role allows. */
  const sessions: string[] = [];
  const MALFORMED: [string, string][] = [
    ['null', 'null'],
    ['an empty body', ''],
    ['an array', '[{"externalId":"X"}]'],
    ['a string', '"orders"'],
  ];

  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant(UNLIMITED);
    for (const role of ['picker', 'packer', 'supervisor'] as const) {
      const username = `fuzz-${role}`;
      const user = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/users`, { username, name: role, role, pin: '482913' });
      expect(user.status).toBe(201);
      const signIn = await ctx.app.inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { origin: 'http://localhost' },
        payload: { warehouse: tenant.slug, username, pin: '482913' },
      });
      const cookie = String(signIn.headers['set-cookie']).match(/pickport_session=[^;]+/)?.[0];
      expect(cookie).toBeDefined();
      sessions.push(cookie as string);
    }
    const document = ctx.app.swagger() as unknown as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.requestBody !== undefined)
        .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
  });
  afterAll(() => ctx.close());

  /** Well-formed path parameters (validated before the body), naming the test's tenant or nothing. */
  const urlOf = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'slug' ? tenant.slug : name === 'id' ? '0190a6c4-0000-4000-8000-000000000000' : 'none'));

  function send(method: string, path: string, headers: Record<string, string>, payload?: string) {
    return ctx.app.inject({
      method: method as InjectOptions['method'],
      url: urlOf(path),
      headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload }),
    });
  }

  /** The headers that get a route's request past authentication: its key, the admin token, or a console session its role may use. */
  async function credentialsFor(method: string, path: string): Promise<Record<string, string>> {
    if (path.startsWith('/api/v1/public/')) return { authorization: `Bearer ${tenant.key}` };
    if (!path.startsWith('/console/')) return { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const cookie of sessions) {
      const headers = { origin: 'http://localhost', cookie };
      const answer = (await send(method, path, headers)).json();
      if (!/cannot use this part of the console/.test(answer.error?.message ?? '')) return headers;
    }
    throw new Error(`no console role may use ${method} ${path}`);
  }

  const isBodyRefusal = (answer: { error?: { code?: string; details?: { field: string }[] } }) =>
    answer.error?.code === 'VALIDATION_ERROR' && (answer.error.details ?? []).some((detail) => detail.field === 'body');

  it('finds the routes that take a body, every batch among them', () => {
    const names = operations.map(({ method, path }) => `${method} ${path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /api/v1/public/products/batch',
        'POST /api/v1/public/orders/batch',
        'PATCH /api/v1/public/webhooks/{id}',
        'PUT /api/v1/warehouse/tenants/{slug}/layout',
        'POST /console/api/picking/wave/picks',
      ]),
    );
  });

  it('answers each with a 4xx in the envelope naming the body, or as a request without one where a body is optional', async () => {
    const wrong: string[] = [];
    for (const { method, path } of operations) {
      const headers = await credentialsFor(method, path);
      const withoutBody = (await send(method, path, headers)).json();
      const bodyRequired = isBodyRefusal(withoutBody);
      // No batch may take a missing body as an empty batch.
      if (path.endsWith('/batch') && !bodyRequired) wrong.push(`${method} ${path} without a body: ${JSON.stringify(withoutBody)}`);
      for (const [name, payload] of MALFORMED) {
        const response = await send(method, path, headers, payload);
        const answer = response.json();
        const enveloped =
          response.statusCode >= 400 &&
          response.statusCode < 500 &&
          answer.success === false &&
          typeof answer.error?.message === 'string' &&
          answer.requestId === response.headers['x-request-id'];
        const absent = name === 'null' || name === 'an empty body';
        const expected = bodyRequired || !absent ? isBodyRefusal(answer) : answer.error?.code === withoutBody.error?.code;
        if (!enveloped || !expected) wrong.push(`${method} ${path} with ${name}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
