import { randomUUID } from 'node:crypto';
import { createPickportClient, PickportError, type RetryEvent } from '@pickport/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, UNLIMITED } from '../helpers/context';
import { settled } from '../helpers/wait';
import { FlakyProxy, listen } from './service';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('@pickport/client against the service', () => {
  let ctx: TestContext;
  let url: string;
  let proxy: FlakyProxy;
  /** Added to the service's clock for rate limits: lets a test place requests in the past. */
  let clockOffsetMs = 0;

  beforeAll(async () => {
    ctx = await createTestContext({}, { clock: () => Date.now() + clockOffsetMs });
    url = await listen(ctx);
    proxy = await new FlakyProxy(url).start();
  });
  afterAll(async () => {
    await proxy.close();
    await ctx.close();
  });
  afterEach(() => {
    proxy.plan = () => 'forward';
    proxy.seen.length = 0;
    clockOffsetMs = 0;
  });

  /** A client of a new tenant, through the proxy; its retries recorded. */
  async function client(keyOptions = UNLIMITED, retry = {}) {
    const tenant = await ctx.tenant(keyOptions);
    const retries: RetryEvent[] = [];
    const pickport = createPickportClient({ baseUrl: proxy.url, apiKey: tenant.key, retry: { baseDelayMs: 20, onRetry: (r) => retries.push(r), ...retry } });
    return { pickport, retries, tenant };
  }

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a PickportError');
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(PickportError);
        return error as PickportError;
      },
    );

  it('makes typed calls: a product and an order created and read back', async () => {
    const { pickport } = await client();
    const created = await pickport.products.upsert({ externalId: 'P-1', sku: 'MUG-1', name: 'Mug', stock: 5 });
    expect(created).toMatchObject({ success: true, action: 'created', data: { externalId: 'P-1', sku: 'MUG-1' } });
    expect((await pickport.products.upsert({ externalId: 'P-1', sku: 'MUG-1', name: 'Blue mug', stock: 5 })).action).toBe('updated');
    expect((await pickport.products.get('P-1')).data).toMatchObject({ name: 'Blue mug', stock: 5 });

    const order = await pickport.orders.upsert({ externalId: 'SO-1', orderNumber: '1', items: [{ productExternalId: 'P-1', productSku: 'MUG-1', quantity: 2 }] });
    expect(order).toMatchObject({ action: 'created', data: { externalId: 'SO-1', status: 'PENDING', hasIssues: false } });
    expect((await pickport.orders.cancel('SO-1')).data.status).toBe('CANCELLED');
    expect((await pickport.orders.get('SO-1')).data).toMatchObject({ status: 'CANCELLED', items: [expect.objectContaining({ quantity: 2 })] });
  });

  it('sends a new UUID v4 idempotency key on every write, none on reads, and the given one when told', async () => {
    const { pickport } = await client();
    await pickport.products.upsert({ externalId: 'P-1', sku: 'S-1', name: 'One' });
    await pickport.products.upsert({ externalId: 'P-2', sku: 'S-2', name: 'Two' });
    await pickport.products.get('P-1');
    const given = randomUUID();
    await pickport.products.upsert({ externalId: 'P-3', sku: 'S-3', name: 'Three' }, { idempotencyKey: given });
    const keys = proxy.seen.map((seen) => seen.headers['x-idempotency-key']);
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toMatch(UUID_V4);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys[2]).toBeUndefined();
    expect(keys[3]).toBe(given);
  });

  it('answers the stored answer when a key is used again: the service reports the replay and nothing runs twice', async () => {
    const { pickport } = await client();
    const key = randomUUID();
    const body = { externalId: 'SO-9', orderNumber: '9', items: [{ productExternalId: 'P-9', productSku: 'S-9', quantity: 1 }] };
    const first = await pickport.orders.upsert(body, { idempotencyKey: key });
    const again = await pickport.orders.upsert(body, { idempotencyKey: key });
    expect(again).toEqual(first);
    expect(proxy.seen[1]!.answer!.headers['x-idempotency-replayed']).toBe('true');
    expect(again.action).toBe('created');

    const conflict = await failure(pickport.orders.upsert({ ...body, orderNumber: '10' }, { idempotencyKey: key }));
    expect(conflict).toMatchObject({ status: 409, code: 'IDEMPOTENCY_CONFLICT' });
  });

  it('retries a write whose answer was lost with the same key: the service replays it, the order exists once', async () => {
    const { pickport, retries } = await client();
    proxy.plan = (_seen, n) => (n === 0 ? 'lose-answer' : 'forward');
    const created = await pickport.orders.upsert({ externalId: 'SO-L', orderNumber: 'L', items: [{ productExternalId: 'P', productSku: 'S', quantity: 1 }] });
    expect(created.action).toBe('created');
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.headers['x-idempotency-key']).toBe(proxy.seen[0]!.headers['x-idempotency-key']);
    expect(proxy.seen[0]!.answer!.status).toBe(201);
    expect(proxy.seen[1]!.answer!.headers['x-idempotency-replayed']).toBe('true');
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, method: 'POST', error: expect.any(Error) })]);
    expect((await pickport.orders.list().toArray()).map((order) => order.externalId)).toEqual(['SO-L']);
  });

  it('retries a connection cut before the request arrived', async () => {
    const { pickport, retries } = await client();
    proxy.plan = (_seen, n) => (n === 0 ? 'drop' : 'forward');
    expect((await pickport.products.upsert({ externalId: 'P-D', sku: 'S-D', name: 'Dropped once' })).action).toBe('created');
    expect(proxy.seen.map((seen) => seen.headers['x-idempotency-key'])).toEqual([expect.stringMatching(UUID_V4), proxy.seen[0]!.headers['x-idempotency-key']]);
    expect(retries).toHaveLength(1);
  });

  it('retries a 503 after its Retry-After, with the same key', async () => {
    const { pickport, retries } = await client();
    proxy.plan = (_seen, n) => (n === 0 ? { status: 503, headers: { 'retry-after': '1', 'content-type': 'text/plain' }, body: 'maintenance' } : 'forward');
    expect((await pickport.products.upsert({ externalId: 'P-5', sku: 'S-5', name: 'Five' })).action).toBe('created');
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.headers['x-idempotency-key']).toBe(proxy.seen[0]!.headers['x-idempotency-key']);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, status: 503 });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(1200);
  });

  it('retries a 409 that names a Retry-After (its key still being processed), and not a 409 without one', async () => {
    const { pickport, retries } = await client();
    const stillProcessing = JSON.stringify({
      success: false,
      error: { code: 'IDEMPOTENCY_CONFLICT', message: 'A request with this X-Idempotency-Key is still being processed; retry once it has completed' },
      requestId: 'r-1',
    });
    proxy.plan = (_seen, n) => (n === 0 ? { status: 409, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: stillProcessing } : 'forward');
    expect((await pickport.products.upsert({ externalId: 'P-9', sku: 'S-9', name: 'Nine' })).action).toBe('created');
    expect(proxy.seen[1]!.headers['x-idempotency-key']).toBe(proxy.seen[0]!.headers['x-idempotency-key']);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, status: 409 })]);

    proxy.plan = () => 'forward';
    const key = randomUUID();
    await pickport.products.upsert({ externalId: 'P-10', sku: 'S-10', name: 'Ten' }, { idempotencyKey: key });
    await expect(pickport.products.upsert({ externalId: 'P-10', sku: 'S-10', name: 'Other' }, { idempotencyKey: key })).rejects.toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_CONFLICT',
    });
    expect(retries).toHaveLength(1);
  });

  it('retries a 409 CONCURRENT_UPDATE (a race lost to a concurrent request) with the same key, after its Retry-After', async () => {
    const { pickport, retries } = await client();
    const lostRace = JSON.stringify({
      success: false,
      error: { code: 'CONCURRENT_UPDATE', message: 'Order SO-7 was changed by a concurrent request; retry the request', retryAfter: 1 },
      requestId: 'r-2',
    });
    proxy.plan = (_seen, n) => (n === 0 ? { status: 409, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: lostRace } : 'forward');
    expect((await pickport.products.upsert({ externalId: 'P-11', sku: 'S-11', name: 'Eleven' })).action).toBe('created');
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.headers['x-idempotency-key']).toBe(proxy.seen[0]!.headers['x-idempotency-key']);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, status: 409 })]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    const { pickport, retries } = await client();
    proxy.plan = (_seen, n) => (n === 0 ? { status: 503, headers: { 'retry-after': new Date(Date.now() + 3_000).toUTCString() } } : 'forward');
    await expect(pickport.products.get('P-1')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(proxy.seen).toHaveLength(2);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('waits out a 429 for its Retry-After, then gets through', async () => {
    const { pickport, retries, tenant } = await client({ rateLimitPerMinute: 2, dailyLimit: 1000 });
    // Two requests counted 58 s ago: the window frees its first slot in about 2 s.
    clockOffsetMs = -58_000;
    await tenant.api.get('/products');
    await tenant.api.get('/products');
    clockOffsetMs = 0;
    const page = await pickport.raw.GET('/api/v1/public/products');
    expect(page.response.status).toBe(200);
    expect(proxy.seen.map((seen) => seen.answer?.status)).toEqual([429, 200]);
    const retryAfter = Number(proxy.seen[0]!.answer!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, status: 429 })]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(retryAfter * 1000);
  });

  it('gives up after its attempts, and at once when Retry-After is longer than it waits', async () => {
    const { pickport, retries } = await client(UNLIMITED, { attempts: 3 });
    proxy.plan = () => ({ status: 503, headers: { 'retry-after': '0' } });
    const unavailable = await failure(pickport.products.get('P-1'));
    expect(unavailable).toMatchObject({ status: 503, code: 'UNEXPECTED_RESPONSE', retryAfter: 0 });
    expect(proxy.seen).toHaveLength(3);
    expect(retries).toHaveLength(2);

    proxy.plan = () => 'forward';
    proxy.seen.length = 0;
    // The service's clock at noon UTC: a spent daily limit is then 12 hours from its reset. In the
    // last minute before midnight its Retry-After would be the minute window's (60 s, which the
    // client waits out) and, across midnight, the limit would not be spent at all.
    clockOffsetMs = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 12 * 3_600_000 - Date.now();
    const { pickport: spent, retries: spentRetries } = await client({ rateLimitPerMinute: 100, dailyLimit: 1 });
    await spent.products.list().toArray();
    const limited = await failure(spent.products.get('P-1'));
    expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
    expect(limited.retryAfter).toBeGreaterThan(60);
    expect(limited.message).toMatch(/^Daily limit of 1 requests/);
    expect(proxy.seen).toHaveLength(2);
    expect(spentRetries).toEqual([]);
  });

  it('walks every product exactly once across pages, and incremental changes with updated_since', async () => {
    const { pickport } = await client();
    const products = Array.from({ length: 230 }, (_, i) => ({ externalId: `P-${i}`, sku: `S-${i}`, name: `Product ${i}`, stock: i }));
    for (let i = 0; i < products.length; i += 100) {
      const batch = await pickport.products.batch({ products: products.slice(i, i + 100) });
      expect(batch.data).toMatchObject({ createdCount: Math.min(100, products.length - i), errorCount: 0 });
    }
    const listing = pickport.products.list({ limit: 50 });
    const pages = [];
    for await (const page of listing.pages()) pages.push(page);
    expect(pages.map((page) => page.data.length)).toEqual([50, 50, 50, 50, 30]);
    expect(pages[0]!.pagination.total).toBe(230);
    const seen: string[] = [];
    for await (const product of listing) seen.push(product.externalId);
    expect(seen).toHaveLength(230);
    expect(new Set(seen)).toEqual(new Set(products.map((p) => p.externalId)));

    await settled(ctx.database.db);
    const newest = (await pickport.products.list({ updated_since: '2000-01-01T00:00:00Z', limit: 200 }).toArray()).at(-1)!.updatedAt;
    const since = new Date(Date.parse(newest) + 1).toISOString();
    await pickport.products.batch({ products: [products[7]!, products[42]!, products[199]!].map((p) => ({ ...p, stock: p.stock + 1 })) });
    await settled(ctx.database.db);
    const changed = [];
    for await (const product of pickport.products.list({ updated_since: since })) changed.push(product.externalId);
    expect(changed.sort()).toEqual(['P-199', 'P-42', 'P-7']);
  });

  it('walks orders the same way', async () => {
    const { pickport } = await client();
    const orders = Array.from({ length: 7 }, (_, i) => ({ externalId: `SO-${i}`, orderNumber: `${i}`, items: [{ productExternalId: 'P', productSku: 'S', quantity: 1 }] }));
    await pickport.orders.batch({ orders });
    const seen = [];
    for await (const order of pickport.orders.list({ limit: 3 })) seen.push(order.externalId);
    expect(seen.sort()).toEqual(orders.map((o) => o.externalId).sort());
  });

  it('throws typed errors carrying status, code, details and requestId', async () => {
    const { pickport } = await client();
    const missing = await failure(pickport.products.get('nope'));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', details: [] });
    expect(missing.requestId).toMatch(UUID_V4);
    expect(missing.requestId).toBe(proxy.seen.at(-1)!.answer!.headers['x-request-id']);

    const invalid = await failure(pickport.products.upsert({ externalId: 'P-1', sku: 'S-1', name: 'x', stock: -1 }));
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'stock' })] });
    await expect(pickport.products.get('P-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const forbidden = createPickportClient({ baseUrl: url, apiKey: (await ctx.tenant({ ...UNLIMITED, permissions: ['products:read'] })).key });
    await expect(forbidden.orders.list().toArray()).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const unknown = createPickportClient({ baseUrl: url, apiKey: `pk_live_${'x'.repeat(40)}` });
    await expect(unknown.products.get('P-1')).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

    proxy.plan = () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' });
    const gateway = await failure(pickport.products.get('P-1'));
    expect(gateway).toMatchObject({ status: 502, code: 'UNEXPECTED_RESPONSE', requestId: undefined });
  });
});
