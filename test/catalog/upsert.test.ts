import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { twoTenants } from '../helpers/context';
import { useTenant } from '../helpers/setup';

const setup = useTenant();
let seq = 0;
/** A product with fresh ids, so tests never share state. */
const fresh = (extra: Record<string, unknown> = {}) => {
  seq++;
  return { externalId: `P-${seq}`, sku: `SKU-${seq}`, name: `Product ${seq}`, ...extra };
};

const stockEvents = async (tenantId: string, productId: string) => {
  const { rows } = await sql<{ data: Record<string, unknown> }>`
    SELECT data FROM events WHERE tenant_id = ${tenantId} AND event = 'product.stock_updated'
      AND data->>'productId' = ${productId} ORDER BY occurred_at`.execute(setup.ctx.database.db);
  return rows.map((r) => r.data);
};

describe('POST /products', () => {
  it('creates with 201 and action created, returning id, externalId and sku', async () => {
    const product = fresh();
    const response = await setup.tenant.api.post('/products', product);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      success: true,
      action: 'created',
      data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), externalId: product.externalId, sku: product.sku },
      warnings: [],
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('updates an existing externalId with 200 and action updated, keeping the id', async () => {
    const product = fresh();
    const created = await setup.tenant.api.post('/products', product);
    const updated = await setup.tenant.api.post('/products', { ...product, name: 'Renamed' });
    expect(updated.status).toBe(200);
    expect(updated.body.action).toBe('updated');
    expect(updated.body.data.id).toBe(created.body.data.id);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data.name).toBe('Renamed');
  });

  it('repeating the same call yields the same resource (200 updated, updatedAt unchanged)', async () => {
    const product = fresh({ stock: 4, metadata: { color: 'red', size: 2 } });
    await setup.tenant.api.post('/products', product);
    const before = (await setup.tenant.api.get(`/products/${product.externalId}`)).body.data;
    const again = await setup.tenant.api.post('/products', product);
    expect(again.status).toBe(200);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data).toEqual(before);
  });

  it('treats externalId as case-sensitive: a different case is a different product', async () => {
    const product = fresh();
    const lower = { ...product, externalId: product.externalId.toLowerCase(), sku: `${product.sku}-lower` };
    expect((await setup.tenant.api.post('/products', product)).status).toBe(201);
    expect((await setup.tenant.api.post('/products', lower)).status).toBe(201);
    expect((await setup.tenant.api.get(`/products/${lower.externalId}`)).body.data.sku).toBe(lower.sku);
  });

  it('defaults stock to 0, isActive to true and isCombo to false on create', async () => {
    const product = fresh();
    await setup.tenant.api.post('/products', product);
    const { data } = (await setup.tenant.api.get(`/products/${product.externalId}`)).body;
    expect(data).toMatchObject({ stock: 0, isActive: true, isCombo: false, price: null, metadata: null });
  });

  it('keeps fields that an update does not send, stock included', async () => {
    const product = fresh({ stock: 7, price: 9.5, brand: 'Acme', isCombo: true, metadata: { a: 1 } });
    await setup.tenant.api.post('/products', product);
    await setup.tenant.api.post('/products', { externalId: product.externalId, sku: product.sku, name: 'Only the name' });
    const { data } = (await setup.tenant.api.get(`/products/${product.externalId}`)).body;
    expect(data).toMatchObject({ name: 'Only the name', stock: 7, price: 9.5, brand: 'Acme', isCombo: true, metadata: { a: 1 } });
  });

  it('overwrites the fields an update sends; null clears an optional field', async () => {
    const product = fresh({ stock: 7, price: 9.5, brand: 'Acme', metadata: { a: 1 } });
    await setup.tenant.api.post('/products', product);
    await setup.tenant.api.post('/products', { ...product, stock: 3, brand: null, metadata: { b: 'x' } });
    const { data } = (await setup.tenant.api.get(`/products/${product.externalId}`)).body;
    expect(data).toMatchObject({ stock: 3, price: 9.5, brand: null, metadata: { b: 'x' } });
  });

  it('lets a product change its sku, freeing the old one', async () => {
    const product = fresh();
    await setup.tenant.api.post('/products', product);
    expect((await setup.tenant.api.post('/products', { ...product, sku: `${product.sku}-NEW` })).status).toBe(200);
    const other = fresh({ sku: product.sku });
    expect((await setup.tenant.api.post('/products', other)).status).toBe(201);
  });

  it('answers 409 DUPLICATE_SKU when the sku belongs to another externalId, and changes nothing', async () => {
    const owner = fresh();
    await setup.tenant.api.post('/products', owner);
    const intruder = fresh({ sku: owner.sku });
    const response = await setup.tenant.api.post('/products', intruder);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('DUPLICATE_SKU');
    expect((await setup.tenant.api.get(`/products/${intruder.externalId}`)).status).toBe(404);

    const existing = fresh();
    await setup.tenant.api.post('/products', existing);
    const moved = await setup.tenant.api.post('/products', { ...existing, sku: owner.sku, name: 'changed' });
    expect(moved.status).toBe(409);
    expect(moved.body.error.code).toBe('DUPLICATE_SKU');
    expect((await setup.tenant.api.get(`/products/${existing.externalId}`)).body.data).toMatchObject({ sku: existing.sku, name: existing.name });
  });

  it('saves an unknown locationCode with a warning, and a known one without', async () => {
    await setup.ctx.database.db.insertInto('warehouse_locations').values({ tenant_id: setup.tenant.id, code: 'A-01-02' }).execute();
    const unknown = fresh({ locationCode: 'Z-99' });
    const response = await setup.tenant.api.post('/products', unknown);
    expect(response.status).toBe(201);
    expect(response.body.warnings).toEqual([expect.stringContaining('Z-99')]);
    expect((await setup.tenant.api.get(`/products/${unknown.externalId}`)).body.data.locationCode).toBe('Z-99');

    const known = await setup.tenant.api.post('/products', fresh({ locationCode: 'A-01-02' }));
    expect(known.status).toBe(201);
    expect(known.body.warnings).toEqual([]);
  });

  it('deactivates and reactivates through the same upsert', async () => {
    const product = fresh();
    await setup.tenant.api.post('/products', product);
    expect((await setup.tenant.api.post('/products', { ...product, isActive: false })).status).toBe(200);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data.isActive).toBe(false);
    await setup.tenant.api.post('/products', { ...product, isActive: true });
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data.isActive).toBe(true);
  });
});

describe('POST /products validation', () => {
  const rejected = async (body: Record<string, unknown>) => {
    const response = await setup.tenant.api.post('/products', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    return (response.body.error.details as { field: string }[]).map((d) => d.field);
  };

  it.each([
    ['externalId', { externalId: undefined }],
    ['sku', { sku: undefined }],
    ['name', { name: undefined }],
  ])('requires %s', async (field, change) => {
    expect(await rejected(fresh(change))).toContain(field);
  });

  it.each([
    ['externalId', 'x'.repeat(101)],
    ['externalId', ''],
    ['sku', 'x'.repeat(51)],
    ['sku', ''],
    ['name', 'x'.repeat(256)],
    ['name', ''],
    ['locationCode', 'A'.repeat(51)],
    ['barcode', '1'.repeat(51)],
    ['category', 'c'.repeat(256)],
    ['supplier', 's'.repeat(256)],
    ['brand', 'b'.repeat(256)],
    ['imageUrl', 'u'.repeat(256)],
  ])('rejects %s of a bad length (%#)', async (field, value) => {
    expect(await rejected(fresh({ [field]: value }))).toEqual([field]);
  });

  it('accepts every string at its maximum length', async () => {
    const product = {
      externalId: `M${seq++}`.padEnd(100, 'x'),
      sku: `M${seq}`.padEnd(50, 'x'),
      name: 'n'.repeat(255),
      locationCode: 'A'.repeat(50),
      barcode: '1'.repeat(50),
      category: 'c'.repeat(255),
      supplier: 's'.repeat(255),
      brand: 'b'.repeat(255),
      imageUrl: 'u'.repeat(255),
    };
    expect((await setup.tenant.api.post('/products', product)).status).toBe(201);
  });

  it.each(['stock', 'price'])('rejects a negative %s and accepts 0', async (field) => {
    expect(await rejected(fresh({ [field]: -1 }))).toEqual([field]);
    expect((await setup.tenant.api.post('/products', fresh({ [field]: 0 }))).status).toBe(201);
  });

  it.each(['weight', 'length', 'width', 'height'])('rejects %s of 0 or less and accepts a positive one', async (field) => {
    expect(await rejected(fresh({ [field]: 0 }))).toEqual([field]);
    expect(await rejected(fresh({ [field]: -2 }))).toEqual([field]);
    expect((await setup.tenant.api.post('/products', fresh({ [field]: 0.25 }))).status).toBe(201);
  });

  it.each([
    ['stock', '5'],
    ['price', 'free'],
    ['sku', 123],
    ['name', { text: 'x' }],
    ['isActive', 'yes'],
    ['isCombo', 1],
    ['metadata', 'text'],
    ['metadata', [1, 2]],
  ])('rejects %s of the wrong type (%#)', async (field, value) => {
    expect(await rejected(fresh({ [field]: value }))).toEqual([field]);
  });

  it('accepts locationCode of letters, digits and hyphens only', async () => {
    for (const bad of ['A 01', 'A_01', 'A/01', 'Ä-1', '']) expect(await rejected(fresh({ locationCode: bad }))).toEqual(['locationCode']);
    expect((await setup.tenant.api.post('/products', fresh({ locationCode: 'aB-09-z' }))).status).toBe(201);
  });

  it('accepts metadata values that are strings or numbers only, naming the bad key', async () => {
    expect(await rejected(fresh({ metadata: { ok: 'x', nested: { a: 1 } } }))).toEqual(['metadata.nested']);
    expect(await rejected(fresh({ metadata: { flag: true } }))).toEqual(['metadata.flag']);
    expect(await rejected(fresh({ metadata: { none: null } }))).toEqual(['metadata.none']);
    const ok = fresh({ metadata: { color: 'red', size: 42, ratio: 0.5 } });
    expect((await setup.tenant.api.post('/products', ok)).status).toBe(201);
    expect((await setup.tenant.api.get(`/products/${ok.externalId}`)).body.data.metadata).toEqual({ color: 'red', size: 42, ratio: 0.5 });
  });

  it('names every bad field at once and changes nothing', async () => {
    const product = fresh();
    const fields = await rejected({ ...product, stock: -1, weight: 0, locationCode: 'no spaces', sku: 'x'.repeat(51) });
    expect(fields.sort()).toEqual(['locationCode', 'sku', 'stock', 'weight']);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).status).toBe(404);
  });

  it('ignores unknown and read-only fields, naming each in warnings', async () => {
    const product = fresh({ color: 'blue', id: 'not-a-uuid', createdAt: 'yesterday' });
    const response = await setup.tenant.api.post('/products', product);
    expect(response.status).toBe(201);
    expect(response.body.warnings).toEqual([
      'color is not a field of a product; it was ignored',
      'id is set by the service, not by a request; it was ignored',
      'createdAt is set by the service, not by a request; it was ignored',
    ]);
  });

  it('says which field a misspelt one likely meant, and saves the product without it', async () => {
    const product = fresh({ stok: 5, IsActive: false, metadata: { stok: 'a key of metadata is no field' } });
    const response = await setup.tenant.api.post('/products', product);
    expect(response.status).toBe(201);
    expect(response.body.warnings).toEqual([
      'stok is not a field of a product (did you mean stock?); it was ignored',
      'IsActive is not a field of a product (did you mean isActive?); it was ignored',
    ]);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data).toMatchObject({ stock: 0, isActive: true });
    // Sent again as it should have been: nothing to warn about.
    const fixed = await setup.tenant.api.post('/products', { ...fresh(), externalId: product.externalId, sku: product.sku, stock: 5 });
    expect(fixed.body.warnings).toEqual([]);
  });
});

describe('product.stock_updated on sync', () => {
  it('raises no event on create', async () => {
    const product = fresh({ stock: 5 });
    const { status, body } = await setup.tenant.api.post('/products', product);
    expect(status).toBe(201);
    expect(body.action).toBe('created');
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data).toMatchObject({ id: body.data.id, stock: 5 });
    expect(await stockEvents(setup.tenant.id, body.data.id)).toEqual([]);
  });

  it('raises one INVENTORY_SYNC event when an existing product’s stock changes', async () => {
    const product = fresh({ stock: 5 });
    const { body } = await setup.tenant.api.post('/products', product);
    await setup.tenant.api.post('/products', { ...product, stock: 2 });
    expect(await stockEvents(setup.tenant.id, body.data.id)).toEqual([
      { productId: body.data.id, sku: product.sku, previousStock: 5, newStock: 2, reason: 'INVENTORY_SYNC' },
    ]);
  });

  it('raises none when the stock is unchanged or not sent', async () => {
    const product = fresh({ stock: 5 });
    const { body } = await setup.tenant.api.post('/products', product);
    expect(body.action).toBe('created');
    const same = await setup.tenant.api.post('/products', { ...product, stock: 5, name: 'other name' });
    expect([same.status, same.body.action]).toEqual([200, 'updated']);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data).toMatchObject({ name: 'other name', stock: 5 });
    const unsent = await setup.tenant.api.post('/products', { externalId: product.externalId, sku: product.sku, name: 'third name' });
    expect([unsent.status, unsent.body.action]).toEqual([200, 'updated']);
    expect((await setup.tenant.api.get(`/products/${product.externalId}`)).body.data).toMatchObject({ name: 'third name', stock: 5 });
    expect(await stockEvents(setup.tenant.id, body.data.id)).toEqual([]);
  });

  it('raises none when the write is refused', async () => {
    const owner = fresh();
    await setup.tenant.api.post('/products', owner);
    const product = fresh({ stock: 5 });
    const { body } = await setup.tenant.api.post('/products', product);
    expect((await setup.tenant.api.post('/products', { ...product, sku: owner.sku, stock: 1 })).status).toBe(409);
    expect(await stockEvents(setup.tenant.id, body.data.id)).toEqual([]);
  });
});

describe('tenant isolation of products', () => {
  it('tenant B neither reads nor overwrites tenant A’s product with the same externalId or sku', async () => {
    const [a, b] = await twoTenants(setup.ctx); // a handful of requests: default limits do
    const product = fresh({ stock: 9, brand: 'A-brand' });
    expect((await a.api.post('/products', product)).status).toBe(201);
    expect((await b.api.get(`/products/${product.externalId}`)).status).toBe(404);
    expect((await b.api.get('/products')).body.data).toEqual([]);

    // Same externalId and sku in B: a separate product, created, not a DUPLICATE_SKU.
    const mine = await b.api.post('/products', { ...product, stock: 1, brand: 'B-brand' });
    expect(mine.status).toBe(201);
    expect((await a.api.get(`/products/${product.externalId}`)).body.data).toMatchObject({ stock: 9, brand: 'A-brand' });
    expect((await b.api.get(`/products/${product.externalId}`)).body.data).toMatchObject({ stock: 1, brand: 'B-brand' });
  });
});
