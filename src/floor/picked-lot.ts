import { sql } from 'kysely';
import type { Tx } from '../db';
import { validationError } from '../http/errors';
import { readSettings } from '../settings/store';
import { firstDayNow, lotInPlaceProblem, lotText } from './plan/fefo';
import { recordedPicks } from './slots';

/*
 * A lot picked in place of the one a part names: the picker found another lot on the shelf and
 * scanned it. First expiry, first out allows it at that stop when the product has a slot of that
 * lot at the part's location, the lot expires on or before the part's lot (a dated lot may stand in
 * for one without expiry, a lot without expiry only for another without), it may be taken at all
 * (not before the first takeable day, fefo.ts), and its slot holds the units the pick records
 * beyond those the PICKING waves recorded as picked there. The part then names that lot (the pick
 * writes it): completing the wave lowers its slot, and the order's lots and the recall name it.
 */

/** The part of a wave line a pick records, as far as its lot goes. */
export interface LotPart {
  productId: string;
  productExternalId: string;
  locationCode: string;
  lot: string;
  expiresOn: string | null;
  /** The lots of the line's other parts at the same location. */
  siblingLots: readonly string[];
}

/**
 * The expiry of `pickedLot` when first expiry, first out allows `quantity` of it in place of the
 * part's lot (module comment): the part is then to name both; else 400 naming `pickedLot` and the
 * lot the part expects. Call it under the product's row lock: the units free at the slot are read then.
 */
export async function pickedLotExpiry(tx: Tx, tenantId: string, part: LotPart, pickedLot: string, quantity: number): Promise<string | null> {
  const expected = lotText(part.lot, part.expiresOn);
  const refuse = (why: string) => validationError([{ field: 'pickedLot', message: `${why}: take ${expected}` }]);
  if (part.siblingLots.includes(pickedLot)) throw refuse(`is the lot of another part of this line at ${part.locationCode} (record its units on that part)`);
  const [slot, settings] = await Promise.all([
    tx
      .selectFrom('product_slots')
      .select(['quantity', sql<string | null>`to_char(expires_on, 'YYYY-MM-DD')`.as('expires_on')])
      .select(
        sql<string>`(SELECT coalesce(sum(r.picked), 0) FROM (${recordedPicks(tenantId, { locationCode: part.locationCode, productExternalId: part.productExternalId, lot: pickedLot })}) AS r)`.as('recorded'),
      )
      .where('tenant_id', '=', tenantId)
      .where('product_id', '=', part.productId)
      .where('location_code', '=', part.locationCode)
      .where('lot', '=', pickedLot)
      .executeTakeFirst(),
    readSettings(tx, tenantId),
  ]);
  if (!slot) throw refuse(`is not a lot of the product at ${part.locationCode}`);
  const expiresOn = slot.expires_on;
  const why = lotInPlaceProblem(part, expiresOn, firstDayNow(settings));
  if (why) throw refuse(why);
  const free = Number(slot.quantity) - Number(slot.recorded);
  if (free < quantity) throw refuse(`holds ${Math.max(free, 0)} units at ${part.locationCode} not yet picked, fewer than ${quantity}`);
  return expiresOn;
}
