import { describe, expect, it } from 'vitest';
import { useFloor } from '../floor/helpers';
import { signedIn } from './helpers';

/** The console finds a product by what is scanned on it: a packaging's barcode, or a GS1 string with its GTIN. */
describe('console: a scanned code names a product', () => {
  const setup = useFloor({ locations: [{ code: 'A-01', aisle: 1, position: 1 }], products: [] });

  const catalog = async () => {
    const products = [
      { externalId: 'MUG', sku: 'SKU-MUG', name: 'Mug', barcode: '9521234543213', packagings: [{ name: 'case', quantity: 12, barcode: 'CASE-MUG-12' }] },
      { externalId: 'CUP', sku: 'SKU-CUP', name: 'Cup', barcode: '96385074', packagings: [{ name: 'case', quantity: 6, barcode: '19521234543210' }] },
    ];
    const saved = await setup.tenant.api.post('/products/batch', { products });
    expect(saved.body.data.errorCount, JSON.stringify(saved.body.errors)).toBe(0);
    return signedIn(setup.ctx, setup.tenant, 'picker');
  };
  const found = async (picker: Awaited<ReturnType<typeof catalog>>, code: string) => picker.get(`/counting/products/${encodeURIComponent(code)}`);

  it("finds the product by a packaging's barcode, case aside", async () => {
    const picker = await catalog();
    expect((await found(picker, 'case-mug-12')).body.data.productExternalId).toBe('MUG');
  });

  it("finds it by a GS1 string whose GTIN-14 is its GTIN-13 or GTIN-8 barcode, zero-padded, or a packaging's", async () => {
    const picker = await catalog();
    expect((await found(picker, '(01)09521234543213(10)L1(17)270101')).body.data.productExternalId).toBe('MUG');
    expect((await found(picker, ']C1010000009638507437' + '5')).body.data.productExternalId).toBe('CUP');
    expect((await found(picker, '(01)19521234543210')).body.data.productExternalId).toBe('CUP');
  });

  it('answers 404 for a GS1 string whose GTIN no product has, and 400 naming the ref for one that does not read', async () => {
    const picker = await catalog();
    expect((await found(picker, '(01)00614141000036')).status).toBe(404);
    const bad = await found(picker, '(01)09521234543214');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details!.map((detail) => detail.field)).toEqual(['ref']);
    expect(bad.body.error.message).toContain('(01)');
  });
});
