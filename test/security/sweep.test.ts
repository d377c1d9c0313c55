import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX, PUBLIC_PREFIX, WAREHOUSE_PREFIX } from '../../src/app';
import { CONSOLE_API_PREFIX } from '../../src/console/routes';
import { PERMISSIONS, type Permission } from '../../src/tenancy/permissions';
import { createTestContext, type TestResponse, type TestTenant, UNLIMITED } from '../helpers/context';

/*
 * Every operation of the OpenAPI document, generated: the public API refuses a request without a
 * key (401), a key without the operation's permission (403) and another tenant's resource (404);
 * the operator and warehouse APIs refuse a request without the admin token or with a wrong one
 * (401); the console's API refuses a request without a live session (401) and a state-changing
 * one without the service's own Origin (403). Operations added later are swept as soon as they
 * are in the document.
 */

/** The permission of each public operation, as the endpoint tables of the docs give it; `null`: no key needed. */
const PERMISSION_OF: Record<string, Permission | null> = {
  'GET /health': null,
  'GET /health/live': null,
  'GET /health/ready': null,
  'POST /products': 'products:write',
  'POST /products/batch': 'products:write',
  'GET /products': 'products:read',
  'GET /products/{externalId}': 'products:read',
  'POST /orders': 'orders:write',
  'POST /orders/batch': 'orders:write',
  'GET /orders': 'orders:read',
  'GET /orders/{externalId}': 'orders:read',
  'POST /orders/{externalId}/cancel': 'orders:write',
  'POST /webhooks': 'webhooks:manage',
  'GET /webhooks': 'webhooks:manage',
  'GET /webhooks/{id}': 'webhooks:manage',
  'PATCH /webhooks/{id}': 'webhooks:manage',
  'DELETE /webhooks/{id}': 'webhooks:manage',
  'POST /webhooks/{id}/test': 'webhooks:manage',
  'POST /webhooks/{id}/replay': 'webhooks:manage',
  'GET /webhooks/{id}/deliveries': 'webhooks:manage',
  'GET /webhooks/{id}/dead-letters': 'webhooks:manage',
  'POST /webhooks/{id}/rotate-secret': 'webhooks:manage',
};

/** A valid body for the operations on a resource that require one, so that only the tenant decides the answer. */
const VALID_BODY: Record<string, unknown> = {
  'PATCH /webhooks/{id}': { isActive: false },
  'POST /webhooks/{id}/test': { event: 'order.status_changed' },
  'POST /webhooks/{id}/replay': {},
  'POST /webhooks/{id}/rotate-secret': { secret: 'x'.repeat(32) },
};

const ctx = await createTestContext();
afterAll(() => ctx.close());

interface Operation {
  method: string;
  /** As the document writes it, `{param}` included. */
  path: string;
  /** `METHOD /path` relative to the public base, the key of the tables above. */
  name: string;
  params: string[];
  bodyRequired: boolean;
}

type OpenApiOperation = { parameters?: { in: string; name: string }[]; requestBody?: { required?: boolean } };
const document = ctx.app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    path,
    name: `${method.toUpperCase()} ${path.startsWith(PUBLIC_PREFIX) ? path.slice(PUBLIC_PREFIX.length) : path}`,
    params: (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
    bodyRequired: operation.requestBody?.required === true,
  })),
);
const publicOperations = operations.filter((op) => op.path.startsWith(`${PUBLIC_PREFIX}/`));
const keyedOperations = publicOperations.filter((op) => PERMISSION_OF[op.name] !== null);
const WAREHOUSE_BASE = WAREHOUSE_PREFIX.replace(/:(\w+)/g, '{$1}');
const adminOperations = operations.filter((op) => op.path.startsWith(`${ADMIN_PREFIX}/`) || op.path.startsWith(`${WAREHOUSE_BASE}/`));
const consoleOperations = operations.filter((op) => op.path.startsWith(`${CONSOLE_API_PREFIX}/`));
const SIGN_IN = `POST ${CONSOLE_API_PREFIX}/session`;
/** The service's own origin as app.inject's requests give it (Host: localhost:80). */
const OWN_ORIGIN = 'http://localhost';

/** Each request without a valid key from its own address: the per-address limit on such requests must not answer first. */
let addresses = 0;
const nextAddress = () => `198.18.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

async function send(op: Operation, path: string, authorization: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  const options: InjectOptions = {
    method: op.method as InjectOptions['method'],
    url: path,
    headers: { ...(authorization ? { authorization } : {}), ...headers },
    remoteAddress: nextAddress(),
    ...(body !== undefined ? { payload: body as InjectOptions['payload'] } : {}),
  };
  const response = await ctx.app.inject(options);
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}

/** The path with placeholders that exist nowhere: an authentication failure must answer before any lookup. */
const placeholderPath = (op: Operation) =>
  op.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' ? randomUUID() : `sweep-${name.toLowerCase()}`));

function expectRefusal(response: TestResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toEqual({
    success: false,
    error: expect.objectContaining({ code, message: expect.any(String) }),
    requestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  });
}

describe('the OpenAPI document', () => {
  it('lists the public, operator, warehouse and console APIs, and no operation outside them', () => {
    expect(publicOperations.length).toBeGreaterThanOrEqual(18);
    expect(adminOperations.some((op) => op.path.startsWith(ADMIN_PREFIX))).toBe(true);
    expect(adminOperations.some((op) => op.path.startsWith(WAREHOUSE_BASE))).toBe(true);
    expect(consoleOperations.length).toBeGreaterThanOrEqual(16);
    const known = [...publicOperations, ...adminOperations, ...consoleOperations];
    expect(operations.filter((op) => !known.includes(op)).map((op) => op.name)).toEqual([]);
  });

  it('has every public operation in the permission table (add a new one there with its permission)', () => {
    expect(publicOperations.map((op) => op.name).filter((name) => !(name in PERMISSION_OF))).toEqual([]);
  });
});

describe.each(keyedOperations.map((op) => [op.name, op] as const))('public API: %s', (_, op) => {
  it('answers 401 UNAUTHORIZED without a key, with a key of the wrong form, and with an unknown key', async () => {
    expectRefusal(await send(op, placeholderPath(op), undefined), 401, 'UNAUTHORIZED');
    expectRefusal(await send(op, placeholderPath(op), 'pk_live_'), 401, 'UNAUTHORIZED');
    expectRefusal(await send(op, placeholderPath(op), `Bearer pk_live_${'A'.repeat(40)}`), 401, 'UNAUTHORIZED');
  });

  it('answers 403 FORBIDDEN to a key holding every permission but the one it needs', async () => {
    const needed = PERMISSION_OF[op.name];
    expect(needed, `${op.name} is missing from PERMISSION_OF`).toBeDefined();
    expectRefusal(await send(op, placeholderPath(op), `Bearer ${keysWithout.get(needed!)}`), 403, 'FORBIDDEN');
  });

  if (op.params.length > 0) {
    it("answers 404 NOT_FOUND for another tenant's existing resource", async () => {
      expect(op.bodyRequired && !(op.name in VALID_BODY), `${op.name} requires a body: add a valid one to VALID_BODY`).toBe(false);
      expectRefusal(await send(op, resourcePath(op), `Bearer ${caller.key}`, VALID_BODY[op.name]), 404, 'NOT_FOUND');
    });
  }
});

describe.each(adminOperations.map((op) => [op.name, op] as const))('operator and warehouse APIs: %s', (_, op) => {
  it('answers 401 UNAUTHORIZED without the admin token, with a wrong one, and with a tenant key', async () => {
    expectRefusal(await send(op, placeholderPath(op), undefined), 401, 'UNAUTHORIZED');
    expectRefusal(await send(op, placeholderPath(op), `Bearer ${ctx.config.adminToken}x`), 401, 'UNAUTHORIZED');
    expectRefusal(await send(op, placeholderPath(op), `Bearer ${caller.key}`), 401, 'UNAUTHORIZED');
  });
});

describe.each(consoleOperations.filter((op) => op.name !== SIGN_IN).map((op) => [op.name, op] as const))('console API: %s', (_, op) => {
  it('answers 401 UNAUTHORIZED without a session cookie and with an unknown one', async () => {
    const origin = { origin: OWN_ORIGIN };
    expectRefusal(await send(op, placeholderPath(op), undefined, undefined, origin), 401, 'UNAUTHORIZED');
    expectRefusal(await send(op, placeholderPath(op), undefined, undefined, { ...origin, cookie: `pickport_session=${'x'.repeat(43)}` }), 401, 'UNAUTHORIZED');
  });
});

const stateChanging = consoleOperations.filter((op) => !['GET', 'HEAD'].includes(op.method));
describe.each(stateChanging.map((op) => [op.name, op] as const))('console API, state-changing: %s', (_, op) => {
  it("answers 403 FORBIDDEN to a supervisor's session without the service's own Origin", async () => {
    const cookie = `pickport_session=${supervisorCookie}`;
    expectRefusal(await send(op, placeholderPath(op), undefined, undefined, { cookie }), 403, 'FORBIDDEN');
    expectRefusal(await send(op, placeholderPath(op), undefined, undefined, { cookie, origin: 'https://evil.example' }), 403, 'FORBIDDEN');
  });
});

describe('the console session after the sweep', () => {
  it('still works: no refused sign-out ended it', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: `${CONSOLE_API_PREFIX}/session`, headers: { cookie: `pickport_session=${supervisorCookie}` } });
    expect(response.statusCode).toBe(200);
  });
});

/** The tenant making the requests (every permission) and the tenant owning the resources. */
let caller: TestTenant;
let owner: TestTenant;
const keysWithout = new Map<Permission, string>();
let supervisorCookie: string;
const resources: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  caller = await ctx.tenant(UNLIMITED);
  owner = await ctx.tenant(UNLIMITED);
  const pin = '482913';
  expect((await ctx.admin('POST', `${ADMIN_PREFIX}/tenants/${caller.slug}/users`, { username: 'sweeper', name: 'Sweeper', role: 'supervisor', pin })).status).toBe(201);
  const signedIn = await ctx.app.inject({
    method: 'POST',
    url: `${CONSOLE_API_PREFIX}/session`,
    headers: { origin: OWN_ORIGIN },
    payload: { warehouse: caller.slug, username: 'sweeper', pin },
  });
  supervisorCookie = /pickport_session=([^;]+)/.exec(String(signedIn.headers['set-cookie']))![1]!;
  for (const permission of PERMISSIONS) {
    const { key } = await ctx.issueKey(caller.slug, { ...UNLIMITED, permissions: PERMISSIONS.filter((p) => p !== permission) });
    keysWithout.set(permission, key);
  }
  const created = [
    await owner.api.post('/products', { externalId: 'SWEEP-P', sku: 'SKU-SWEEP-P', name: 'Swept', stock: 5 }),
    await owner.api.post('/orders', { externalId: 'SWEEP-O', orderNumber: 'N-SWEEP-O', items: [{ productExternalId: 'SWEEP-P', productSku: 'SKU-SWEEP-P', quantity: 1 }] }),
    await owner.api.post('/webhooks', { url: 'https://example.com/sweep', events: ['order.status_changed'], secret: 'whsec_sweep_0123456789abcdef0123456789' }),
  ];
  for (const response of created) expect(response.status, JSON.stringify(response.body)).toBe(201);
  resources.products = { externalId: 'SWEEP-P' };
  resources.orders = { externalId: 'SWEEP-O' };
  resources.webhooks = { id: created[2]!.body.data.id };
});

/** The operation's path naming the owner's resource of its kind (the first segment after the base). */
function resourcePath(op: Operation): string {
  const kind = op.name.split(' ')[1]!.split('/')[1]!;
  const values = resources[kind];
  expect(values, `the sweep has no resource of kind "${kind}" for ${op.name}: create one in beforeAll`).toBeDefined();
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    expect(values![name], `no value for {${name}} of ${op.name}`).toBeDefined();
    return encodeURIComponent(values![name]!);
  });
}

describe("another tenant's resources after the sweep", () => {
  it('are unchanged: each answers its owner as before', async () => {
    // describe blocks run in order: this one after every 404 above.
    expect((await owner.api.get('/products/SWEEP-P')).body.data).toMatchObject({ stock: 5 });
    expect((await owner.api.get('/orders/SWEEP-O')).body.data).toMatchObject({ status: 'PENDING' });
    const webhook = await owner.api.get(`/webhooks/${resources.webhooks!.id}`);
    expect(webhook.status).toBe(200);
    expect(webhook.body.data).toMatchObject({ isActive: true, url: 'https://example.com/sweep' });
    expect((await owner.api.get(`/webhooks/${resources.webhooks!.id}/deliveries`)).body.data).toEqual([]);
  });
});
