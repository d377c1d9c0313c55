import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backY, middleCrossAisleYs, positionY, type Layout, type Place } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { CollectingTours } from '../../../src/floor/plan/walks/collecting';

/** A small floor of one or two blocks, places holding units of up to four items, prices, and places required or forbidden. */
const instances = fc
  .record({
    aisles: fc.integer({ min: 1, max: 5 }),
    half: fc.integer({ min: 2, max: 5 }),
    aisleSpacing: fc.constantFrom(1, 2.5, 3),
    crossAisleOffset: fc.constantFrom(0, 1, 1.5),
    depotAisle: fc.integer({ min: 1, max: 5 }),
    twoBlocks: fc.boolean(),
    demand: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 }),
    seeds: fc.array(fc.record({ aisle: fc.nat(), position: fc.nat(), item: fc.nat(), units: fc.integer({ min: 1, max: 3 }), required: fc.nat(9), forbidden: fc.nat(9) }), { minLength: 1, maxLength: 9 }),
    prices: fc.array(fc.double({ min: 0, max: 30, noNaN: true }), { minLength: 4, maxLength: 4 }),
    tracked: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  })
  .map(({ half, twoBlocks, demand, seeds, prices, tracked, ...rest }) => {
    const layout: Layout = { ...rest, depotAisle: Math.min(rest.depotAisle, rest.aisles), positionsPerAisle: 2 * half, positionSpacing: 1, crossAisles: twoBlocks ? [{ afterPosition: half, width: 1 }] : [] };
    const places: Place[] = [];
    const stock: { item: number; units: number }[][] = [];
    const required: number[] = [];
    const forbidden: number[] = [];
    for (const seed of seeds) {
      const place = { aisle: 1 + (seed.aisle % layout.aisles), position: 1 + (seed.position % layout.positionsPerAisle) };
      if (places.some((other) => other.aisle === place.aisle && other.position === place.position)) continue;
      const item = seed.item % demand.length;
      places.push(place);
      stock.push([{ item, units: Math.min(seed.units, demand[item]!) }]);
      required.push(seed.required === 0 ? 1 : 0);
      forbidden.push(seed.required !== 0 && seed.forbidden === 0 ? 1 : 0);
    }
    return { layout, places, stock, demand, prices: Float64Array.from(demand, (_, item) => prices[item]!), tracked: demand.flatMap((_, item) => (tracked[item] ? [item] : [])), required: Uint8Array.from(required), forbidden: Uint8Array.from(forbidden) };
  });

function toursOf({ layout, places, stock, demand }: { layout: Layout; places: Place[]; stock: { item: number; units: number }[][]; demand: number[] }): CollectingTours {
  const crossYs = [0, ...middleCrossAisleYs(layout), backY(layout)];
  const candidates = Array.from({ length: layout.aisles }, () => crossYs.slice(1).map((): number[] => []));
  const ys = places.map((place) => positionY(layout, place.position));
  for (const index of places.map((_, i) => i).sort((a, b) => ys[a]! - ys[b]!)) {
    let block = 0;
    while (ys[index]! > crossYs[block + 1]!) block++;
    candidates[places[index]!.aisle - 1]![block]!.push(index);
  }
  return new CollectingTours({ aisles: layout.aisles, depotAisle: layout.depotAisle, crossYs, spacing: layout.aisleSpacing, ys, candidates }, { stock, demand });
}

/** The least, over every set of places holding the required ones, of the shortest walk through them less the price of the units they hold (at most each demand; nothing at a forbidden place). */
function leastOverEverySet({ layout, places, stock, demand, prices, required, forbidden }: { layout: Layout; places: Place[]; stock: { item: number; units: number }[][]; demand: number[]; prices: Float64Array; required: Uint8Array; forbidden: Uint8Array }): number {
  let least = Infinity;
  for (let subset = 0; subset < 1 << places.length; subset++) {
    if (required.some((flag, place) => flag && !(subset & (1 << place)))) continue;
    const held = new Array<number>(demand.length).fill(0);
    const chosen = places.filter((_, place) => subset & (1 << place));
    stock.forEach((here, place) => subset & (1 << place) && !forbidden[place] && here.forEach(({ item, units }) => (held[item]! += units)));
    const length = chosen.length === 0 ? 0 : shortestRouteLength(layout, chosen);
    least = Math.min(least, length - demand.reduce((sum, want, item) => sum + prices[item]! * Math.min(want, held[item]!), 0));
  }
  return least;
}

describe('collecting tours that track items (property)', () => {
  it('tracking every item gives the least, over every set of places, of its walk less what it holds; tracking fewer never gives more', () => {
    fc.assert(
      fc.property(instances, (instance) => {
        const tours = toursOf(instance);
        const { prices, required, forbidden, demand, tracked } = instance;
        const least = leastOverEverySet(instance);
        const every = tours.tour(prices, required, forbidden, undefined, Infinity, demand.map((_, item) => item))!;
        const some = tours.tour(prices, required, forbidden, undefined, Infinity, tracked)!;
        const none = tours.tour(prices, required, forbidden)!;
        expect(every.value).toBeCloseTo(least, 9);
        expect(some.value).toBeLessThanOrEqual(every.value + 1e-9);
        expect(none.value).toBeLessThanOrEqual(some.value + 1e-9);
      }),
      { numRuns: 400 },
    );
  });
});
