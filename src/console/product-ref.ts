import { sql } from 'kysely';
import type { Executor } from '../db';
import { readScan } from '../catalog/scan';
import { ApiError, conflict, validationError } from '../http/errors';

/** How many products a refusal names when a code is on several. */
const NAMED = 5;

/** The barcodes a GTIN-14 is printed as: itself, and as a GTIN-13, -12 or -8 when it starts with the zeros they leave out. */
const gtinForms = (gtin: string) => [gtin, ...[1, 2, 6].filter((zeros) => /^0+$/.test(gtin.slice(0, zeros))).map((zeros) => gtin.slice(zeros))];

/**
 * The externalId of the product a person names at the console by what they read or scan on it:
 * its externalId, its sku, its barcode or a packaging's barcode, tried in that order, or a GS1
 * element string whose GTIN is its barcode or a packaging's (docs/console.md, scanning). The
 * first two are each unique and compared as given; when neither matches, the codes are compared
 * case aside (as the console's scans are). 404 when no product has the code; 409 naming the
 * products when more than one has it (a product barcode is not unique in the catalog); 400 for a
 * GS1 string that does not read.
 */
export async function productByRef(db: Executor, tenantId: string, ref: string): Promise<string> {
  const scan = readScan(ref);
  if (scan.error) throw validationError([{ field: 'ref', message: scan.error }]);
  const codes = scan.gs1 ? (scan.gs1.gtin ? gtinForms(scan.gs1.gtin) : []) : [ref];
  if (!scan.gs1) {
    const exact = await db
      .selectFrom('products')
      .select(['external_id', sql<boolean>`external_id = ${ref}`.as('by_id')])
      .where('tenant_id', '=', tenantId)
      .where((eb) => eb.or([eb('external_id', '=', ref), eb('sku', '=', ref)]))
      .execute();
    const found = exact.find((row) => row.by_id) ?? exact[0];
    if (found) return found.external_id;
  }
  const lower = codes.map((code) => code.toLowerCase());
  const loose = lower.length === 0 ? [] : await sql<{ external_id: string; sku: string }>`
    SELECT external_id, sku FROM products
    WHERE tenant_id = ${tenantId} AND (lower(barcode) = ANY (${lower}::text[])${scan.gs1 ? sql`` : sql` OR lower(sku) = ${lower[0]}`}
      OR id IN (SELECT product_id FROM packaging_barcodes WHERE tenant_id = ${tenantId} AND lower(barcode) = ANY (${lower}::text[])))
    ORDER BY external_id LIMIT ${NAMED + 1}`.execute(db).then((result) => result.rows);
  if (loose.length === 1) return loose[0]!.external_id;
  if (loose.length === 0) throw new ApiError('NOT_FOUND', `No product has the reference, sku or barcode ${ref}`);
  const named = loose.slice(0, NAMED).map((row) => `${row.external_id} (sku ${row.sku})`);
  throw conflict(`${ref} is on ${loose.length > NAMED ? `more than ${NAMED}` : loose.length} products: ${named.join(', ')}. Use its sku instead.`);
}
