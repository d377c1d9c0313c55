import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchCovers, type ScatteredProblem } from '../../../src/floor/plan/cover-search';
import type { Layout, Place } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

/** Up to four items, each wanted 1–3 times and held at 1–4 places of a small floor (some places shared), the places together holding every demand. */
const problemArbitrary: fc.Arbitrary<ScatteredProblem> = layoutArbitrary({ aisles: 6, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) =>
  fc
    .array(
      fc.record({
        demand: fc.integer({ min: 1, max: 3 }),
        holders: fc.array(fc.record({ place: placeArbitrary(layout), units: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 4 }),
      }),
      { minLength: 1, maxLength: 4 },
    )
    .map((items) => {
      const places: Place[] = [];
      const stock: { item: number; units: number }[][] = [];
      items.forEach(({ demand, holders }, item) =>
        holders.forEach(({ place, units }, index) => {
          let at = places.findIndex((other) => other.aisle === place.aisle && other.position === place.position);
          if (at < 0) at = places.push(place) - 1;
          stock[at] ??= [];
          // The last holder makes up what the others leave short.
          const held = index === holders.length - 1 ? Math.max(units, demand) : units;
          const entry = stock[at]!.find((other) => other.item === item);
          if (entry) entry.units = Math.min(demand, entry.units + held);
          else stock[at]!.push({ item, units: Math.min(demand, held) });
        }),
      );
      return { layout, places, stock, demand: items.map(({ demand }) => demand) };
    }),
);

const covers = ({ stock, demand }: ScatteredProblem, places: readonly number[]) =>
  demand.every((want, item) => places.reduce((sum, place) => sum + (stock[place]!.find((entry) => entry.item === item)?.units ?? 0), 0) >= want);
const walk = (problem: ScatteredProblem, places: readonly number[]) => shortestRouteLength(problem.layout, places.map((place) => problem.places[place]!));
const options = fc.record({ seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }), measures: fc.integer({ min: 0, max: 40 }) });

describe('searchCovers', () => {
  it('answers a cover of every demand, measured as its exact walk, never longer than the walk through the places it starts from', () => {
    fc.assert(
      fc.property(problemArbitrary, options, (problem, { seed, measures }) => {
        const start = problem.places.map((_, place) => place);
        const found = searchCovers(problem, start, { seed, measures });
        expect(covers(problem, found.places)).toBe(true);
        expect(new Set(found.places).size).toBe(found.places.length);
        expect(found.distance).toBeCloseTo(walk(problem, found.places), 9);
        expect(found.distance).toBeLessThanOrEqual(walk(problem, start) + 1e-9);
        expect(found.measured).toBeLessThanOrEqual(measures + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('answers the same for the same seed', () => {
    fc.assert(
      fc.property(problemArbitrary, options, (problem, { seed, measures }) => {
        const start = problem.places.map((_, place) => place);
        expect(searchCovers(problem, start, { seed, measures })).toEqual(searchCovers(problem, start, { seed, measures }));
      }),
      { numRuns: 100 },
    );
  });

  it('leaves a deep place for one next to another the walk passes anyway', () => {
    const layout: Layout = { aisles: 5, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
    // Item 0 deep in aisle 1 or at the front of aisle 5; item 1 only at the front of aisle 5.
    const places: Place[] = [
      { aisle: 1, position: 10 },
      { aisle: 5, position: 1 },
      { aisle: 5, position: 2 },
    ];
    const problem: ScatteredProblem = { layout, places, stock: [[{ item: 0, units: 1 }], [{ item: 0, units: 1 }], [{ item: 1, units: 1 }]], demand: [1, 1] };
    const found = searchCovers(problem, [0, 2], { seed: 7, measures: 20 });
    expect(found.places.sort()).toEqual([1, 2]);
    expect(found.distance).toBe(walk(problem, [1, 2]));
    expect(found.distance).toBeLessThan(walk(problem, [0, 2]));
  });
});
