import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { proposeSlotting, replay, slottingSteps, type SlottingProblem } from '../../../src/floor/plan/slotting';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

/** A floor, up to 12 places holding up to 20 products, and up to 10 waves picking some of them (and some fixed places). */
const problems: fc.Arbitrary<SlottingProblem> = layoutArbitrary({ aisles: 6, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) =>
  fc.array(placeArbitrary(layout), { minLength: 1, maxLength: 12 }).chain((places) =>
    fc.array(fc.integer({ min: 0, max: places.length - 1 }), { minLength: 1, maxLength: 20 }).chain((at) =>
      fc.record({
        layout: fc.constant(layout),
        places: fc.constant(places),
        products: fc.constant(at.map((place, index) => ({ id: `P${index}`, at: place }))),
        waves: fc.array(
          fc.record({ fixed: fc.array(placeArbitrary(layout), { maxLength: 2 }), products: fc.array(fc.integer({ min: 0, max: at.length - 1 }), { maxLength: 6 }) }),
          { maxLength: 10 },
        ),
        maxMoves: fc.integer({ min: 0, max: 25 }),
      }),
    ),
  ),
);

const count = (values: readonly number[]) => values.reduce((map, value) => map.set(value, (map.get(value) ?? 0) + 1), new Map<number, number>());

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
        expect(proposal.walkingBefore).toBeCloseTo(replay(problem, problem.products.map((product) => product.at)), 6);
        expect(proposal.walkingAfter).toBeCloseTo(replay(problem, at), 6);
        expect(proposal.walkingAfter).toBeLessThanOrEqual(proposal.walkingBefore + 1e-9);
        if (proposal.moves.length > 0) expect(proposal.walkingAfter).toBeLessThan(proposal.walkingBefore);
      }),
      { numRuns: 200 },
    );
  });

  it('brings a product every wave picks from the far end of the floor to the place by the depot', () => {
    const layout = { aisles: 5, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
    const places = [{ aisle: 1, position: 1 }, { aisle: 5, position: 10 }];
    const problem: SlottingProblem = {
      layout,
      places,
      products: [{ id: 'SLOW', at: 0 }, { id: 'BUSY', at: 1 }],
      waves: Array.from({ length: 5 }, () => ({ fixed: [], products: [1] })),
      maxMoves: 10,
    };
    const proposal = proposeSlotting(problem);
    expect(proposal.moves.map(({ product, from, to, picks }) => ({ product, from, to, picks }))).toEqual([
      { product: 1, from: 1, to: 0, picks: 5 },
      { product: 0, from: 0, to: 1, picks: 0 },
    ]);
    expect(proposal.walkingAfter).toBeLessThan(proposal.walkingBefore);
  });

  it('proposes nothing when the one exchange that helps moves more products than maxMoves allows', () => {
    const layout = { aisles: 5, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
    const problem: SlottingProblem = {
      layout,
      places: [{ aisle: 1, position: 1 }, { aisle: 5, position: 10 }],
      products: [{ id: 'SLOW', at: 0 }, { id: 'BUSY', at: 1 }],
      waves: [{ fixed: [], products: [1] }],
      maxMoves: 1,
    };
    expect(proposeSlotting(problem).moves).toEqual([]);
  });

  it('works out in steps of at most 50 waves replayed, so that a service can answer requests in between, to the same proposal', () => {
    const layout = { aisles: 5, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
    const problem: SlottingProblem = {
      layout,
      places: [{ aisle: 1, position: 1 }, { aisle: 3, position: 4 }, { aisle: 5, position: 10 }],
      products: [{ id: 'A', at: 0 }, { id: 'B', at: 1 }, { id: 'C', at: 2 }],
      waves: Array.from({ length: 420 }, (_, i) => ({ fixed: [], products: [2, i % 3 === 0 ? 1 : 0] })),
      maxMoves: 3,
    };
    const steps = slottingSteps(problem);
    let pauses = 0;
    let next = steps.next();
    while (!next.done) {
      pauses++;
      next = steps.next();
    }
    // Seven replays (today's places and six zonings) of 420 waves: 8 pauses within each, one after each zoning.
    expect(pauses).toBe(7 * 8 + 6);
    expect(next.value).toEqual(proposeSlotting(problem));
  });
});
