import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { faceThenReserveNeeds, fefoNeeds, firstTakeableDay, isTakeable, lotInPlaceProblem } from '../../../src/floor/plan/fefo';
import { routeItems, type ItemNeed, type ItemSlot, type Location } from '../../../src/floor/plan/items';
import { placesOfLine } from '../../../src/floor/plan/line-places';
import type { Layout } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

const FIRST_DAY = '2027-03-10';
const DATES = ['2027-03-01', '2027-03-09', '2027-03-10', '2027-04-01', '2027-05-01', undefined];
const close = (actual: number, expected: number) => Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
const slotKey = (place: Location) => `${place.code}/${place.lot ?? ''}`;
const dateOf = (slot: ItemSlot<Location>) => slot.place.expiresOn ?? '~';

/** Up to two products, each with up to five slots of lots (several at a location, some expired or too short), on a small floor. */
const instances: fc.Arbitrary<{ layout: Layout; products: { quantity: number; slots: ItemSlot<Location>[] }[] }> = layoutArbitrary({
  aisles: 5,
  positions: { min: 2, max: 8 },
}).chain((layout) => {
  const slot = fc.record({ place: placeArbitrary(layout), date: fc.constantFrom(...DATES), quantity: fc.integer({ min: 0, max: 3 }) });
  const product = fc.record({ quantity: fc.integer({ min: 1, max: 6 }), slots: fc.array(slot, { minLength: 1, maxLength: 5 }) });
  return fc.array(product, { minLength: 1, maxLength: 2 }).map((products) => ({
    layout,
    products: products.map(({ quantity, slots }) => ({
      quantity,
      slots: slots.map(({ place, date, quantity: units }, index) => ({
        place: { ...place, code: `${place.aisle}-${place.position}`, lot: `L${index}`, expiresOn: date },
        quantity: units,
      })),
    })),
  }));
});

/** The route as the service plans it: takeable slots only, split into needs by expiry, routed together. */
function fefoRoute(layout: Layout, products: { quantity: number; slots: ItemSlot<Location>[] }[]) {
  const needs: ItemNeed<Location>[] = [];
  const productOf: number[] = [];
  products.forEach(({ quantity, slots }, product) => {
    for (const need of fefoNeeds(quantity, slots.filter((slot) => isTakeable(slot, FIRST_DAY))).needs) {
      needs.push({ item: String(needs.length), ...need });
      productOf.push(product);
    }
  });
  const route = routeItems(layout, needs, 'optimal');
  // Units taken per product and slot (location and lot).
  const taken = products.map(() => new Map<string, number>());
  for (const stop of route.stops) {
    for (const pick of stop.picks) {
      const map = taken[productOf[Number(pick.item)]!]!;
      map.set(slotKey(stop.place), (map.get(slotKey(stop.place)) ?? 0) + pick.quantity);
    }
  }
  return { route, taken };
}

/**
 * The shortest walk over every choice of slots first expiry, first out allows, by trying every
 * subset: each product's eligible slots of dates before the date its quantity reaches all taken,
 * and enough units up to that date.
 */
function bruteForce(layout: Layout, products: { quantity: number; slots: ItemSlot<Location>[] }[]): number {
  const all = products.flatMap(({ slots }, product) => slots.filter((slot) => slot.quantity > 0 && isTakeable(slot, FIRST_DAY)).map((slot) => ({ product, slot })));
  const reach = products.map(({ quantity, slots }) => {
    const eligible = slots.filter((slot) => slot.quantity > 0 && isTakeable(slot, FIRST_DAY));
    const dates = [...new Set(eligible.map(dateOf))].sort();
    let held = 0;
    for (const date of dates) {
      held += eligible.filter((slot) => dateOf(slot) === date).reduce((sum, slot) => sum + slot.quantity, 0);
      if (held >= quantity) return { date, wanted: quantity };
    }
    return { date: '~~', wanted: held };
  });
  let best = Infinity;
  for (let subset = 0; subset < 1 << all.length; subset++) {
    const chosen = all.filter((_, i) => subset & (1 << i));
    const allowed = products.every((_, product) => {
      const { date, wanted } = reach[product]!;
      const mine = all.filter((entry) => entry.product === product);
      const earlierAll = mine.every(({ slot }) => dateOf(slot) >= date || chosen.some((entry) => entry.slot === slot));
      const units = chosen.filter((entry) => entry.product === product && dateOf(entry.slot) <= date).reduce((sum, entry) => sum + entry.slot.quantity, 0);
      return earlierAll && units >= wanted;
    });
    if (allowed) best = Math.min(best, shortestRouteLength(layout, chosen.map(({ slot }) => slot.place)));
  }
  return best;
}

describe('first expiry, first out (property)', () => {
  it('never takes an expired lot, nor one expiring before the first day a line may take', () => {
    fc.assert(
      fc.property(instances, ({ layout, products }) => {
        const { taken } = fefoRoute(layout, products);
        products.forEach(({ slots }, product) => {
          for (const slot of slots) if (!isTakeable(slot, FIRST_DAY)) expect(taken[product]!.get(slotKey(slot.place)) ?? 0).toBe(0);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('takes no lot while an eligible lot that expires earlier stands unused, and takes what the eligible lots hold', () => {
    fc.assert(
      fc.property(instances, ({ layout, products }) => {
        const { taken } = fefoRoute(layout, products);
        products.forEach(({ quantity, slots }, product) => {
          const eligible = slots.filter((slot) => slot.quantity > 0 && isTakeable(slot, FIRST_DAY));
          const units = (slot: ItemSlot<Location>) => taken[product]!.get(slotKey(slot.place)) ?? 0;
          for (const used of eligible.filter((slot) => units(slot) > 0)) {
            for (const earlier of eligible.filter((slot) => dateOf(slot) < dateOf(used))) expect(units(earlier), `${earlier.place.lot} before ${used.place.lot}`).toBe(earlier.quantity);
          }
          const total = [...taken[product]!.values()].reduce((sum, value) => sum + value, 0);
          expect(total).toBe(Math.min(quantity, eligible.reduce((sum, slot) => sum + slot.quantity, 0)));
        });
      }),
      { numRuns: 300 },
    );
  });

  it("is the shortest walk over the slots first expiry, first out allows when it says exact (brute force on small floors)", () => {
    fc.assert(
      fc.property(instances, ({ layout, products }) => {
        const { route } = fefoRoute(layout, products);
        const shortest = bruteForce(layout, products);
        if (route.stops.length === 0) expect(shortest).toBe(0);
        else expect(route.distance).toBeGreaterThanOrEqual(shortest - 1e-9);
        expect(route.exact).toBe(true);
        expect(close(route.distance, shortest), `route ${route.distance}, brute force ${shortest}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('counts the first day a line may take from today, UTC, and the minimum shelf life', () => {
    expect(firstTakeableDay(new Date('2027-03-10T23:30:00-05:00'), 0)).toBe('2027-03-11');
    expect(firstTakeableDay(new Date('2027-02-20T10:00:00Z'), 10)).toBe('2027-03-02');
  });

  it('leaves a product without lots one need over all its slots', () => {
    const place = (code: string) => ({ code, aisle: 1, position: 1 });
    const slots = [{ place: place('A'), quantity: 2 }, { place: place('B'), quantity: 3 }];
    expect(fefoNeeds(4, slots)).toEqual({ needs: [{ quantity: 4, slots }], left: 0 });
    expect(fefoNeeds(9, slots)).toEqual({ needs: [{ quantity: 5, slots }], left: 4 });
  });

  it('takes the faces first expiry first, and the reserve only for what the faces cannot cover, even when its lot expires sooner', () => {
    const lot = (code: string, expiresOn: string) => ({ place: { code, aisle: 1, position: 1, lot: code, expiresOn }, quantity: 2 });
    const [soon, late] = [lot('FACE-SOON', '2027-03-12'), lot('FACE-LATE', '2027-04-01')];
    const reserve = lot('RESERVE-SOONEST', '2027-03-11');
    expect(faceThenReserveNeeds(3, [late, soon], [reserve])).toEqual({ needs: [{ quantity: 2, slots: [soon] }, { quantity: 1, slots: [late] }], left: 0 });
    expect(faceThenReserveNeeds(5, [late, soon], [reserve])).toEqual({
      needs: [{ quantity: 2, slots: [soon] }, { quantity: 2, slots: [late] }, { quantity: 1, slots: [reserve] }],
      left: 0,
    });
    expect(faceThenReserveNeeds(7, [soon], [reserve])).toEqual({ needs: [{ quantity: 2, slots: [soon] }, { quantity: 2, slots: [reserve] }], left: 3 });
  });

  it("places a line where first expiry, first out takes it, for the plan of carts: each date's slots nearest the depot", () => {
    const layout: Layout = { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1, crossAisles: [] };
    const at = (aisle: number, position: number, lot: string, expiresOn: string, quantity: number) => ({ place: { code: `${aisle}-${position}`, aisle, position, lot, expiresOn }, quantity });
    const slots = [at(1, 1, 'LATE', '2027-05-01', 9), at(4, 9, 'SOON', '2027-03-12', 2), at(3, 2, 'NEXT', '2027-04-01', 5), at(2, 8, 'NEXT-FAR', '2027-04-01', 5)];
    const own = { aisle: 1, position: 10 };
    expect(placesOfLine(layout, 4, slots, own)).toEqual([{ aisle: 4, position: 9 }, { aisle: 3, position: 2 }]);
    expect(placesOfLine(layout, 25, slots, own)).toEqual([{ aisle: 4, position: 9 }, { aisle: 3, position: 2 }, { aisle: 2, position: 8 }, { aisle: 1, position: 1 }, own]);
  });

  it('lets a lot stand in for the stop\'s when it expires no later and may be taken, a dated lot for an undated one', () => {
    const expected = { lot: 'L-0425', expiresOn: '2027-03-12' };
    expect(lotInPlaceProblem(expected, '2027-03-12', FIRST_DAY)).toBeNull();
    expect(lotInPlaceProblem(expected, '2027-03-11', FIRST_DAY)).toBeNull();
    expect(lotInPlaceProblem(expected, '2027-03-13', FIRST_DAY)).toBe('expires 2027-03-13, after L-0425');
    expect(lotInPlaceProblem(expected, null, FIRST_DAY)).toBe('has no expiry, after L-0425');
    expect(lotInPlaceProblem(expected, '2027-03-09', FIRST_DAY)).toBe('expires 2027-03-09, before 2027-03-10, the first expiry a line may take');
    expect(lotInPlaceProblem({ lot: 'U', expiresOn: null }, '2027-04-01', FIRST_DAY)).toBeNull();
    expect(lotInPlaceProblem({ lot: 'U', expiresOn: null }, null, FIRST_DAY)).toBeNull();
  });
});
