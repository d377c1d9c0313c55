import fc from 'fast-check';
import { backY, middleCrossAisleYs, positionY, type Layout, type Place } from '../../../src/floor/plan/layout';
import type { Location } from '../../../src/floor/plan/items';
import { CollectingTours, type CollectingFloor } from '../../../src/floor/plan/walks/collecting';

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

/** An item's slots with one per location: a location listed twice holds the sum. */
export function mergeSlots(slots: { place: Location; quantity: number }[]) {
  const byCode = new Map<string, { place: Location; quantity: number }>();
  for (const slot of slots) {
    const known = byCode.get(slot.place.code);
    if (known) known.quantity += slot.quantity;
    else byCode.set(slot.place.code, { ...slot });
  }
  return [...byCode.values()];
}

/** A small floor of one or two blocks, places holding units of up to four items, prices, and places required or forbidden. */
export const collectingInstances = fc
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

/** The floor the collecting tours and the covering program see: places by subaisle, front to back. */
export function collectingFloorOf(layout: Layout, places: readonly Place[]): CollectingFloor {
  const crossYs = [0, ...middleCrossAisleYs(layout), backY(layout)];
  const candidates = Array.from({ length: layout.aisles }, () => crossYs.slice(1).map((): number[] => []));
  const ys = places.map((place) => positionY(layout, place.position));
  for (const index of places.map((_, i) => i).sort((a, b) => ys[a]! - ys[b]!)) {
    let block = 0;
    while (ys[index]! > crossYs[block + 1]!) block++;
    candidates[places[index]!.aisle - 1]![block]!.push(index);
  }
  return { aisles: layout.aisles, depotAisle: layout.depotAisle, crossYs, spacing: layout.aisleSpacing, ys, candidates };
}

export function collectingToursOf({ layout, places, stock, demand }: { layout: Layout; places: Place[]; stock: { item: number; units: number }[][]; demand: number[] }): CollectingTours {
  return new CollectingTours(collectingFloorOf(layout, places), { stock, demand });
}
