import { asGtin14, Gs1Error, isMarkedGs1, parseGs1 } from './gs1';
import type { Packaging } from './schemas';

/*
 * What a scan of a product tells, shared by the console's screens and the service: which product
 * and how many units. Pure: the console runs it on every scan without a round trip.
 */

/** What a screen knows of a product to recognise a scan of it. */
export interface ScannableProduct {
  productSku: string;
  barcode: string | null;
  packagings: readonly Packaging[];
}

/** A scan that names a product: how many units it counts, and the lot and expiry it carried (GS1). */
export interface ProductScanned {
  units: number;
  /** The packaging scanned, when it was one. */
  packaging?: Packaging;
  lot?: string;
  expiresOn?: string;
}

const same = (label: string | null | undefined, code: string) => label != null && label.trim().toLowerCase() === code.trim().toLowerCase();
const sameGtin = (barcode: string | null | undefined, gtin: string) => barcode != null && asGtin14(barcode.trim()) === gtin;

/** A scanned code read: a GS1 element string (or the error reading it), else the code as it is. */
export type ReadScan = { code: string; gs1?: ReturnType<typeof parseGs1>; error?: string };

/**
 * Reads a scan: a code marked as a GS1 element string (symbology identifier, brackets or FNC1)
 * must parse; an unmarked one is a GS1 string only when it reads as one starting with a GTIN (a
 * scanner set to leave the identifier out), else a plain barcode.
 */
export function readScan(code: string, today?: Date): ReadScan {
  const options = today ? { today } : {};
  try {
    if (isMarkedGs1(code)) return { code, gs1: parseGs1(code, options) };
    if (/^0[12]\d{14}/.test(code)) return { code, gs1: parseGs1(code, options) };
  } catch (error) {
    if (!(error instanceof Gs1Error)) throw error;
    if (isMarkedGs1(code)) return { code, error: `Not a readable GS1 code: ${error.message}.` };
  }
  return { code };
}

/**
 * Whether `scan` names `product`, and for how many units: its barcode or sku (1 unit), a
 * packaging's barcode (the packaging's quantity), or a GS1 string whose GTIN is the product's or a
 * packaging's barcode (GTIN-8/12/13 compared as GTIN-14): its (30)/(37) count when present, else
 * as that barcode counts. Null when it names another product.
 */
export function scannedUnits(product: ScannableProduct, scan: ReadScan): ProductScanned | null {
  const { gs1 } = scan;
  if (gs1) {
    if (gs1.gtin === undefined) return null;
    const gtin = gs1.gtin;
    const packaging = product.packagings.find((p) => sameGtin(p.barcode, gtin));
    if (!packaging && !sameGtin(product.barcode, gtin)) return null;
    return {
      units: gs1.count ?? packaging?.quantity ?? 1,
      ...(packaging && gs1.count === undefined ? { packaging } : {}),
      ...(gs1.lot !== undefined ? { lot: gs1.lot } : {}),
      ...(gs1.expiresOn !== undefined ? { expiresOn: gs1.expiresOn } : {}),
    };
  }
  if (same(product.barcode, scan.code) || same(product.productSku, scan.code)) return { units: 1 };
  const packaging = product.packagings.find((p) => same(p.barcode, scan.code));
  return packaging ? { units: packaging.quantity, packaging } : null;
}

/** A quantity as pick lists and packing slips show it: "15 (1 case of 12 + 3)", or "15" for a product without packagings. */
export const quantityText = (quantity: number, packagings: readonly Packaging[]) =>
  packagings.length > 0 && quantity > 0 ? `${quantity} (${inPackagings(quantity, packagings)})` : String(quantity);

/** "case" → "cases", "box" → "boxes": packaging names are short English nouns. */
const plural = (name: string) => (/(s|x|z|ch|sh)$/i.test(name) ? `${name}es` : `${name}s`);

/**
 * A quantity in the product's packagings, largest first, then single units: 27 with a case of 12
 * is "2 cases of 12 + 3", 12 is "1 case of 12", 5 is "5". Largest first is how a picker takes
 * them; with packagings that do not nest (5 and 4 for 8) it may not use the fewest.
 */
export function inPackagings(quantity: number, packagings: readonly Packaging[]): string {
  const parts: string[] = [];
  let rest = quantity;
  for (const packaging of [...packagings].sort((a, b) => b.quantity - a.quantity)) {
    const count = Math.floor(rest / packaging.quantity);
    if (count === 0) continue;
    parts.push(`${count} ${count === 1 ? packaging.name : plural(packaging.name)} of ${packaging.quantity}`);
    rest -= count * packaging.quantity;
  }
  if (rest > 0 || parts.length === 0) parts.push(String(rest));
  return parts.join(' + ');
}
