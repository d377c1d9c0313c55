import { Kysely, sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import type { Database } from '../../src/db/schema';
import { MAX_NESTING } from '../../src/http/input-check';
import type { Refusal } from '../helpers/answers';
import { createTestContext, openTestDatabase, testConfig, type TestContext, type TestTenant, type TestResponse, UNLIMITED } from '../helpers/context';

/**
 * Input PostgreSQL cannot take, or that the framework refused outside the envelope, answers a
 * clear 400 naming the field, in the envelope, and writes nothing (issue 12).
 */
describe('malformed input', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  const json = { 'content-type': 'application/json' };
  const warehouse = (slug: string) => `/api/v1/warehouse/tenants/${slug}`;
  const item = { productExternalId: 'P-1', productSku: 'S-1', quantity: 1 };
  const order = (externalId: string, extra: Record<string, unknown> = {}) => ({ externalId, orderNumber: `N-${externalId}`, items: [item], ...extra });
  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant(UNLIMITED);
    await tenant.api.post('/products', { externalId: 'P-1', sku: 'S-1', name: 'Widget', stock: 10 });
    await tenant.api.post('/orders', order('O-1'));
  });
  afterAll(() => ctx.close());

  function expectRefused(response: TestResponse<Refusal>, field: string) {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' }, requestId: response.headers['x-request-id'] });
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  }
  const counts = async () => {
    const count = async (table: 'products' | 'orders' | 'tenants' | 'api_keys' | 'webhooks') =>
      Number((await ctx.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const tables = ['products', 'orders', 'tenants', 'api_keys', 'webhooks'] as const;
    return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await count(table)])));
  };

  describe('NUL and unpaired surrogates, which PostgreSQL text and jsonb cannot hold', () => {
    it('refuses them in text fields, metadata values and keys, customer and items, naming the JSON path', async () => {
      const before = await counts();
      expectRefused(await tenant.api.post('/products', { externalId: 'P-2', sku: 'S-2', name: 'a\u0000b' }), 'name');
      expectRefused(await tenant.api.post('/products', { externalId: 'P-2', sku: 'S-2', name: 'x', metadata: { colour: 'r\ud800d' } }), 'metadata.colour');
      expectRefused(await tenant.api.post('/products', { externalId: 'P-2', sku: 'S-2', name: 'x', metadata: { 'a\u0000': 'v' } }), 'metadata.a\u0000');
      expectRefused(await tenant.api.post('/orders', order('O-2', { notes: 'late\u0000' })), 'notes');
      expectRefused(await tenant.api.post('/orders', order('O-2', { customer: { externalId: 'C', name: '\udc00' } })), 'customer.name');
      expectRefused(await tenant.api.post('/orders', order('O-2', { metadata: { deep: { list: ['ok', 'x\u0000'] } } })), 'metadata.deep.list[1]');
      expectRefused(await tenant.api.post('/orders', order('O-2', { items: [item, { ...item, productSku: 'S\u0000' }] })), 'items[1].productSku');
      expectRefused(await tenant.api.post('/webhooks', { url: 'https://example.com/\u0000', events: ['order.status_changed'], secret: 's'.repeat(32) }), 'url');
      expect(await counts()).toEqual(before);
    });

    it('finds them however the JSON text escapes them, and keeps a backslash followed by u0000 as text', async () => {
      const upper = await tenant.api.post('/products', '{"externalId":"P-esc","sku":"S-esc","name":"x","metadata":{"k":"\\uD83D"}}', json);
      expectRefused(upper, 'metadata.k');
      const literal = await tenant.api.post('/products', '{"externalId":"P-esc","sku":"S-esc","name":"C:\\\\u0000"}', json);
      expect(literal.status).toBe(201);
      expect((await tenant.api.get('/products/P-esc')).body.data.name).toBe('C:\\u0000');
    });

    it('keeps text with surrogate pairs (emoji) and other control characters', async () => {
      const created = await tenant.api.post('/products', { externalId: 'P-emoji', sku: 'S-emoji', name: 'Box 📦\u0001', metadata: { '🏷': 'é' } });
      expect(created.status).toBe(201);
      expect((await tenant.api.get('/products/P-emoji')).body.data).toMatchObject({ name: 'Box 📦\u0001', metadata: { '🏷': 'é' } });
    });

    it('fails only the item that holds them in a batch; the others are saved', async () => {
      const products = await tenant.api.post('/products/batch', {
        products: [
          { externalId: 'PB-1', sku: 'SB-1', name: 'ok' },
          { externalId: 'PB-2', sku: 'SB-2', name: 'x', metadata: { k: '\u0000' } },
        ],
      });
      expect(products.status).toBe(200);
      expect(products.body.data).toMatchObject({ successCount: 1, errorCount: 1 });
      expect(products.body.errors).toEqual([
        expect.objectContaining({ index: 1, code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'products[1].metadata.k' })] }),
      ]);
      expect((await tenant.api.get('/products/PB-2')).status).toBe(404);

      const orders = await tenant.api.post('/orders/batch', { orders: [order('OB-1'), order('OB-2', { customer: { externalId: 'C\ud800' } })] });
      expect(orders.status).toBe(200);
      expect(orders.body.data).toMatchObject({ successCount: 1, errorCount: 1 });
      expect(orders.body.errors).toEqual([expect.objectContaining({ index: 1, code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'customer.externalId' })] })]);
      expect((await tenant.api.get('/orders/OB-2')).status).toBe(404);
    });

    it('refuses them in path parameters, query strings, tenant slugs and key names', async () => {
      const before = await counts();
      expectRefused(await tenant.api.post('/orders/O-1%00/cancel'), 'externalId');
      expectRefused(await tenant.api.get('/products', { cursor: 'a\u0000' }), 'cursor');
      expectRefused(await ctx.admin('POST', `${warehouse('a%00b')}/orders/O-1/start-picking`), 'slug');
      expectRefused(await ctx.admin('POST', `${warehouse(tenant.slug)}/products/P-1%00/stock`, { stock: 1 }), 'externalId');
      expectRefused(await ctx.admin('GET', '/api/v1/admin/tenants/x%00/api-keys'), 'slug');
      expectRefused(await ctx.admin('POST', '/api/v1/admin/tenants', { slug: 'nul-tenant', name: 'A\u0000' }), 'name');
      expectRefused(await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, { name: 'k\ud800', permissions: ['products:read'] }), 'name');
      expect(await counts()).toEqual(before);
      expect((await tenant.api.get('/orders/O-1')).body.data.status).toBe('PENDING');
    });
  });

  describe('dates PostgreSQL refuses or reads back wrong', () => {
    it.each([
      ['orderDate', '0000-01-01'],
      ['orderDate', '0000-06-15T10:00:00Z'],
      ['dueDate', '2026-01-01T00:00:00+16:00'],
      ['dueDate', '2026-01-01T00:00:00-23:59'],
      ['dueDate', '9999-12-31T23:59:59-01:00'],
      ['dueDate', '9999-12-31T23:59:59.9999999Z'],
      ['dueDate', '1000-01-01T00:00:00+01:00'],
      ['dueDate', '0001-01-01'],
      ['orderDate', '2025-02-29'],
    ])('refuses %s %s with 400 naming it, writing nothing', async (field, value) => {
      const response = await tenant.api.post('/orders', order('O-date', { [field]: value }));
      expectRefused(response, field);
      expect(response.body.error.details[0]?.message).toMatch(/1000 to 9999/);
      expect((await tenant.api.get('/orders/O-date')).status).toBe(404);
    });

    it('takes the edges of the range and every offset up to ±15:59, and reads them back', async () => {
      const response = await tenant.api.post('/orders', order('O-edges', { orderDate: '1000-01-01T00:00:00Z', dueDate: '9999-12-31T23:59:59.999999+15:59' }));
      expect(response.status).toBe(201);
      const read = await tenant.api.get('/orders/O-edges');
      expect(read.body.data).toMatchObject({ orderDate: '1000-01-01T00:00:00.000Z', dueDate: '9999-12-31T08:00:59.999Z' });
      expect((await tenant.api.post('/orders', order('O-offset', { dueDate: '2026-05-01T10:00:00-15:59' }))).status).toBe(201);
    });

    it('refuses such dates in list filters and webhook replay', async () => {
      expectRefused(await tenant.api.get('/products', { updated_since: '0000-01-01T00:00:00Z' }), 'updated_since');
      expectRefused(await tenant.api.get('/orders', { created_since: '2026-01-01T00:00:00+16:00' }), 'created_since');
      expectRefused(await tenant.api.get('/orders', { updated_since: '9999-12-31T23:59:59-00:01' }), 'updated_since');
      const webhook = await tenant.api.post('/webhooks', { url: 'https://example.com/h', events: ['order.status_changed'], secret: 's'.repeat(32) });
      expectRefused(await tenant.api.post(`/webhooks/${webhook.body.data.id}/replay`, { from: '0000-01-01T00:00:00Z' }), 'from');
      expectRefused(await tenant.api.post(`/webhooks/${webhook.body.data.id}/replay`, { to: '2026-01-01T00:00:00+20:00' }), 'to');
    });

    it('refuses a key expiry past year 9999 before writing the key, and the key list keeps working', async () => {
      const keysBefore = (await ctx.admin('GET', `/api/v1/admin/tenants/${tenant.slug}/api-keys`)).body.data.length;
      const response = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, {
        permissions: ['products:read'],
        expiresAt: '9999-12-31T23:59:59-23:59',
      });
      expectRefused(response, 'expiresAt');
      const list = await ctx.admin('GET', `/api/v1/admin/tenants/${tenant.slug}/api-keys`);
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(keysBefore);
      const latest = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/api-keys`, { permissions: ['products:read'], expiresAt: '9999-12-31T23:59:59Z' });
      expect(latest.status).toBe(201);
      expect(latest.body.data.expiresAt).toBe('9999-12-31T23:59:59.000Z');
    });
  });

  describe('nesting', () => {
    const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

    it(`refuses metadata nested past ${MAX_NESTING} levels, naming where, with or without an idempotency key`, async () => {
      const body = (externalId: string) => `{"externalId":"${externalId}","orderNumber":"N-${externalId}","items":[${JSON.stringify(item)}],"metadata":${deep(5000)}}`;
      const plain = await tenant.api.post('/orders', body('O-deep'), json);
      expectRefused(plain, `metadata${'.a'.repeat(MAX_NESTING - 1)}`);
      const keyed = await tenant.api.post('/orders', body('O-deep'), { ...json, 'x-idempotency-key': '3f1c9a52-8a4e-4d0b-9c7e-2b6f1e0a9d44' });
      expect(keyed.status).toBe(400);
      // A million levels (2 MB, within the batch's 5 MB): the parser and the check are iterative.
      const million = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
      const batch = await tenant.api.post('/products/batch', `{"products":[{"externalId":"PD","sku":"SD","name":"x","metadata":{"k\\nl":${million}}}]}`, json);
      expectRefused(batch, `products[0].metadata.k\nl${'[0]'.repeat(MAX_NESTING - 4)}`);
      expect((await tenant.api.get('/orders/O-deep')).status).toBe(404);
      expect((await tenant.api.get('/products/PD')).status).toBe(404);
    });

    it(`takes ${MAX_NESTING} levels, the body included, and refuses one more`, async () => {
      const withMetadata = (metadata: string) =>
        tenant.api.post('/orders', `{"externalId":"O-nested","orderNumber":"N-nested","items":[${JSON.stringify(item)}],"metadata":${metadata}}`, json);
      expectRefused(await withMetadata(deep(MAX_NESTING)), `metadata${'.a'.repeat(MAX_NESTING - 1)}`);
      expect((await withMetadata(deep(MAX_NESTING - 1))).status).toBe(201);
    });
  });

  describe('metadata keys holding line breaks', () => {
    const keys = { 'line\nbreak': 'n', 'carriage\rreturn': 'r', 'line\u2028separator': 1, 'paragraph\u2029separator': 2, plain: 'p' };

    it('come back in every product response', async () => {
      expect((await tenant.api.post('/products', { externalId: 'P-keys', sku: 'S-keys', name: 'x', metadata: keys })).status).toBe(201);
      expect((await tenant.api.get('/products/P-keys')).body.data.metadata).toEqual(keys);
      const listed = (await tenant.api.get('/products', { limit: '200' })).body.data.find((p: { externalId: string }) => p.externalId === 'P-keys');
      expect(listed?.metadata).toEqual(keys);
    });

    it('have their values checked like any other key', async () => {
      expectRefused(await tenant.api.post('/products', { externalId: 'P-keys2', sku: 'S-keys2', name: 'x', metadata: { 'a\nb': { nested: true } } }), 'metadata.a\nb');
    });

    it('come back in the order', async () => {
      expect((await tenant.api.post('/orders', order('O-keys', { metadata: keys }))).status).toBe(201);
      expect((await tenant.api.get('/orders/O-keys')).body.data.metadata).toEqual(keys);
    });
  });

  describe("the router's own errors", () => {
    it.each(['%ZZ', '%ED%A0%80', '%C0%AF', '%'])('answers a path with %s in the envelope', async (segment) => {
      const response = await tenant.api.post(`/orders/${segment}/cancel`);
      expectRefused(response, 'path');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('answers an overlong path parameter with 400 naming it, and a segment past any limit in the envelope', async () => {
      expectRefused(await tenant.api.post(`/orders/${'x'.repeat(101)}/cancel`), 'externalId');
      expectRefused(await tenant.api.get(`/products/${'x'.repeat(5_000)}`), 'path');
    });

    it('reads a product whose externalId is 100 characters of multi-byte text, percent-encoded', async () => {
      const externalId = 'é'.repeat(50) + '📦'.repeat(25);
      expect((await tenant.api.post('/products', { externalId, sku: 'S-long', name: 'x' })).status).toBe(201);
      const read = await tenant.api.get(`/products/${encodeURIComponent(externalId)}`);
      expect(read.status).toBe(200);
      expect(read.body.data.externalId).toBe(externalId);
    });
  });

  describe('tenant creation', () => {
    it('stores only slug and name: the service chooses id and createdAt, unknown fields are ignored', async () => {
      const chosenId = '00000000-0000-4000-8000-000000000000';
      const response = await ctx.admin('POST', '/api/v1/admin/tenants', {
        slug: 'chosen-fields',
        name: 'Chosen',
        id: chosenId,
        created_at: '2000-01-01T00:00:00Z',
        createdAt: '2000-01-01T00:00:00Z',
        colour: 'red',
      });
      expect(response.status).toBe(201);
      expect(response.body.data.id).not.toBe(chosenId);
      expect(Date.now() - Date.parse(response.body.data.createdAt)).toBeLessThan(60 * 60_000);
      const row = await ctx.database.db.selectFrom('tenants').selectAll().where('slug', '=', 'chosen-fields').executeTakeFirstOrThrow();
      expect(row.id).toBe(response.body.data.id);
    });
  });
});

describe('values the database refuses that validation let through', () => {
  let app: FastifyInstance;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    app = await buildApp({ config: testConfig(), database: opened.database, logger: false });
    const db: Kysely<Database> = opened.database.db;
    // A route with no schema at all, passing the text on as a date: the safety net, alone.
    app.get(`${PUBLIC_PREFIX}/unchecked-date`, async (request) => {
      const { value } = request.query as { value: string };
      await sql`SELECT ${value}::date`.execute(db);
      return { ok: true };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await drop();
  });

  it('answers a PostgreSQL data exception with 400 VALIDATION_ERROR, not 500', async () => {
    const response = await app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/unchecked-date?value=2026-02-30` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });
});
