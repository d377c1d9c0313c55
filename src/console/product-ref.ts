import { sql } from 'kysely';
import type { Executor } from '../db';
import { ApiError, conflict } from '../http/errors';

/** How many products a refusal names when a code is on several. */
const NAMED = 5;

/**
 * The externalId of the product a person names at the console by what they read or scan on it:
 * its externalId, its sku or its barcode, tried in that order. The first two are each unique and
 * compared as given; when neither matches, the sku and the barcode are compared case aside (as the
 * console's scans are). 404 when no product has the code; 409 naming the products when more than
 * one has it (a barcode is not unique in the catalog).
 */
export async function productByRef(db: Executor, tenantId: string, ref: string): Promise<string> {
  const exact = await db
    .selectFrom('products')
    .select(['external_id', sql<boolean>`external_id = ${ref}`.as('by_id')])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('external_id', '=', ref), eb('sku', '=', ref)]))
    .execute();
  const found = exact.find((row) => row.by_id) ?? exact[0];
  if (found) return found.external_id;
  const loose = await db
    .selectFrom('products')
    .select(['external_id', 'sku'])
    .where('tenant_id', '=', tenantId)
    .where(sql<boolean>`(lower(sku) = lower(${ref}) OR lower(barcode) = lower(${ref}))`)
    .orderBy('external_id')
    .limit(NAMED + 1)
    .execute();
  if (loose.length === 1) return loose[0]!.external_id;
  if (loose.length === 0) throw new ApiError('NOT_FOUND', `No product has the reference, sku or barcode ${ref}`);
  const named = loose.slice(0, NAMED).map((row) => `${row.external_id} (sku ${row.sku})`);
  throw conflict(`${ref} is on ${loose.length > NAMED ? `more than ${NAMED}` : loose.length} products: ${named.join(', ')}. Use its sku instead.`);
}
