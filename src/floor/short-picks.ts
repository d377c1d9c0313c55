import { sql } from 'kysely';
import type { Executor, Tx } from '../db';
import { readSettings } from '../settings/store';
import { findLayout } from './layout-store';
import type { Location } from './plan/items';
import { placeMissingUnits } from './plan/short-stops';
import { askForCounts } from './counts';
import { askForDemand } from './replenishment';
import { fefoNeeds, firstDayNow } from './plan/fefo';
import { facesOf, freeSlots, recordedPicks, reserveOf } from './slots';

/*
 * Short picks find the stock. A pick recorded below what its part planned says the slot held
 * fewer good units than the books:
 *
 * - The slot is lowered to what was found: the units recorded as picked there by the PICKING waves
 *   (their orders still in picking), this pick's among them. Those are taken off when their waves
 *   complete, so the slot stands at 0 once they all have, as the shelf does. The lowering is the
 *   shortfall as the pick found the books, read before anything is locked (slotShortfall), taken
 *   off the slot as it stands once the product's row is locked, never below the picks recorded
 *   there: units a replenishment moved onto the face meanwhile are kept, and two short picks at one
 *   slot at once end where either alone would. A pick face left with nothing beyond its recorded
 *   picks asks for a SHORT replenishment, first in line (askForDemand).
 * - The units still missing are planned again, as new parts of the same line covering the short
 *   part (`covers_part`): at the pick faces holding them free (net of the PICKING waves), then, with
 *   the warehouse's pickFromReserve, at its reserve slots, never at a slot the line already has a
 *   part at; lots first expiry, first out (each expiry date's slots before the next date's). Each new stop goes on the rest of the wave (after the last stop with a pick recorded)
 *   where it lengthens the walk least (placeMissingUnits); the stops already there keep their order.
 *   What no slot holds stays missing: the line is picked short when the wave completes.
 * - Recording the part again (a correction) first drops its covering parts with no pick recorded,
 *   then plans what is still missing; covering parts already picked stay, and a correction cannot
 *   count their units twice (recordPick refuses more).
 *
 * Everything runs in the pick's transaction, under the wave's share lock, then the product's row
 * lock (the first lock of the documented order, orders/store.ts), which serializes short picks of
 * one product with each other, with wave completions and with replenishments: a second short pick
 * reads the free units after the first's new parts. Cheapest insertion measures stops × slots walks
 * between two places, each a few additions: small enough for the request, where re-routing the rest
 * of the wave would be a search for the planner.
 */

/** A part of a wave line as a pick records it. */
export interface PickedPart {
  orderId: string;
  itemPosition: number;
  part: number;
  productId: string;
  productExternalId: string;
  locationCode: string | null;
  /** The lot of the part's slot, '' without one. */
  lot: string;
  /** What the part planned. */
  quantity: number;
}

/**
 * The units the PICKING waves recorded as picked at the part's slot (at `locationCode`) for their
 * orders still in picking, but the part itself when `butThePart`: a scalar subquery.
 */
function recordedAt(tenantId: string, waveId: string, part: PickedPart, locationCode: string, butThePart = false) {
  const at = { locationCode, productExternalId: part.productExternalId, lot: part.lot };
  return sql<string>`(SELECT coalesce(sum(r.picked), 0) FROM (${recordedPicks(tenantId, at, butThePart ? { ...part, waveId } : undefined)}) AS r)`;
}

/**
 * How many units the books hold at the part's slot beyond what was found there, with `picked` now
 * recorded at the part; undefined when the product has no slot at the part's location. Read before
 * any lock: the books as the short pick found them.
 */
export async function slotShortfall(db: Executor, tenantId: string, waveId: string, part: PickedPart, picked: number): Promise<number | undefined> {
  if (part.locationCode === null) return undefined;
  const { rows } = await sql<{ shortfall: string }>`
    SELECT s.quantity - ${recordedAt(tenantId, waveId, part, part.locationCode, true)} - ${picked}::numeric AS shortfall
    FROM product_slots s
    WHERE s.tenant_id = ${tenantId} AND s.product_id = ${part.productId} AND s.location_code = ${part.locationCode} AND s.lot = ${part.lot}`.execute(db);
  return rows[0] ? Math.max(Number(rows[0].shortfall), 0) : undefined;
}

/**
 * What follows a pick recorded at a part that was short or had parts covering it, under the
 * product's row lock, the pick written: drops the covering parts with no pick, lowers the slot by
 * `shortfall` (slotShortfall; undefined: it is not lowered) and asks for a SHORT replenishment when
 * that leaves a pick face empty, then plans the units still missing (module comment).
 */
export async function settleShortPick(tx: Tx, tenantId: string, waveId: string, part: PickedPart, picked: number, shortfall: number | undefined): Promise<void> {
  await dropUnpickedCovers(tx, tenantId, waveId, part);
  if (shortfall !== undefined && part.locationCode !== null) {
    await askForCounts(tx, tenantId, [part.locationCode], 'SHORT_PICK');
    const { rows } = await sql<{ role: string; quantity: string; recorded: string }>`
      UPDATE product_slots s SET quantity = least(s.quantity, greatest(s.quantity - ${shortfall}::numeric, r.recorded))
      FROM (SELECT ${recordedAt(tenantId, waveId, part, part.locationCode)} AS recorded) AS r
      WHERE s.tenant_id = ${tenantId} AND s.product_id = ${part.productId} AND s.location_code = ${part.locationCode} AND s.lot = ${part.lot}
      RETURNING s.role, s.quantity, r.recorded`.execute(tx);
    const slot = rows[0];
    if (slot && slot.role === 'pick' && Number(slot.quantity) <= Number(slot.recorded)) {
      await askForDemand(tx, tenantId, [{ productId: part.productId, face: part.locationCode, units: part.quantity - picked }], 'SHORT');
    }
  }
  const { rows } = await sql<{ covered: string }>`
    SELECT coalesce(sum(quantity), 0) AS covered FROM wave_lines
    WHERE tenant_id = ${tenantId} AND wave_id = ${waveId} AND order_id = ${part.orderId} AND item_position = ${part.itemPosition} AND covers_part = ${part.part}`.execute(tx);
  const missing = part.quantity - picked - Number(rows[0]!.covered);
  if (missing > 0) await planMissing(tx, tenantId, waveId, part, missing);
}

/** Drops the parts covering `part` that have no pick recorded, closing the gaps they leave in the stops' numbers. */
async function dropUnpickedCovers(tx: Tx, tenantId: string, waveId: string, part: PickedPart): Promise<void> {
  const dropped = await tx
    .deleteFrom('wave_lines')
    .where('tenant_id', '=', tenantId)
    .where('wave_id', '=', waveId)
    .where('order_id', '=', part.orderId)
    .where('item_position', '=', part.itemPosition)
    .where('covers_part', '=', part.part)
    .where('picked_quantity', 'is', null)
    .returning('stop')
    .execute();
  if (dropped.length === 0) return;
  await sql`
    UPDATE wave_lines l SET stop = r.seq
    FROM (SELECT stop, (row_number() OVER (ORDER BY stop))::integer AS seq FROM wave_lines
          WHERE tenant_id = ${tenantId} AND wave_id = ${waveId} AND stop IS NOT NULL GROUP BY stop) AS r
    WHERE l.tenant_id = ${tenantId} AND l.wave_id = ${waveId} AND l.stop = r.stop AND r.seq <> r.stop`.execute(tx);
}

/** Plans `missing` units of the part's line at the slots holding them free, as new parts on the rest of the wave. */
async function planMissing(tx: Tx, tenantId: string, waveId: string, part: PickedPart, missing: number): Promise<void> {
  const [layout, slotsOf, settings] = await Promise.all([findLayout(tx, tenantId), freeSlots(tx, tenantId, [part.productId]), readSettings(tx, tenantId)]);
  const slots = slotsOf.get(part.productId);
  if (!layout || !slots) return;
  const { rows: stops } = await sql<{ stop: number; code: string; aisle: number; position: number; picked: boolean }>`
    SELECT stop, location_code AS code, aisle, position, bool_or(picked_quantity IS NOT NULL) AS picked FROM wave_lines
    WHERE tenant_id = ${tenantId} AND wave_id = ${waveId} AND stop IS NOT NULL
    GROUP BY stop, location_code, aisle, position ORDER BY stop`.execute(tx);
  const line = await tx
    .selectFrom('wave_lines')
    .select(['part', 'location_code', 'lot'])
    .where('tenant_id', '=', tenantId)
    .where('wave_id', '=', waveId)
    .where('order_id', '=', part.orderId)
    .where('item_position', '=', part.itemPosition)
    .execute();
  const partAt = new Set(line.map((row) => `${row.location_code}/${row.lot}`));
  const firstDay = firstDayNow(settings);
  // Each expiry date's slots a tier of their own, the faces' before the reserve's.
  const byExpiry = (list: ReturnType<typeof facesOf>) => fefoNeeds(missing, list.filter((slot) => !partAt.has(`${slot.place.code}/${slot.place.lot ?? ''}`))).needs.map((need) => need.slots);
  const tiers = [...byExpiry(facesOf(slots, firstDay)), ...(settings.pickFromReserve ? byExpiry(reserveOf(slots, firstDay)) : [])];
  // The picker walks on from the last stop with a pick recorded (the depot before any).
  const last = stops.findLastIndex((stop) => stop.picked);
  const from = stops[last];
  const rest = stops.slice(last + 1);
  const route = rest.map((stop) => stop.stop);
  let number = Math.max(...line.map((row) => row.part));
  for (const placed of placeMissingUnits(layout, from, rest, tiers, missing)) {
    const stop = placed.joins ? route[placed.at]! : (placed.at === 0 ? (from?.stop ?? 0) : route[placed.at - 1]!) + 1;
    await insertPart(tx, tenantId, waveId, part, { ...placed, part: ++number, stop });
    // The stops from the new one on move one on.
    if (!placed.joins) route.splice(placed.at, route.length - placed.at, stop, ...route.slice(placed.at).map((seq) => seq + 1));
  }
}

/**
 * Inserts a part covering `covered` into the wave's walk: as the last line of stop `stop` when it
 * `joins` it, else as a new stop numbered `stop`, the stops from there on moving one on. One
 * statement: the lines after it move one on in the walk, and the new line takes the place freed.
 */
async function insertPart(
  tx: Tx,
  tenantId: string,
  waveId: string,
  covered: PickedPart,
  placed: { slot: Location; quantity: number; joins: boolean; part: number; stop: number },
): Promise<void> {
  const { slot, quantity, joins, part, stop } = placed;
  await sql`
    WITH last AS (
      SELECT coalesce(max(walk), -1) AS walk FROM wave_lines WHERE tenant_id = ${tenantId} AND wave_id = ${waveId} AND stop = ${joins ? stop : stop - 1}
    ), moved AS (
      UPDATE wave_lines l SET walk = l.walk + 1, stop = CASE WHEN ${!joins} AND l.stop >= ${stop} THEN l.stop + 1 ELSE l.stop END
      FROM last WHERE l.tenant_id = ${tenantId} AND l.wave_id = ${waveId} AND l.walk > last.walk
    )
    INSERT INTO wave_lines (tenant_id, wave_id, order_id, item_position, part, covers_part, product_external_id, quantity, walk, stop, location_code, lot, expires_on, aisle, position)
    SELECT ${tenantId}, ${waveId}, ${covered.orderId}, ${covered.itemPosition}, ${part}, ${covered.part}, ${covered.productExternalId}, ${quantity}::numeric,
      last.walk + 1, ${stop}::integer, ${slot.code}, ${slot.lot ?? ''}, ${slot.expiresOn ?? null}::date, ${slot.aisle}::integer, ${slot.position}::integer
    FROM last`.execute(tx);
}
