import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Location } from '../../../src/floor/plan/items';
import type { Layout } from '../../../src/floor/plan/layout';
import { planWaveLines, type ItemPlaces, type WaveItem } from '../../../src/floor/plan/wave-lines';

/*
 * Four aisles 3 apart, ten positions 1 apart, the depot in line with aisle 1: A-01 is the nearest
 * place to the depot, B-03 next, C-09 the farthest.
 */
const layout: Layout = { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1 };
const A01: Location = { code: 'A-01', aisle: 1, position: 1 };
const B03: Location = { code: 'B-03', aisle: 2, position: 3 };
const C09: Location = { code: 'C-09', aisle: 3, position: 9 };

const line = (order: string, product: string, quantity: number, item_position = 1): WaveItem => ({ order_id: order, item_position, product_external_id: product, quantity });
const totes = (...orders: string[]) => new Map(orders.map((order, index) => [order, index + 1]));

/**
 * Each part as [order, product, location (null: unplaced), quantity, stop, part], in walking order.
 * S-shape walks the aisles from the left, so A-01 comes first; the slots chosen are the nearest.
 */
function parts(items: WaveItem[], tote: Map<string, number>, places: Record<string, ItemPlaces>) {
  return planWaveLines(layout, items, tote, new Map(Object.entries(places)), 's-shape').lines.map((part) => [
    part.order_id,
    part.product_external_id,
    part.location_code,
    part.quantity,
    part.stop,
    part.part,
  ]);
}

describe('planWaveLines', () => {
  it('splits a line the nearer slot cannot cover over two stops, the nearer first', () => {
    expect(parts([line('o1', 'SHOE', 5)], totes('o1'), { SHOE: { own: null, slots: [{ place: C09, quantity: 5 }, { place: A01, quantity: 2 }] } })).toEqual([
      ['o1', 'SHOE', 'A-01', 2, 1, 1],
      ['o1', 'SHOE', 'C-09', 3, 2, 2],
    ]);
  });

  it('shares the chosen slots among orders tote by tote', () => {
    const places = { SHOE: { own: null, slots: [{ place: A01, quantity: 4 }, { place: C09, quantity: 5 }] } };
    expect(parts([line('o2', 'SHOE', 3), line('o1', 'SHOE', 3)], totes('o1', 'o2'), places)).toEqual([
      ['o1', 'SHOE', 'A-01', 3, 1, 1],
      ['o2', 'SHOE', 'A-01', 1, 1, 1],
      ['o2', 'SHOE', 'C-09', 2, 2, 2],
    ]);
  });

  it("plans what the slots cannot cover at the product's own location, in one part where a slot stands there too", () => {
    // No slots: the own location holds the stock (1); the rest is looked for there too.
    expect(parts([line('o1', 'SOCK', 3)], totes('o1'), { SOCK: { own: B03, slots: [{ place: B03, quantity: 1 }] } })).toEqual([['o1', 'SOCK', 'B-03', 3, 1, 1]]);
    // Slots elsewhere: the own location is a stop of its own.
    expect(parts([line('o1', 'SOCK', 3)], totes('o1'), { SOCK: { own: C09, slots: [{ place: A01, quantity: 1 }] } })).toEqual([
      ['o1', 'SOCK', 'A-01', 1, 1, 1],
      ['o1', 'SOCK', 'C-09', 2, 2, 2],
    ]);
    // Even a product without units anywhere is looked for at its own location.
    expect(parts([line('o1', 'SOCK', 2)], totes('o1'), { SOCK: { own: B03, slots: [{ place: B03, quantity: 0 }] } })).toEqual([['o1', 'SOCK', 'B-03', 2, 1, 1]]);
  });

  it('adds the uncovered part to the last stop of a product without a placed location, and leaves a product with nowhere to go unplaced', () => {
    expect(parts([line('o1', 'HAT', 3)], totes('o1'), { HAT: { own: null, slots: [{ place: A01, quantity: 1 }] } })).toEqual([['o1', 'HAT', 'A-01', 3, 1, 1]]);
    expect(parts([line('o1', 'HAT', 3), line('o1', 'NOPE', 1, 2), line('o1', 'SHOE', 1, 3)], totes('o1'), { HAT: { own: null, slots: [] }, SHOE: { own: C09, slots: [{ place: C09, quantity: 9 }] } })).toEqual([
      ['o1', 'SHOE', 'C-09', 1, 1, 1],
      ['o1', 'HAT', null, 3, null, 1],
      ['o1', 'NOPE', null, 1, null, 1],
    ]);
  });

  it('plans every ordered unit exactly once, parts numbered in walking order, stops numbered 1.. without gaps', () => {
    const codes = [A01, B03, C09, { code: 'D-05', aisle: 4, position: 5 }, { code: 'A-01-TOP', aisle: 1, position: 1 }];
    const places = fc.record({
      own: fc.option(fc.constantFrom(...codes), { nil: null }),
      slots: fc.uniqueArray(fc.record({ place: fc.constantFrom(...codes), quantity: fc.integer({ min: 0, max: 6 }) }), { selector: (slot) => slot.place.code, maxLength: 4 }),
    });
    const input = fc.record({
      products: fc.array(places, { minLength: 1, maxLength: 4 }),
      lines: fc.array(fc.record({ order: fc.integer({ min: 0, max: 3 }), product: fc.integer({ min: 0, max: 4 }), quantity: fc.integer({ min: 1, max: 9 }) }), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(input, ({ products, lines }) => {
        // An order holds each product once, as an order's items do.
        const seen = new Set<string>();
        const items = lines.flatMap((entry, index) => {
          const key = `${entry.order}:${entry.product}`;
          if (seen.has(key)) return [];
          seen.add(key);
          return [line(`o${entry.order}`, `P${entry.product}`, entry.quantity, index + 1)];
        });
        const known = new Map(products.map((place, index) => [`P${index}`, place]));
        const { lines: planned } = planWaveLines(layout, items, totes('o0', 'o1', 'o2', 'o3'), known, 'optimal');
        for (const item of items) {
          const mine = planned.filter((part) => part.order_id === item.order_id && part.item_position === item.item_position);
          expect(mine.reduce((sum, part) => sum + part.quantity, 0)).toBe(item.quantity);
          expect(mine.map((part) => part.part)).toEqual(mine.map((_, index) => index + 1));
          expect(new Set(mine.map((part) => part.location_code)).size).toBe(mine.length);
        }
        expect(planned.map((part) => part.walk)).toEqual(planned.map((_, index) => index));
        const stops = [...new Set(planned.flatMap((part) => (part.stop === null ? [] : [part.stop])))];
        expect(stops).toEqual(stops.map((_, index) => index + 1));
      }),
    );
  });
});
