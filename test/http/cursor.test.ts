import { beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { encodeCursor, signedCursor } from '../../src/http/cursor';
import { ADMIN_TOKEN, type TestTenant, UNLIMITED } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { signedIn } from '../console/helpers';

/**
 * List cursors are signed (src/http/cursor.ts): one holds only for the tenant, path and filters of
 * the page that returned it, unedited, so the total it carries is the listing's own.
 */
describe('signed list cursors', () => {
  const setup = useTestContext();
  let a: TestTenant;
  let b: TestTenant;
  const products = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, i) => ({ externalId: `${prefix}-${i}`, sku: `${prefix}-S-${i}`, name: `Product ${i}`, stock: 5 }));
  const order = (externalId: string) => ({ externalId, orderNumber: `N-${externalId}`, items: [{ productExternalId: 'A-0', productSku: 'A-S-0', quantity: 1 }] });

  /** The cursor's key and signature, and the key's JSON. */
  const partsOf = (cursor: string) => {
    const [key, signature] = cursor.split('.') as [string, string];
    return { key, signature, decoded: JSON.parse(Buffer.from(key, 'base64url').toString('utf8')) as unknown[] };
  };
  const encode = (decoded: unknown[]) => Buffer.from(JSON.stringify(decoded)).toString('base64url');

  function expectRefusedCursor(response: { status: number; body: unknown }) {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ field: 'cursor' }] } });
    expect((response.body as { error: { details: { message: string }[] } }).error.details[0]?.message).toMatch(/start the listing again without cursor/);
  }

  beforeAll(async () => {
    [a, b] = [await setup.ctx.tenant(UNLIMITED), await setup.ctx.tenant(UNLIMITED)];
    expect((await a.api.post('/products/batch', { products: products(5, 'A') })).body.data.successCount).toBe(5);
    expect((await b.api.post('/products/batch', { products: products(2, 'B') })).body.data.successCount).toBe(2);
    for (const externalId of ['O-1', 'O-2', 'O-3']) expect((await a.api.post('/orders', order(externalId))).status).toBe(201);
  });

  it('pages a listing as before: each page after the last one shown, the total the first page counted', async () => {
    const first = await a.api.get('/products', { limit: '2' });
    expect(first.body.pagination).toMatchObject({ total: 5, hasMore: true });
    const seen = first.body.data.map((p) => p.externalId);
    let cursor = first.body.pagination.nextCursor;
    while (cursor) {
      // The page size may change from one page to the next; the filters may not.
      const page = await a.api.get('/products', { limit: '3', cursor });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.pagination.total).toBe(5);
      seen.push(...page.body.data.map((p) => p.externalId));
      cursor = page.body.pagination.nextCursor;
    }
    expect(seen.sort()).toEqual(products(5, 'A').map((p) => p.externalId));
  });

  it("refuses a cursor of tenant A's listing sent with tenant B's key, on cursor", async () => {
    const fromA = (await a.api.get('/products', { limit: '2' })).body.pagination.nextCursor!;
    expectRefusedCursor(await b.api.get('/products', { limit: '2', cursor: fromA }));
    const ordersOfA = (await a.api.get('/orders', { limit: '1' })).body.pagination.nextCursor!;
    expectRefusedCursor(await b.api.get('/orders', { limit: '1', cursor: ordersOfA }));
    // The same cursor still serves tenant A.
    expect((await a.api.get('/products', { limit: '2', cursor: fromA })).status).toBe(200);
  });

  it('refuses an edited cursor: a made-up total, or another position, with the signature it came with', async () => {
    const cursor = (await a.api.get('/products', { limit: '2' })).body.pagination.nextCursor!;
    const { signature, decoded } = partsOf(cursor);
    expect(decoded.at(-1)).toBe(5);
    expectRefusedCursor(await a.api.get('/products', { limit: '2', cursor: `${encode([...decoded.slice(0, -1), 1_000_000])}.${signature}` }));
    const orders = (await a.api.get('/orders', { limit: '1' })).body.pagination.nextCursor!;
    const edited = partsOf(orders);
    expectRefusedCursor(await a.api.get('/orders', { limit: '1', cursor: `${encode([...edited.decoded.slice(0, -1), 0])}.${edited.signature}` }));
    // Unsigned, as cursors were issued before: refused too (start the listing again).
    expectRefusedCursor(await a.api.get('/products', { limit: '2', cursor: partsOf(cursor).key }));
    expectRefusedCursor(await a.api.get('/products', { limit: '2', cursor: `${partsOf(cursor).key}.` }));
  });

  it('refuses a cursor sent with other filters than its listing; a default sent explicitly is the same filter', async () => {
    const pending = (await a.api.get('/orders', { limit: '1', status: 'PENDING' })).body.pagination.nextCursor!;
    expectRefusedCursor(await a.api.get('/orders', { limit: '1', status: 'CANCELLED', cursor: pending }));
    expectRefusedCursor(await a.api.get('/orders', { limit: '1', cursor: pending }));
    expect((await a.api.get('/orders', { limit: '1', status: 'PENDING', cursor: pending })).body.pagination.total).toBe(3);

    const active = (await a.api.get('/products', { limit: '2' })).body.pagination.nextCursor!;
    expectRefusedCursor(await a.api.get('/products', { limit: '2', active_only: 'false', cursor: active }));
    expect((await a.api.get('/products', { limit: '2', active_only: 'true', cursor: active })).status).toBe(200);
  });

  it('takes a cursor signed for its listing outside a request (signedCursor, as benchmarks start deep in a listing)', async () => {
    const listed = (await a.api.get('/products', { limit: '5' })).body.data;
    const listing = { method: 'GET', url: '/api/v1/public/products', tenantId: a.id, params: {}, filters: { active_only: true } };
    const cursor = signedCursor(setup.ctx.config.secretKey, listing, encodeCursor([listed[2]!.id, 5]));
    const page = await a.api.get('/products', { cursor });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.data.map((p) => p.externalId)).toEqual(listed.slice(3).map((p) => p.externalId));
    expectRefusedCursor(await b.api.get('/products', { cursor }));
  });

  it("refuses a cursor of one webhook's deliveries on another's", async () => {
    const register = async () =>
      (await a.api.post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.status_changed'], secret: 's'.repeat(32) })).body.data.id as string;
    const [first, second] = [await register(), await register()];
    for (const id of [first, second]) {
      for (let i = 0; i < 2; i++) expect((await a.api.post(`/webhooks/${id}/test`, { event: 'order.status_changed' })).status).toBe(200);
    }
    const page = await a.api.get(`/webhooks/${first}/deliveries`, { limit: '1' });
    expect(page.body.pagination).toMatchObject({ total: 2, hasMore: true });
    const cursor = page.body.pagination.nextCursor!;
    expect((await a.api.get(`/webhooks/${first}/deliveries`, { limit: '1', cursor })).body.data).toHaveLength(1);
    expectRefusedCursor(await a.api.get(`/webhooks/${second}/deliveries`, { limit: '1', cursor }));
  });

  it('checks the cursor on every list of the document, before anything else reads it', async () => {
    const document = setup.ctx.app.swagger() as unknown as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
    };
    const lists = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'))
        .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
    expect(lists.map((l) => `${l.method} ${l.path}`)).toEqual(
      expect.arrayContaining([
        'GET /api/v1/public/products',
        'GET /api/v1/public/orders',
        'GET /api/v1/public/webhooks/{id}/deliveries',
        'GET /api/v1/public/webhooks/{id}/dead-letters',
        'GET /api/v1/warehouse/tenants/{slug}/waves',
        'GET /api/v1/warehouse/tenants/{slug}/slots',
        'GET /console/api/lots',
      ]),
    );
    // A cursor as this service made them before they were signed: a valid key, no signature.
    const unsigned = encode(['0190a6c4-0000-7000-8000-000000000000', 1]);
    const supervisor = await signedIn(setup.ctx, a, 'supervisor');
    for (const { method, path } of lists) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'slug' ? a.slug : '0190a6c4-0000-4000-8000-000000000000'));
      if (path.startsWith('/console/')) {
        expectRefusedCursor(await supervisor.get(`${url.slice('/console/api'.length)}?cursor=${unsigned}`));
        continue;
      }
      const authorization = path.startsWith('/api/v1/public/') ? `Bearer ${a.key}` : `Bearer ${ADMIN_TOKEN}`;
      const response = await setup.ctx.app.inject({ method: method as InjectOptions['method'], url, query: { cursor: unsigned }, headers: { authorization } });
      expectRefusedCursor({ status: response.statusCode, body: response.json() });
    }
  });
});
