import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Layout } from '../../../src/floor/plan/layout';
import { walkThrough } from '../../../src/floor/plan/progress';
import { routeReplenishments, type TaskPlaces } from '../../../src/floor/plan/replenishment-route';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

/** A layout of one to three blocks and up to six tasks on it, each a reserve place and a face. */
const instances = layoutArbitrary({ aisles: 5, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) =>
  fc.record({
    layout: fc.constant(layout),
    tasks: fc.array(fc.record({ from: placeArbitrary(layout), to: placeArbitrary(layout) }), { minLength: 1, maxLength: 6 }),
    first: fc.option(fc.nat(5), { nil: undefined }),
  }),
);

/** The walk doing the tasks in `order`, each reserve then face, depot to depot, walked stop by stop. */
const walkOf = (layout: Layout, tasks: readonly TaskPlaces[], order: readonly number[]) => walkThrough(layout, order.flatMap((index) => [tasks[index]!.from, tasks[index]!.to])).distance;

function* permutations(items: number[]): Generator<number[]> {
  if (items.length <= 1) return yield items;
  for (const [index, item] of items.entries()) for (const rest of permutations(items.filter((_, other) => other !== index))) yield [item, ...rest];
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('the walking order of a replenishment trip', () => {
  it('is the shortest of every order that does each task whole (the task in hand first), and its distance is its walk', () => {
    fc.assert(
      fc.property(instances, ({ layout, tasks, first }) => {
        const inHand = first === undefined ? undefined : first % tasks.length;
        const route = routeReplenishments(layout, tasks, inHand);
        const orders = [...permutations(tasks.map((_, index) => index))].filter((order) => inHand === undefined || order[0] === inHand);
        const shortest = Math.min(...orders.map((order) => walkOf(layout, tasks, order)));
        expect([...route.order].sort()).toEqual(tasks.map((_, index) => index));
        if (inHand !== undefined) expect(route.order[0]).toBe(inHand);
        expect(close(route.distance, walkOf(layout, tasks, route.order))).toBe(true);
        expect(close(route.distance, shortest)).toBe(true);
        expect(route.exact).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('routes the largest trip the console asks for within a few milliseconds', () => {
    const layout: Layout = { aisles: 40, positionsPerAisle: 60, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1, crossAisles: [{ afterPosition: 30, width: 2 }] };
    const tasks = Array.from({ length: 10 }, (_, i) => ({ from: { aisle: 40 - 3 * i, position: 60 - 5 * i }, to: { aisle: 1 + 4 * i, position: 1 + 6 * i } }));
    const started = performance.now();
    const route = routeReplenishments(layout, tasks);
    expect(route.order).toHaveLength(10);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
