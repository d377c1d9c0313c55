import type { ItemSlot, Location } from './items';

/*
 * First expiry, first out. A line of a product kept by lot takes the lots that expire first: its
 * slots are grouped by their lot's expiry date, earliest first (slots whose lot has no date, and
 * slots without a lot, after every dated one), and each date's slots are taken whole before the
 * next date's are touched; among the slots of the last date it needs, the route chooses freely. A
 * lot that expires before the first day a line may take (firstTakeableDay) is never taken.
 */

/**
 * Whether a product is kept by lot: whether any of its slots holds a lot (only a lot-tracked
 * product's slots may: slots.ts refuses a lot on any other).
 */
export function isLotTracked(slots: readonly ItemSlot<Location>[]): boolean {
  return slots.some((slot) => slot.place.lot !== undefined);
}

/** The first expiry date (YYYY-MM-DD) a line may take: today, UTC, plus the warehouse's minShelfLifeDays. */
export function firstTakeableDay(now: Date, minShelfLifeDays: number): string {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + minShelfLifeDays));
  return day.toISOString().slice(0, 10);
}

/** Where a lot without expiry sorts among expiry dates: '~' sorts after every digit, so after every date. */
const UNDATED = '~';

/** The first expiry date a line may take now, under the warehouse's minShelfLifeDays (firstTakeableDay). */
export const firstDayNow = (settings: { minShelfLifeDays: number }) => firstTakeableDay(new Date(), settings.minShelfLifeDays);

/** A first day that lets every lot be taken: for reads that only look where units stand, not what a line may take. */
export const EVERY_LOT = '0000-01-01';

/** Whether a slot may be taken from: its lot, when dated, expires on `firstDay` or later. */
export function isTakeable(slot: ItemSlot<Location>, firstDay: string): boolean {
  return slot.place.expiresOn === undefined || slot.place.expiresOn >= firstDay;
}

/** How a lot is named to people, on the floor and in the console: "lot L-0425 (expires 2027-03-11)". */
export const lotText = (lot: string, expiresOn: string | null) => `lot ${lot} (${expiresOn === null ? 'no expiry' : `expires ${expiresOn}`})`;

/**
 * Why a lot expiring on `expiresOn` (null: no expiry) may not be taken in place of `expected`, the
 * lot a stop names, as far as expiry decides: it expires after it (a lot without expiry comes after
 * every dated one), or before `firstDay`, the first a line may take. Null when its expiry allows it.
 */
export function lotInPlaceProblem(expected: { lot: string; expiresOn: string | null }, expiresOn: string | null, firstDay: string): string | null {
  if ((expiresOn ?? UNDATED) > (expected.expiresOn ?? UNDATED)) return `${expiresOn === null ? 'has no expiry' : `expires ${expiresOn}`}, after ${expected.lot}`;
  if (expiresOn !== null && expiresOn < firstDay) return `expires ${expiresOn}, before ${firstDay}, the first expiry a line may take`;
  return null;
}

/** What a line takes of one expiry date: `quantity` units among `slots`. */
export interface ExpiryNeed<L extends Location> {
  quantity: number;
  slots: ItemSlot<L>[];
}

/**
 * The needs that take `quantity` units from `slots` first expiry, first out: one per expiry date
 * the line reaches, earliest first, each but the last taking all its slots hold. `left` is what the
 * slots cannot cover. A product not kept by lot has one need over all its slots, as any product.
 * The slots are taken as given: leave out those not takeable (isTakeable) first.
 */
export function fefoNeeds<L extends Location>(quantity: number, slots: readonly ItemSlot<L>[]): { needs: ExpiryNeed<L>[]; left: number } {
  const holding = slots.filter((slot) => slot.quantity > 0);
  if (!isLotTracked(holding)) {
    const held = holding.reduce((sum, slot) => sum + slot.quantity, 0);
    const taken = Math.min(quantity, held);
    return { needs: taken > 0 ? [{ quantity: taken, slots: holding }] : [], left: quantity - taken };
  }
  const byDate = new Map<string, ItemSlot<L>[]>();
  for (const slot of holding) {
    const date = slot.place.expiresOn ?? UNDATED;
    byDate.set(date, [...(byDate.get(date) ?? []), slot]);
  }
  const needs: ExpiryNeed<L>[] = [];
  let left = quantity;
  for (const date of [...byDate.keys()].sort()) {
    if (left <= 0) break;
    const dated = byDate.get(date)!;
    const take = Math.min(left, dated.reduce((sum, slot) => sum + slot.quantity, 0));
    needs.push({ quantity: take, slots: dated });
    left -= take;
  }
  return { needs, left };
}

/**
 * First expiry, first out at the pick faces, then in the reserve for what the faces cannot cover
 * (pass none without pickFromReserve): the faces' needs, then the reserve's, and what neither holds.
 */
export function faceThenReserveNeeds<L extends Location>(
  quantity: number,
  faces: readonly ItemSlot<L>[],
  reserve: readonly ItemSlot<L>[],
): { needs: ExpiryNeed<L>[]; left: number } {
  const fromFaces = fefoNeeds(quantity, faces);
  const fromReserve = fefoNeeds(fromFaces.left, reserve);
  return { needs: [...fromFaces.needs, ...fromReserve.needs], left: fromReserve.left };
}
