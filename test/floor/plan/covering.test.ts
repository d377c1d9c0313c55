import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Place } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import type { CollectingFloor } from '../../../src/floor/plan/walks/collecting';
import { prepareCovering, shortestCoveringTour } from '../../../src/floor/plan/walks/covering';
import { collectingFloorOf, collectingInstances, collectingToursOf } from './arbitraries';

/** Every set of places (as bits) that holds every demand and the required places. */
function coveringSets({ places, stock, demand, required }: { places: Place[]; stock: { item: number; units: number }[][]; demand: number[]; required: Uint8Array }): number[] {
  const sets: number[] = [];
  for (let subset = 0; subset < 1 << places.length; subset++) {
    if (required.some((flag, place) => flag && !(subset & (1 << place)))) continue;
    const held = new Array<number>(demand.length).fill(0);
    stock.forEach((here, place) => subset & (1 << place) && here.forEach(({ item, units }) => (held[item]! += units)));
    if (demand.every((want, item) => held[item]! >= want)) sets.push(subset);
  }
  return sets;
}

/** The subaisles (aisle-major, then block) every covering set has a place in. */
function subaislesEveryCoverEnters(floor: CollectingFloor, sets: readonly number[]): Uint8Array {
  const subaisles = floor.candidates.flat();
  return Uint8Array.from(subaisles, (places) => (sets.length > 0 && sets.every((subset) => places.some((place) => subset & (1 << place))) ? 1 : 0));
}

describe('the covering program (property)', () => {
  it('finds the shortest walk that covers every demand when one is shorter than the length given, and proves none is when the length is that walk', () => {
    fc.assert(
      fc.property(collectingInstances, fc.boolean(), (instance, numberAsMet) => {
        const { layout, places, stock, demand, prices, required } = instance;
        const sets = coveringSets(instance);
        const walk = (subset: number) => {
          const chosen = places.filter((_, place) => subset & (1 << place));
          return chosen.length === 0 ? 0 : shortestRouteLength(layout, chosen);
        };
        const shortest = Math.min(...sets.map(walk));
        const floor = collectingFloorOf(layout, places);
        // The values to go may ask for the subaisles every cover walks into: the program stays exact.
        const { byBoundary } = collectingToursOf(instance).toGo(prices, required, subaislesEveryCoverEnters(floor, sets));
        // Combinations numbered in advance, or as they are met (as where they are too many to number): the same answers.
        const prepared = prepareCovering({ floor, stock, demand, required }, numberAsMet)!;
        // Values to go that cover the tracked items exactly (a price above any walk) bound the labels too.
        const coveredTable = (items: number[]) => {
          const above = Float64Array.from(prices, (price, item) => (items.includes(item) ? 1_000 : price));
          return collectingToursOf(instance).trackedToGo(above, items, required, { counted: prices })!;
        };
        const tracked = coveredTable(instance.tracked);
        // A second table over the other items: the largest of the bounds prunes.
        const otherTracked = coveredTable(demand.map((_, item) => item).filter((item) => !instance.tracked.includes(item)));
        for (const covered of [[], [tracked], [tracked, otherTracked]]) {
          const cover = (limit: number) => shortestCoveringTour(prepared, prices, byBoundary, { limit, budget: Infinity, tracked: covered });
          expect(cover(shortest - 1e-9)).toMatchObject({ found: false, proven: true });
          if (shortest === Infinity) continue;
          const found = cover(shortest + 1e-6);
          expect(found.found).toBe(true);
          if (!found.found) continue;
          expect(found.length).toBeCloseTo(shortest, 9);
          const walked = found.places.map((place) => places[place]!);
          expect(walked.length === 0 ? 0 : shortestRouteLength(layout, walked)).toBeCloseTo(shortest, 9);
        }
      }),
      { numRuns: 400 },
    );
  });
});
