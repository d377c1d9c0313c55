import { fefoNeeds, firstTakeableDay, isTakeable } from '../src/floor/plan/fefo';
import type { ItemNeed, Location } from '../src/floor/plan/items';
import { mulberry32 } from '../src/floor/plan/random';

/*
 * Lots and expiry dates for the benchmark's scattered instances, so that routes for items can be
 * measured under first expiry, first out on the same floors and orders as without lots.
 */

/** The day the lots are dated from, and the warehouse's minShelfLifeDays, for every instance. */
export const LOT_TODAY = '2026-12-07';
export const LOT_MIN_SHELF_LIFE_DAYS = 14;

/** Days after LOT_TODAY an article's lots in date expire on: three dates, so several slots share one. */
const SHELF_DATES = [30, 60, 120];

const dayAfter = (days: number) => {
  const day = new Date(`${LOT_TODAY}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
};

/**
 * The needs with a lot at every slot, drawn from `seed`: a tenth of the slots hold a lot already
 * expired, a tenth one expiring within LOT_MIN_SHELF_LIFE_DAYS, a twentieth one without a date,
 * and the rest one of three dates per article (each date one lot, so its slots share it).
 */
export function withLots(needs: readonly ItemNeed<Location>[], seed: number): ItemNeed<Location>[] {
  const next = mulberry32(seed);
  return needs.map((need) => ({ ...need, slots: need.slots.map((slot) => ({ ...slot, place: { ...slot.place, ...lotOf(need.item, next) } })) }));
}

/** One slot's lot of `item`, named by its expiry date's offset from LOT_TODAY. */
function lotOf(item: string, next: () => number): { lot: string; expiresOn: string | undefined } {
  const draw = next();
  const days =
    draw < 0.1
      ? -1 - Math.floor(next() * 30)
      : draw < 0.2
        ? Math.floor(next() * LOT_MIN_SHELF_LIFE_DAYS)
        : draw < 0.25
          ? undefined
          : SHELF_DATES[Math.floor(next() * SHELF_DATES.length)]!;
  return days === undefined ? { lot: `${item}/undated`, expiresOn: undefined } : { lot: `${item}/${days}`, expiresOn: dayAfter(days) };
}

/**
 * What routeItems is given for needs whose slots hold lots, as a route for items makes it: the
 * slots not takeable under LOT_MIN_SHELF_LIFE_DAYS left out, then one need per expiry date a need
 * reaches (fefoNeeds), and what the takeable slots cannot cover as a need without slots (short).
 */
export function fefoItemNeeds(needs: readonly ItemNeed<Location>[]): ItemNeed<Location>[] {
  const firstDay = firstTakeableDay(new Date(`${LOT_TODAY}T00:00:00Z`), LOT_MIN_SHELF_LIFE_DAYS);
  return needs.flatMap((need) => {
    const { needs: dated, left } = fefoNeeds(need.quantity, need.slots.filter((slot) => isTakeable(slot, firstDay)));
    const byDate = dated.map(({ quantity, slots }, date) => ({ item: `${need.item}@${date}`, quantity, slots }));
    return left > 0 ? [...byDate, { item: `${need.item}@short`, quantity: left, slots: [] }] : byDate;
  });
}
