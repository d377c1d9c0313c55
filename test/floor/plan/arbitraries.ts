import fc from 'fast-check';
import type { Layout, Place } from '../../../src/floor/plan/layout';

/**
 * A small layout for property tests: up to `aisles` aisles of `positions` places, spacings that
 * are whole and fractional, the depot at any aisle and, with `middleCrossAisles`, up to two middle
 * cross aisles where the positions leave room for them.
 */
export function layoutArbitrary(options: { aisles: number; positions: { min: number; max: number }; middleCrossAisles?: boolean }): fc.Arbitrary<Layout> {
  return fc
    .record({
      aisles: fc.integer({ min: 1, max: options.aisles }),
      positionsPerAisle: fc.integer(options.positions),
      aisleSpacing: fc.constantFrom(1, 2.5, 3, 5),
      positionSpacing: fc.constantFrom(0.5, 1, 2),
      crossAisleOffset: fc.constantFrom(0, 0.75, 1, 1.5),
      depotAisle: fc.integer({ min: 1, max: options.aisles }),
      middle: fc.integer({ min: 0, max: options.middleCrossAisles ? 2 : 0 }),
    })
    .map(({ middle, ...layout }) => ({
      ...layout,
      depotAisle: Math.min(layout.depotAisle, layout.aisles),
      crossAisles: [3, 6].slice(0, middle).filter((after) => after < layout.positionsPerAisle).map((afterPosition) => ({ afterPosition, width: 1 })),
    }));
}

/** Any place of the layout. */
export function placeArbitrary(layout: Layout): fc.Arbitrary<Place> {
  return fc.record({ aisle: fc.integer({ min: 1, max: layout.aisles }), position: fc.integer({ min: 1, max: layout.positionsPerAisle }) });
}
