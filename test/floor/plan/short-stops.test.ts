import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Location } from '../../../src/floor/plan/items';
import type { Layout } from '../../../src/floor/plan/layout';
import { walkThrough } from '../../../src/floor/plan/progress';
import { placeMissingUnits } from '../../../src/floor/plan/short-stops';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

const codeOf = (place: { aisle: number; position: number }) => `${place.aisle}-${place.position}`;
const located = (place: { aisle: number; position: number }): Location => ({ ...place, code: codeOf(place) });

/** A layout, where the picker stands, the stops left (one per location), and two tiers of slots (faces, then reserve) at other locations. */
const instances = layoutArbitrary({ aisles: 5, positions: { min: 2, max: 8 }, middleCrossAisles: true }).chain((layout) =>
  fc.record({
    layout: fc.constant(layout),
    from: fc.option(placeArbitrary(layout), { nil: undefined }),
    rest: fc.uniqueArray(placeArbitrary(layout), { maxLength: 6, selector: codeOf }).map((places) => places.map(located)),
    slots: fc.uniqueArray(fc.record({ place: placeArbitrary(layout), quantity: fc.integer({ min: 0, max: 4 }), reserve: fc.boolean() }), { maxLength: 6, selector: (slot) => codeOf(slot.place) }),
    missing: fc.integer({ min: 1, max: 12 }),
  }),
);

const length = (layout: Layout, from: Location | { aisle: number; position: number } | undefined, route: readonly Location[]) => walkThrough(layout, route, from).distance;

describe('placeMissingUnits (property)', () => {
  it('covers what the slots can, faces before reserve, each stop where it lengthens the walk least, the route keeping its order', () => {
    fc.assert(
      fc.property(instances, ({ layout, from, rest, slots, missing }) => {
        const faces = slots.filter((slot) => !slot.reserve).map((slot) => ({ place: located(slot.place), quantity: slot.quantity }));
        const reserve = slots.filter((slot) => slot.reserve).map((slot) => ({ place: located(slot.place), quantity: slot.quantity }));
        const placed = placeMissingUnits(layout, from, rest, [faces, reserve], missing);

        const inFaces = faces.reduce((sum, slot) => sum + slot.quantity, 0);
        const inReserve = reserve.reduce((sum, slot) => sum + slot.quantity, 0);
        const taken = (tier: typeof faces) => placed.filter((stop) => tier.some((slot) => slot.place.code === stop.slot.code)).reduce((sum, stop) => sum + stop.quantity, 0);
        expect(taken(faces)).toBe(Math.min(missing, inFaces));
        expect(taken(reserve)).toBe(Math.min(missing - taken(faces), inReserve));

        let route = [...rest];
        for (const stop of placed) {
          const slot = [...faces, ...reserve].find((candidate) => candidate.place.code === stop.slot.code)!;
          expect(stop.quantity).toBeGreaterThan(0);
          expect(stop.quantity).toBeLessThanOrEqual(slot.quantity);
          if (stop.joins) {
            expect(route[stop.at]!.code).toBe(stop.slot.code);
            continue;
          }
          const options = Array.from({ length: route.length + 1 }, (_, at) => length(layout, from, [...route.slice(0, at), stop.slot, ...route.slice(at)]));
          const chosen = options[stop.at]!;
          expect(chosen).toBeCloseTo(Math.min(...options), 9);
          route = [...route.slice(0, stop.at), stop.slot, ...route.slice(stop.at)];
        }
        // The stops left keep their order.
        expect(route.filter((stop) => rest.includes(stop))).toEqual(rest);
        expect(new Set(placed.map((stop) => stop.slot.code)).size).toBe(placed.length);
      }),
      { numRuns: 300 },
    );
  });
});
