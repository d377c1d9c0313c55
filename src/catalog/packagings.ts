import { sql } from 'kysely';
import type { Executor } from '../db';
import { isUniqueViolation } from '../db/errors';
import type { FieldProblem } from '../http/errors';
import type { ProductInput } from './schemas';

/*
 * The rules of a product's barcodes (docs/catalog.md, "Packagings"): a packaging's barcode names
 * that packaging of that product alone, so no other packaging (of any product) and no product has
 * it as its barcode, case aside as scans compare. Product barcodes may repeat among products.
 * The products' trigger (migration 038) enforces this under concurrent writes; the checks here
 * name the field before anything is written.
 */

const key = (code: string) => code.toLowerCase();

/** Repeated packaging names or barcodes, and a packaging barcode equal to the product's own. `at` prefixes paths (`products[3].`). */
export function packagingProblems(input: ProductInput, at = ''): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const names = new Map<string, number>();
  const barcodes = new Map<string, number>();
  (input.packagings ?? []).forEach((packaging, i) => {
    const name = names.get(key(packaging.name));
    if (name !== undefined) problems.push({ field: `${at}packagings[${i}].name`, message: `repeats packagings[${name}].name; each packaging has its own name` });
    else names.set(key(packaging.name), i);
    if (packaging.barcode === undefined) return;
    const barcode = barcodes.get(key(packaging.barcode));
    if (barcode !== undefined) {
      problems.push({ field: `${at}packagings[${i}].barcode`, message: `repeats packagings[${barcode}].barcode; each packaging has its own barcode` });
    } else if (input.barcode && key(input.barcode) === key(packaging.barcode)) {
      problems.push({ field: `${at}packagings[${i}].barcode`, message: "is the product's own barcode; a packaging has its own" });
    }
    barcodes.set(key(packaging.barcode), i);
  });
  return problems;
}

const takenMessage = (barcode: string, holder: string | undefined) =>
  holder === undefined ? `"${barcode}" already belongs to another product or packaging` : `"${barcode}" already belongs to the product with externalId "${holder}"`;

/**
 * The field a refusal of the products' trigger names, for a write of `input`: its barcode, or the
 * packaging whose barcode another product holds. Undefined for any other error.
 */
export function barcodeTaken(error: unknown, input: ProductInput, at = ''): FieldProblem | undefined {
  if (!isUniqueViolation(error, 'product_barcodes_distinct') && !isUniqueViolation(error, 'packaging_barcodes_unique')) return undefined;
  const { detail, hint } = error as { detail?: string; hint?: string };
  const code = detail === undefined || detail.startsWith('Key (') ? undefined : key(detail);
  const index = (input.packagings ?? []).findIndex((p) => p.barcode !== undefined && key(p.barcode) === code);
  const field = index >= 0 ? `${at}packagings[${index}].barcode` : input.barcode && key(input.barcode) === code ? `${at}barcode` : `${at}packagings`;
  return { field, message: takenMessage(detail ?? '', hint) };
}

/** A product of a batch, by its index. */
interface Item {
  index: number;
  input: ProductInput;
}

/**
 * The items of a batch whose barcodes break the rules, with the problem: against the catalog (other
 * products as they stand when the batch starts) and against earlier items of the batch (the first
 * claim wins, as for skus). One statement, only when the batch sends a barcode.
 */
export async function batchBarcodeProblems(db: Executor, tenantId: string, items: readonly Item[]): Promise<Map<number, FieldProblem[]>> {
  const problems = new Map<number, FieldProblem[]>();
  const add = (index: number, problem: FieldProblem) => problems.set(index, [...(problems.get(index) ?? []), problem]);
  const packagingCodes = items.flatMap(({ input }) => (input.packagings ?? []).flatMap((p) => (p.barcode ? [key(p.barcode)] : [])));
  const productCodes = items.flatMap(({ input }) => (input.barcode ? [key(input.barcode)] : []));
  if (packagingCodes.length === 0 && productCodes.length === 0) return problems;

  // Codes held in the catalog by another product: as a packaging's (any code), as a barcode (packaging codes only).
  const { rows } = await sql<{ code: string; external_id: string; packaging: boolean }>`
    SELECT lower(b.barcode) AS code, p.external_id, true AS packaging
    FROM packaging_barcodes AS b JOIN products AS p ON p.tenant_id = b.tenant_id AND p.id = b.product_id
    WHERE b.tenant_id = ${tenantId} AND lower(b.barcode) = ANY (${[...packagingCodes, ...productCodes]}::text[])
    UNION ALL
    SELECT lower(barcode), external_id, false FROM products
    WHERE tenant_id = ${tenantId} AND barcode IS NOT NULL AND lower(barcode) = ANY (${packagingCodes}::text[])`.execute(db);
  const heldAsPackaging = new Map<string, string>();
  const heldAsBarcode = new Map<string, string[]>();
  for (const row of rows) {
    if (row.packaging) heldAsPackaging.set(row.code, row.external_id);
    else heldAsBarcode.set(row.code, [...(heldAsBarcode.get(row.code) ?? []), row.external_id]);
  }

  // Claims made by earlier items of the batch: a packaging's code by its item, a barcode by the items having it.
  const claimedAsPackaging = new Map<string, number>();
  const claimedAsBarcode = new Map<string, number>();
  for (const { index, input } of items) {
    const at = `products[${index}].`;
    // The item's own product counts only while the item keeps its stored barcode (sends none).
    const otherHolder = (holders: string[] | undefined) => holders?.find((holder) => holder !== input.externalId || input.barcode === undefined);
    if (input.barcode) {
      const code = key(input.barcode);
      const holder = heldAsPackaging.get(code);
      const claim = claimedAsPackaging.get(code);
      // The item's own packagings count while it keeps the stored ones (sends none).
      if (holder !== undefined && (holder !== input.externalId || input.packagings === undefined)) {
        add(index, { field: `${at}barcode`, message: `${takenMessage(input.barcode, holder)} as a packaging's barcode` });
      }
      else if (claim !== undefined) add(index, { field: `${at}barcode`, message: `"${input.barcode}" is a packaging's barcode of products[${claim}] of this batch` });
    }
    (input.packagings ?? []).forEach((packaging, i) => {
      if (!packaging.barcode) return;
      const code = key(packaging.barcode);
      const field = `${at}packagings[${i}].barcode`;
      const packagingHolder = heldAsPackaging.get(code);
      const holder = (packagingHolder === input.externalId ? undefined : packagingHolder) ?? otherHolder(heldAsBarcode.get(code));
      const claim = claimedAsPackaging.get(code) ?? claimedAsBarcode.get(code);
      if (holder !== undefined) add(index, { field, message: takenMessage(packaging.barcode, holder) });
      else if (claim !== undefined && claim !== index) add(index, { field, message: `"${packaging.barcode}" is claimed by products[${claim}] of this batch` });
    });
    if (problems.has(index)) continue;
    if (input.barcode) claimedAsBarcode.set(key(input.barcode), claimedAsBarcode.get(key(input.barcode)) ?? index);
    for (const packaging of input.packagings ?? []) if (packaging.barcode) claimedAsPackaging.set(key(packaging.barcode), index);
  }
  return problems;
}
