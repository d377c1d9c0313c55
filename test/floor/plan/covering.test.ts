import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Layout, Place } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { shortestCoveringTour } from '../../../src/floor/plan/walks/covering';
import { collectingFloorOf, collectingInstances, collectingToursOf } from './arbitraries';

/** The shortest walk through a set of places that holds every demand and the required places, by trying every set. */
function shortestCover({ layout, places, stock, demand, required }: { layout: Layout; places: Place[]; stock: { item: number; units: number }[][]; demand: number[]; required: Uint8Array }): number {
  let shortest = Infinity;
  for (let subset = 0; subset < 1 << places.length; subset++) {
    if (required.some((flag, place) => flag && !(subset & (1 << place)))) continue;
    const held = new Array<number>(demand.length).fill(0);
    stock.forEach((here, place) => subset & (1 << place) && here.forEach(({ item, units }) => (held[item]! += units)));
    if (demand.some((want, item) => held[item]! < want)) continue;
    const chosen = places.filter((_, place) => subset & (1 << place));
    shortest = Math.min(shortest, chosen.length === 0 ? 0 : shortestRouteLength(layout, chosen));
  }
  return shortest;
}

describe('the covering program (property)', () => {
  it('finds the shortest walk that covers every demand when one is shorter than the length given, and proves none is when the length is that walk', () => {
    fc.assert(
      fc.property(collectingInstances, (instance) => {
        const { layout, places, stock, demand, prices, required } = instance;
        const shortest = shortestCover(instance);
        const floor = collectingFloorOf(layout, places);
        const { byBoundary } = collectingToursOf(instance).toGo(prices, required);
        const cover = (below: number) => shortestCoveringTour({ floor, stock, demand, required }, prices, byBoundary, below, (bound) => bound, Infinity);
        expect(cover(shortest)).toMatchObject({ found: false, proven: true });
        if (shortest === Infinity) return;
        const found = cover(shortest + 1e-6);
        expect(found.found).toBe(true);
        if (!found.found) return;
        expect(found.length).toBeCloseTo(shortest, 9);
        const walked = found.places.map((place) => places[place]!);
        expect(walked.length === 0 ? 0 : shortestRouteLength(layout, walked)).toBeCloseTo(shortest, 9);
      }),
      { numRuns: 400 },
    );
  });
});
