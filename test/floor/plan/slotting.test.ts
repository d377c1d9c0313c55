import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cartsByBound, POOL_ORDERS, proposeSlotting, replay, slottingSteps, walkPlannedCarts, type SlottingProblem } from '../../../src/floor/plan/slotting';
import { shortestRouteLength } from '../../../src/floor/plan/walks';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

/** A floor, up to 12 places holding up to 20 products, and up to 16 orders picking some of them (and some fixed places), in carts of up to 4 orders. */
const problems: fc.Arbitrary<SlottingProblem> = layoutArbitrary({ aisles: 6, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) =>
  fc.array(placeArbitrary(layout), { minLength: 1, maxLength: 12 }).chain((places) =>
    fc.array(fc.integer({ min: 0, max: places.length - 1 }), { minLength: 1, maxLength: 20 }).chain((at) =>
      fc.record({
        layout: fc.constant(layout),
        places: fc.constant(places),
        products: fc.constant(at.map((place, index) => ({ id: `P${index}`, at: place }))),
        orders: fc.array(
          fc.record({
            units: fc.integer({ min: 1, max: 5 }),
            fixed: fc.array(placeArbitrary(layout), { maxLength: 2 }),
            products: fc.array(fc.integer({ min: 0, max: at.length - 1 }), { maxLength: 4 }),
          }),
          { maxLength: 16 },
        ),
        cart: fc.record({ maxOrders: fc.integer({ min: 1, max: 4 }), maxItems: fc.integer({ min: 1, max: 12 }) }),
        maxMoves: fc.integer({ min: 0, max: 25 }),
      }),
    ),
  ),
);

const count = (values: readonly number[]) => values.reduce((map, value) => map.set(value, (map.get(value) ?? 0) + 1), new Map<number, number>());
const LAYOUT = { aisles: 5, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };

describe('proposeSlotting (property)', () => {
  it('never lengthens the replayed walk, moves products only between the places they hold, at most maxMoves of them, and reports the replays truly', () => {
    fc.assert(
      fc.property(problems, (problem) => {
        const proposal = proposeSlotting(problem);
        const at = problem.products.map((product) => product.at);
        for (const move of proposal.moves) {
          expect(move.from).toBe(problem.products[move.product]!.at);
          expect(move.to).not.toBe(move.from);
          at[move.product] = move.to;
        }
        expect(new Set(proposal.moves.map((move) => move.product)).size).toBe(proposal.moves.length);
        expect(proposal.moves.length).toBeLessThanOrEqual(problem.maxMoves);
        // Each place holds as many products as before.
        expect(count(at)).toEqual(count(problem.products.map((product) => product.at)));
        expect(proposal.walkingBefore).toBe(replay(problem, problem.products.map((product) => product.at)));
        expect(proposal.walkingAfter).toBe(replay(problem, at));
        expect(proposal.walkingAfter).toBeLessThanOrEqual(proposal.walkingBefore + 1e-9);
        if (proposal.moves.length > 0) expect(proposal.walkingAfter).toBeLessThan(proposal.walkingBefore);
      }),
      { numRuns: 200 },
    );
  });

  it('gives the saving by moves: fewest moves first, each fewer than the last, which is the proposal itself; nothing when nothing moves', () => {
    fc.assert(
      fc.property(problems, (problem) => {
        const { moves, walkingAfter, savingByMoves } = proposeSlotting(problem);
        if (moves.length === 0) {
          expect(savingByMoves).toEqual([]);
          return;
        }
        expect(savingByMoves.at(-1)).toEqual({ moves: moves.length, walking: walkingAfter });
        for (let i = 1; i < savingByMoves.length; i++) expect(savingByMoves[i]!.moves).toBeGreaterThan(savingByMoves[i - 1]!.moves);
        expect(savingByMoves[0]!.moves).toBeGreaterThan(0);
        expect(savingByMoves.length).toBeLessThanOrEqual(5);
      }),
      { numRuns: 200 },
    );
  });
});

describe('cartsByBound (property)', () => {
  it('puts every order in exactly one cart, within the limits (an order bigger than maxItems alone), each cart seeded by the first order left', () => {
    const pools = layoutArbitrary({ aisles: 6, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) =>
      fc.record({
        layout: fc.constant(layout),
        orders: fc.array(fc.record({ units: fc.integer({ min: 1, max: 6 }), places: fc.array(placeArbitrary(layout), { maxLength: 4 }) }), { maxLength: 30 }),
        limits: fc.record({ maxOrders: fc.integer({ min: 1, max: 5 }), maxItems: fc.integer({ min: 1, max: 15 }) }),
      }),
    );
    fc.assert(
      fc.property(pools, ({ layout, orders, limits }) => {
        const carts = cartsByBound(layout, orders, limits);
        expect(carts.flat().sort((a, b) => a - b)).toEqual(orders.map((_, index) => index));
        const taken = new Set<number>();
        for (const cart of carts) {
          expect(cart[0]).toBe(orders.findIndex((_, index) => !taken.has(index)));
          cart.forEach((order) => taken.add(order));
          expect(cart.length).toBeLessThanOrEqual(limits.maxOrders);
          if (cart.length > 1) expect(cart.reduce((sum, order) => sum + orders[order]!.units, 0)).toBeLessThanOrEqual(limits.maxItems);
        }
        const walked = carts.reduce((sum, cart) => sum + (cart.length > 0 ? shortestRouteLength(layout, cart.flatMap((order) => orders[order]!.places)) : 0), 0);
        expect(walkPlannedCarts(layout, orders, limits)).toBeCloseTo(walked, 9);
      }),
      { numRuns: 200 },
    );
  });
});

describe('proposeSlotting', () => {
  it('brings a product every order picks from the far end of the floor to the place by the depot', () => {
    const problem: SlottingProblem = {
      layout: LAYOUT,
      places: [{ aisle: 1, position: 1 }, { aisle: 5, position: 10 }],
      products: [{ id: 'SLOW', at: 0 }, { id: 'BUSY', at: 1 }],
      orders: Array.from({ length: 5 }, () => ({ units: 1, fixed: [], products: [1] })),
      cart: { maxOrders: 2, maxItems: 10 },
      maxMoves: 10,
    };
    const proposal = proposeSlotting(problem);
    expect(proposal.moves.map(({ product, from, to, picks }) => ({ product, from, to, picks }))).toEqual([
      { product: 1, from: 1, to: 0, picks: 5 },
      { product: 0, from: 0, to: 1, picks: 0 },
    ]);
    expect(proposal.walkingAfter).toBeLessThan(proposal.walkingBefore);
    expect(proposal.savingByMoves).toEqual([{ moves: 2, walking: proposal.walkingAfter }]);
  });

  it('proposes nothing when the one exchange that helps moves more products than maxMoves allows', () => {
    const problem: SlottingProblem = {
      layout: LAYOUT,
      places: [{ aisle: 1, position: 1 }, { aisle: 5, position: 10 }],
      products: [{ id: 'SLOW', at: 0 }, { id: 'BUSY', at: 1 }],
      orders: [{ units: 1, fixed: [], products: [1] }],
      cart: { maxOrders: 1, maxItems: 1 },
      maxMoves: 1,
    };
    expect(proposeSlotting(problem).moves).toEqual([]);
    expect(proposeSlotting(problem).savingByMoves).toEqual([]);
  });

  it("plans the carts again for each placement: where the carts as made walked to a fixed far place anyway, the busy product's move still saves", () => {
    // BUSY stands at the far corner beside FIXED (which cannot move); the waves as made paired each
    // BUSY order with a FIXED one, so over those carts BUSY by the depot saves nothing.
    const far = { aisle: 5, position: 9 };
    const problem: SlottingProblem = {
      layout: LAYOUT,
      places: [{ aisle: 1, position: 1 }, { aisle: 5, position: 10 }],
      products: [{ id: 'QUIET', at: 0 }, { id: 'BUSY', at: 1 }],
      orders: Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? { units: 1, fixed: [], products: [1] } : { units: 1, fixed: [far], products: [] })),
      cart: { maxOrders: 2, maxItems: 2 },
      maxMoves: 10,
    };
    const route = (...places: { aisle: number; position: number }[]) => shortestRouteLength(LAYOUT, places);
    const [near, busy] = problem.places as [{ aisle: number; position: number }, { aisle: number; position: number }];
    expect(4 * route(near, far)).toBeGreaterThanOrEqual(4 * route(busy, far));
    const proposal = proposeSlotting(problem);
    expect(proposal.moves.map(({ product, to }) => ({ product, to }))).toEqual([{ product: 1, to: 0 }, { product: 0, to: 1 }]);
    // Planned again, the BUSY orders share carts: two walks to the far corner become two by the depot.
    expect(proposal.walkingBefore).toBeCloseTo(2 * route(busy) + 2 * route(far), 9);
    expect(proposal.walkingAfter).toBeCloseTo(2 * route(near) + 2 * route(far), 9);
  });

  it('replays the saving by moves for the busiest products first, as maxMoves limits them', () => {
    // Eight busy products at the back of aisle 5, eight quiet ones by the depot: each exchange is two moves.
    const places = [...Array.from({ length: 8 }, (_, i) => ({ aisle: 1, position: 1 + i })), ...Array.from({ length: 8 }, (_, i) => ({ aisle: 5, position: 3 + i }))];
    const problem: SlottingProblem = {
      layout: LAYOUT,
      places,
      products: places.map((_, index) => ({ id: `P${index}`, at: index })),
      orders: Array.from({ length: 60 }, (_, i) => ({ units: 1, fixed: [], products: [8 + (i % 8), 8 + ((i * 3) % 8)].slice(0, 1 + (i % 2)) })),
      cart: { maxOrders: 4, maxItems: 8 },
      maxMoves: 100,
    };
    const proposal = proposeSlotting(problem);
    expect(proposal.moves).toHaveLength(16);
    expect(proposal.savingByMoves.map((point) => point.moves)).toEqual([2, 4, 8, 12, 16]);
    for (const point of proposal.savingByMoves) {
      const limited = proposeSlotting({ ...problem, maxMoves: point.moves });
      // What proposing with that maxMoves finds is at least as short: it tries this placement among others.
      expect(limited.walkingAfter).toBeLessThanOrEqual(point.walking + 1e-9);
    }
    // Not every point saves: two busy products by the depot while the carts still go to the back of aisle 5 add a walk into aisle 1.
    expect(proposal.savingByMoves[0]!.walking).toBeGreaterThan(proposal.walkingBefore);
    expect(proposal.savingByMoves.at(-1)!.walking).toBeLessThan(proposal.walkingBefore);
  });

  it('works out in steps of one pool of at most 200 orders over one placement, to the same proposal', () => {
    const problem: SlottingProblem = {
      layout: LAYOUT,
      places: [{ aisle: 1, position: 1 }, { aisle: 3, position: 4 }, { aisle: 5, position: 10 }],
      products: [{ id: 'A', at: 0 }, { id: 'B', at: 1 }, { id: 'C', at: 2 }],
      orders: Array.from({ length: 420 }, (_, i) => ({ units: 1, fixed: [], products: [2, i % 3 === 0 ? 1 : 0] })),
      cart: { maxOrders: 8, maxItems: 40 },
      maxMoves: 3,
    };
    const steps = slottingSteps(problem);
    const sizes: number[] = [];
    let next = steps.next();
    while (!next.done) {
      sizes.push(next.value.orders.length);
      next = steps.next(walkPlannedCarts(next.value.layout, next.value.orders, next.value.limits));
    }
    const placements = 1 + 6 + next.value.savingByMoves.length - 1;
    expect(sizes).toEqual(Array.from({ length: placements }, () => [POOL_ORDERS, POOL_ORDERS, 20]).flat());
    expect(next.value).toEqual(proposeSlotting(problem));
  });
});
