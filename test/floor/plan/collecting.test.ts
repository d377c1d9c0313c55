import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Layout, Place } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { EMPTY } from '../../../src/floor/plan/walks/optimal';
import { collectingInstances, collectingToursOf } from './arbitraries';

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
      fc.property(collectingInstances, (instance) => {
        const tours = collectingToursOf(instance);
        const { prices, required, forbidden, demand, tracked } = instance;
        const least = leastOverEverySet(instance);
        const every = tours.tour(prices, required, { forbidden, tracked: demand.map((_, item) => item) })!;
        const some = tours.tour(prices, required, { forbidden, tracked })!;
        const none = tours.tour(prices, required, { forbidden })!;
        expect(every.value).toBeCloseTo(least, 9);
        expect(some.value).toBeLessThanOrEqual(every.value + 1e-9);
        expect(none.value).toBeLessThanOrEqual(some.value + 1e-9);
      }),
      { numRuns: 400 },
    );
  });

  it('values to go that track items agree with the tracked tour at the start, and with the tour that pays for the other items alone once every tracked unit is taken', () => {
    fc.assert(
      fc.property(collectingInstances, (instance) => {
        const tours = collectingToursOf(instance);
        const { prices, required, demand, tracked } = instance;
        const toGo = tours.trackedToGo(prices, tracked, required)!;
        const tour = tours.tour(prices, required, { tracked })!;
        // Staying at the depot is a tour too where nothing is required.
        const stay = required.some((flag) => flag) ? Infinity : 0;
        expect(Math.min(stay, toGo.byBoundary[0]![EMPTY * toGo.total]!)).toBeCloseTo(tour.value, 9);
        // With every tracked unit already taken, the rest is the tour that pays for the others alone.
        const taken = tracked.reduce((code, item, j) => code + demand[item]! * toGo.radix[j]!, 0);
        const untracked = Float64Array.from(prices, (price, item) => (tracked.includes(item) ? 0 : price));
        const rest = tours.tour(untracked, required)!;
        expect(Math.min(stay, toGo.byBoundary[0]![EMPTY * toGo.total + taken]!)).toBeCloseTo(rest.value, 9);
      }),
      { numRuns: 400 },
    );
  });
});
