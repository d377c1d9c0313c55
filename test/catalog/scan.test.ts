import { describe, expect, it } from 'vitest';
import { GS } from '../../src/catalog/gs1';
import { inPackagings, quantityText, readScan, scannedUnits, type ScannableProduct } from '../../src/catalog/scan';

const caseOf12 = { name: 'case', quantity: 12, barcode: '19521234543210' };
const inner = { name: 'inner', quantity: 3 };
const box = { name: 'box', quantity: 5 };

describe('quantities in packagings', () => {
  it('writes whole packagings, largest first, then the units left', () => {
    expect(inPackagings(15, [caseOf12])).toBe('1 case of 12 + 3');
    expect(inPackagings(27, [inner, caseOf12])).toBe('2 cases of 12 + 1 inner of 3');
    expect(inPackagings(28, [inner, caseOf12])).toBe('2 cases of 12 + 1 inner of 3 + 1');
    expect(inPackagings(12, [caseOf12])).toBe('1 case of 12');
    expect(inPackagings(10, [box])).toBe('2 boxes of 5');
  });

  it('writes only units when no packaging fits', () => {
    expect(inPackagings(5, [caseOf12])).toBe('5');
    expect(inPackagings(0, [caseOf12])).toBe('0');
  });

  it('shows the plain quantity beside its packagings, and alone for a product without any', () => {
    expect(quantityText(15, [caseOf12])).toBe('15 (1 case of 12 + 3)');
    expect(quantityText(15, [])).toBe('15');
    expect(quantityText(0, [caseOf12])).toBe('0');
  });
});

describe('what a scan of a product counts', () => {
  // A GTIN-13 barcode; its case's barcode is a GTIN-14.
  const mug: ScannableProduct = { productSku: 'MUG-RED', barcode: '9521234543213', packagings: [caseOf12, inner] };
  const units = (code: string, product = mug) => scannedUnits(product, readScan(code, new Date('2026-12-07T00:00:00Z')));

  it('a unit for its barcode or sku, case aside', () => {
    expect(units('9521234543213')).toEqual({ units: 1 });
    expect(units('mug-red')).toEqual({ units: 1 });
  });

  it("a packaging's quantity for the packaging's barcode", () => {
    expect(units('19521234543210')).toEqual({ units: 12, packaging: caseOf12 });
  });

  it('a GS1 string with its GTIN-14: the padded barcode counts one unit, carrying lot and expiry', () => {
    expect(units('(01)09521234543213(10)L-7(17)270300')).toEqual({ units: 1, lot: 'L-7', expiresOn: '2027-03-31' });
    expect(units(`]C10109521234543213${'10'}L-7${GS}17270300`)).toEqual({ units: 1, lot: 'L-7', expiresOn: '2027-03-31' });
  });

  it("a GS1 string naming a packaging counts its quantity; a (37) or (30) count counts those units instead", () => {
    expect(units('(01)19521234543210')).toEqual({ units: 12, packaging: caseOf12 });
    expect(units('(02)09521234543213(37)30')).toEqual({ units: 30 });
    expect(units('(01)19521234543210(30)7')).toEqual({ units: 7 });
  });

  it('names no product for another GTIN or code', () => {
    expect(units('(01)00000096385074')).toBeNull();
    expect(units('4006381333931')).toBeNull();
  });

  it('an unmarked GS1 string (no symbology identifier) is read when it starts with a GTIN; a marked one that does not read is an error', () => {
    expect(units('010952123454321337' + '4')).toEqual({ units: 4 });
    expect(readScan('(01)09521234543214').error).toMatch(/\(01\) GTIN 09521234543214 has a wrong check digit/);
  });
});
