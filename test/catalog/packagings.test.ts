import { describe, expect, it } from 'vitest';
import { useTenant } from '../helpers/setup';

const setup = useTenant();
let seq = 0;
/** A product with fresh ids and codes, so tests never share state. */
const fresh = <T extends Record<string, unknown>>(extra = {} as T) => {
  seq++;
  return { externalId: `PK-${seq}`, sku: `PK-SKU-${seq}`, name: `Packed ${seq}`, ...extra };
};
const code = (label: string) => `${label}-${++seq}`;
const read = async (externalId: string) => (await setup.tenant.api.get(`/products/${externalId}`)).body.data;

describe('product lotTracked and packagings: happy cases', () => {
  it('a product created without them is not lot-tracked and has no packagings', async () => {
    const product = fresh();
    await setup.tenant.api.post('/products', product);
    expect(await read(product.externalId)).toMatchObject({ lotTracked: false, packagings: [] });
  });

  it('stores both, and keeps them when an update does not send them', async () => {
    const caseCode = code('CASE');
    const product = fresh({ lotTracked: true, packagings: [{ name: 'case', quantity: 12, barcode: caseCode }, { name: 'inner', quantity: 3 }] });
    expect((await setup.tenant.api.post('/products', product)).status).toBe(201);
    await setup.tenant.api.post('/products', { externalId: product.externalId, sku: product.sku, name: 'Renamed' });
    expect(await read(product.externalId)).toMatchObject({
      name: 'Renamed',
      lotTracked: true,
      packagings: [{ name: 'case', quantity: 12, barcode: caseCode }, { name: 'inner', quantity: 3 }],
    });
  });

  it('[] removes the packagings, and frees their barcodes for another product', async () => {
    const caseCode = code('CASE');
    const first = fresh({ packagings: [{ name: 'case', quantity: 6, barcode: caseCode }] });
    await setup.tenant.api.post('/products', first);
    await setup.tenant.api.post('/products', { ...first, packagings: [] });
    expect((await read(first.externalId)).packagings).toEqual([]);
    const second = fresh({ barcode: caseCode });
    expect((await setup.tenant.api.post('/products', second)).status).toBe(201);
  });

  it('a batch sets and keeps them per item', async () => {
    const a = fresh({ lotTracked: true, packagings: [{ name: 'case', quantity: 24, barcode: code('CASE') }] });
    const b = fresh();
    const response = await setup.tenant.api.post('/products/batch', { products: [a, b] });
    expect(response.body.data).toMatchObject({ successCount: 2, errorCount: 0 });
    await setup.tenant.api.post('/products/batch', { products: [{ externalId: a.externalId, sku: a.sku, name: 'A again' }] });
    expect(await read(a.externalId)).toMatchObject({ lotTracked: true, packagings: a.packagings });
    expect(await read(b.externalId)).toMatchObject({ lotTracked: false, packagings: [] });
  });

  it('two products may still share a product barcode', async () => {
    const shared = code('EAN');
    expect((await setup.tenant.api.post('/products', fresh({ barcode: shared }))).status).toBe(201);
    expect((await setup.tenant.api.post('/products', fresh({ barcode: shared }))).status).toBe(201);
  });
});

describe('product packagings: error cases', () => {
  const refused = async (body: Record<string, unknown>, field: string) => {
    const response = await setup.tenant.api.post('/products', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await setup.tenant.api.get(`/products/${body.externalId as string}`)).status).toBe(404);
  };

  it('a packaging of quantity 1 is refused, naming it', async () => {
    await refused(fresh({ packagings: [{ name: 'case', quantity: 12 }, { name: 'single', quantity: 1 }] }), 'packagings[1].quantity');
  });

  it('a fractional quantity is refused, naming it', async () => {
    await refused(fresh({ packagings: [{ name: 'case', quantity: 2.5 }] }), 'packagings[0].quantity');
  });

  it('two packagings of one name (case aside) are refused', async () => {
    await refused(fresh({ packagings: [{ name: 'case', quantity: 12 }, { name: 'Case', quantity: 6 }] }), 'packagings[1].name');
  });

  it("a packaging barcode another product's barcode has is refused", async () => {
    const ean = code('EAN');
    await setup.tenant.api.post('/products', fresh({ barcode: ean }));
    await refused(fresh({ packagings: [{ name: 'case', quantity: 12, barcode: ean.toLowerCase() }] }), 'packagings[0].barcode');
  });

  it("a packaging barcode another product's packaging has is refused", async () => {
    const caseCode = code('CASE');
    await setup.tenant.api.post('/products', fresh({ packagings: [{ name: 'case', quantity: 12, barcode: caseCode }] }));
    await refused(fresh({ packagings: [{ name: 'box', quantity: 4 }, { name: 'case', quantity: 6, barcode: caseCode }] }), 'packagings[1].barcode');
  });

  it('two packagings of one product with one barcode are refused', async () => {
    const caseCode = code('CASE');
    await refused(fresh({ packagings: [{ name: 'case', quantity: 12, barcode: caseCode }, { name: 'box', quantity: 6, barcode: caseCode }] }), 'packagings[1].barcode');
  });

  it("a product barcode equal to another product's packaging barcode is refused", async () => {
    const caseCode = code('CASE');
    await setup.tenant.api.post('/products', fresh({ packagings: [{ name: 'case', quantity: 12, barcode: caseCode }] }));
    await refused(fresh({ barcode: caseCode }), 'barcode');
  });

  it("a product barcode equal to its own stored packaging's barcode is refused, alone and in a batch", async () => {
    const caseCode = code('CASE');
    const product = fresh({ packagings: [{ name: 'case', quantity: 12, barcode: caseCode }] });
    await setup.tenant.api.post('/products', product);
    const alone = await setup.tenant.api.post('/products', { externalId: product.externalId, sku: product.sku, name: product.name, barcode: caseCode });
    expect(alone.status).toBe(400);
    expect(alone.body.error.details.map((d: { field: string }) => d.field)).toEqual(['barcode']);
    const batch = await setup.tenant.api.post('/products/batch', { products: [{ externalId: product.externalId, sku: product.sku, name: product.name, barcode: caseCode }] });
    expect(batch.body.errors.map((e) => [e.code, e.details?.[0]?.field])).toEqual([['VALIDATION_ERROR', 'products[0].barcode']]);
    expect((await read(product.externalId)).barcode).toBeNull();
  });

  it('an update refused leaves the product as it was', async () => {
    const caseCode = code('CASE');
    await setup.tenant.api.post('/products', fresh({ packagings: [{ name: 'case', quantity: 12, barcode: caseCode }] }));
    const product = fresh({ packagings: [{ name: 'inner', quantity: 3 }] });
    await setup.tenant.api.post('/products', product);
    const response = await setup.tenant.api.post('/products', { ...product, name: 'Changed', barcode: caseCode });
    expect(response.status).toBe(400);
    expect(await read(product.externalId)).toMatchObject({ name: product.name, barcode: null, packagings: product.packagings });
  });

  it('in a batch, each bad item fails on its own, naming its field; the first claim on a barcode wins', async () => {
    const held = code('CASE');
    await setup.tenant.api.post('/products', fresh({ packagings: [{ name: 'case', quantity: 12, barcode: held }] }));
    const claimed = code('CASE');
    const good = fresh({ packagings: [{ name: 'case', quantity: 8, barcode: claimed }] });
    const items = [
      good,
      fresh({ packagings: [{ name: 'case', quantity: 1 }] }),
      fresh({ barcode: held }),
      fresh({ packagings: [{ name: 'case', quantity: 4, barcode: claimed }] }),
      fresh({ barcode: claimed }),
      fresh({ packagings: [{ name: 'a', quantity: 2 }, { name: 'A', quantity: 3 }] }),
    ];
    const response = await setup.tenant.api.post('/products/batch', { products: items });
    expect(response.body.data).toMatchObject({ successCount: 1, errorCount: 5 });
    expect(response.body.errors.map((e) => [e.index, e.code, e.details?.[0]?.field])).toEqual([
      [1, 'VALIDATION_ERROR', 'products[1].packagings[0].quantity'],
      [2, 'VALIDATION_ERROR', 'products[2].barcode'],
      [3, 'VALIDATION_ERROR', 'products[3].packagings[0].barcode'],
      [4, 'VALIDATION_ERROR', 'products[4].barcode'],
      [5, 'VALIDATION_ERROR', 'products[5].packagings[1].name'],
    ]);
    expect((await read(good.externalId)).packagings).toEqual(good.packagings);
    for (const item of items.slice(1)) expect((await setup.tenant.api.get(`/products/${item.externalId}`)).status).toBe(404);
  });
});

describe('product barcodes under concurrent writes', () => {
  it('two upserts at once cannot both take one barcode, as a packaging and as a product barcode', async () => {
    const contested = code('RACE');
    const responses = await Promise.all([
      setup.tenant.api.post('/products', fresh({ packagings: [{ name: 'case', quantity: 12, barcode: contested }] })),
      setup.tenant.api.post('/products', fresh({ barcode: contested })),
      setup.tenant.api.post('/products', fresh({ packagings: [{ name: 'case', quantity: 6, barcode: contested }] })),
    ]);
    expect(responses.map((r) => r.status).filter((s) => s === 201)).toHaveLength(1);
    expect(responses.map((r) => r.status).filter((s) => s === 400)).toHaveLength(2);
  });

  it('two batches at once cannot both take one packaging barcode', async () => {
    const contested = code('RACE');
    const responses = await Promise.all(
      [1, 2].map(() => setup.tenant.api.post('/products/batch', { products: [fresh({ packagings: [{ name: 'case', quantity: 12, barcode: contested }] })] })),
    );
    expect(responses.map((r) => r.body.data.successCount).sort()).toEqual([0, 1]);
  });
});
