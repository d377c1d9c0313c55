import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeItems, type ItemNeed, type Location } from '../../../src/floor/plan/items';
import { POLICIES, type Layout } from '../../../src/floor/plan/layout';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { layoutArbitrary, mergeSlots, placeArbitrary } from './arbitraries';

const close = (actual: number, expected: number) => Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));

/** The shortest walk over every choice of slots that covers the needs, by trying every subset of slots. */
function bruteForce(layout: Layout, needs: readonly ItemNeed<Location>[]): number {
  const slots = needs.flatMap((need, item) => need.slots.filter((slot) => slot.quantity > 0).map((slot) => ({ item, slot })));
  const wanted = needs.map((need) => Math.min(need.quantity, need.slots.reduce((sum, slot) => sum + slot.quantity, 0)));
  let best = Infinity;
  for (let subset = 0; subset < 1 << slots.length; subset++) {
    const held = new Array<number>(needs.length).fill(0);
    const places = slots.filter((_, i) => subset & (1 << i));
    for (const { item, slot } of places) held[item]! += slot.quantity;
    if (wanted.some((want, item) => held[item]! < want)) continue;
    best = Math.min(best, shortestRouteLength(layout, places.map(({ slot }) => slot.place)));
  }
  return best;
}

const layouts = layoutArbitrary({ aisles: 6, positions: { min: 2, max: 10 }, middleCrossAisles: true });

/** Up to four items, up to ten slots in all (some on the same location), quantities small enough to make choices matter. */
function instances(): fc.Arbitrary<{ layout: Layout; needs: ItemNeed<Location>[] }> {
  return layouts.chain((layout) => {
    const location = placeArbitrary(layout).map((place) => ({ ...place, code: `${place.aisle}-${place.position}` }));
    const need = fc.record({
      quantity: fc.integer({ min: 1, max: 4 }),
      slots: fc.array(fc.record({ place: location, quantity: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 4 }),
    });
    return fc
      .array(need, { minLength: 1, maxLength: 4 })
      .filter((needs) => needs.reduce((sum, n) => sum + n.slots.length, 0) <= 10)
      .map((needs) => ({
        layout,
        // One slot per item and location: a location listed twice for an item holds the sum.
        needs: needs.map((n, i) => ({ item: `item-${i}`, quantity: n.quantity, slots: mergeSlots(n.slots) })),
      }));
  });
}

describe('routes for items kept at several slots (property)', () => {
  it('optimal is the shortest walk over every choice of slots when it says exact, and never shorter', () => {
    fc.assert(
      fc.property(instances(), ({ layout, needs }) => {
        const shortest = bruteForce(layout, needs);
        const route = routeItems(layout, needs, 'optimal');
        if (route.stops.length === 0) expect(shortest).toBe(0);
        else expect(route.distance).toBeGreaterThanOrEqual(shortest - 1e-9);
        if (route.exact) expect(close(route.distance, shortest), `optimal ${route.distance}, every choice ${shortest}`).toBe(true);
        // On one or two blocks the search always finishes on floors this small.
        if ((layout.crossAisles ?? []).length <= 1) expect(route.exact).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('every policy takes what is wanted, from slots that hold it, and lists the rest as short', () => {
    fc.assert(
      fc.property(instances(), fc.constantFrom(...POLICIES), ({ layout, needs }, policy) => {
        const route = routeItems(layout, needs, policy);
        for (const need of needs) {
          const taken = route.stops.flatMap((stop) => stop.picks.filter((pick) => pick.item === need.item).map((pick) => ({ stop, pick })));
          for (const { stop, pick } of taken) {
            const slot = need.slots.find((candidate) => candidate.place.code === stop.place.code);
            expect(pick.quantity).toBeGreaterThan(0);
            expect(pick.quantity).toBeLessThanOrEqual(slot!.quantity);
          }
          const held = need.slots.reduce((sum, slot) => sum + slot.quantity, 0);
          const short = route.short.find((entry) => entry.item === need.item)?.quantity ?? 0;
          expect(taken.reduce((sum, { pick }) => sum + pick.quantity, 0)).toBe(Math.min(need.quantity, held));
          expect(short).toBe(Math.max(0, need.quantity - held));
        }
        expect(new Set(route.stops.map((stop) => stop.place.code)).size).toBe(route.stops.length);
        expect(route.distance).toBeGreaterThanOrEqual(bruteForce(layout, needs) - 1e-9);
      }),
      { numRuns: 300 },
    );
  });
});

describe('routes for items', () => {
  const layout: Layout = { aisles: 5, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
  const at = (aisle: number, position: number): Location => ({ code: `A${aisle}-${position}`, aisle, position });

  it('takes an item from the slot nearer the rest of the walk, not the one nearer the depot', () => {
    const needs = [
      { item: 'far', quantity: 1, slots: [{ place: at(5, 5), quantity: 1 }] },
      { item: 'either', quantity: 1, slots: [{ place: at(1, 2), quantity: 1 }, { place: at(5, 6), quantity: 1 }] },
    ];
    const route = routeItems(layout, needs, 'optimal');
    expect(route.exact).toBe(true);
    expect(route.stops.map((stop) => stop.place.code)).toEqual(['A5-5', 'A5-6']);
    const nearest = routeItems(layout, needs, 's-shape');
    expect(nearest.stops.map((stop) => stop.place.code)).toContain('A1-2');
  });

  it('splits a quantity over two slots when neither holds it all, and lists what no slot holds as short', () => {
    const route = routeItems(
      layout,
      [
        { item: 'split', quantity: 5, slots: [{ place: at(2, 3), quantity: 2 }, { place: at(2, 8), quantity: 3 }] },
        { item: 'scarce', quantity: 4, slots: [{ place: at(3, 1), quantity: 1 }] },
      ],
      'optimal',
    );
    expect(route.stops.map(({ place, picks }) => ({ code: place.code, picks })).sort((a, b) => a.code.localeCompare(b.code))).toEqual([
      { code: 'A2-3', picks: [{ item: 'split', quantity: 2 }] },
      { code: 'A2-8', picks: [{ item: 'split', quantity: 3 }] },
      { code: 'A3-1', picks: [{ item: 'scarce', quantity: 1 }] },
    ]);
    expect(route.short).toEqual([{ item: 'scarce', quantity: 3 }]);
  });
});
