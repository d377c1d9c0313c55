import { WORK_COST, type Budget } from './budget';
import { Covers, crossAisleYs, type ScatteredProblem } from './covers';
import { Incumbent } from './incumbent';
import { positionY, type Layout, type Place } from './layout';
import { CollectingTours, type CollectingFloor } from './walks/collecting';
import { MAX_DP_CROSS_AISLES } from './walks/optimal';

/**
 * What every phase of the search for items at several places works on: the problem, the floor
 * as the collecting tour sees it (one or two blocks; undefined beyond, where nothing is proven),
 * the cover helpers and the incumbent.
 */
export class SearchContext {
  readonly floor: CollectingFloor | undefined;
  readonly tours: CollectingTours | undefined;
  /** By place: its subaisle's number (aisle-major, then block). */
  readonly subaisleOf: Int32Array;
  /** 1 or 2 where the search can prove (the floor's blocks), 2 beyond: what a walk costs to measure. */
  readonly blocks: 1 | 2;
  /** No price on any item: a collecting tour that only walks. */
  readonly noPrices: Float64Array;
  readonly covers: Covers;
  readonly incumbent: Incumbent;
  private greedyCover: number[] | undefined;

  constructor(
    readonly problem: ScatteredProblem,
    /** What the context's own work (measuring walks) is charged to: the search's budget. */
    budget: Budget,
  ) {
    const { layout } = problem;
    const crossYs = crossAisleYs(layout);
    this.noPrices = new Float64Array(problem.demand.length);
    this.blocks = crossYs.length - 1 >= 2 ? 2 : 1;
    this.floor =
      crossYs.length <= Math.min(3, MAX_DP_CROSS_AISLES)
        ? {
            aisles: layout.aisles,
            depotAisle: layout.depotAisle,
            crossYs,
            spacing: layout.aisleSpacing,
            ys: problem.places.map((place) => positionY(layout, place.position)),
            candidates: candidatesByAisle(problem.places, layout, crossYs),
          }
        : undefined;
    this.tours = this.floor && new CollectingTours(this.floor, problem);
    this.subaisleOf = new Int32Array(problem.places.length);
    this.floor?.candidates.forEach((byBlock, aisle) => byBlock.forEach((places, block) => places.forEach((place) => (this.subaisleOf[place] = aisle * byBlock.length + block))));
    this.covers = new Covers(problem);
    this.incumbent = new Incumbent(problem, { covers: this.covers, budget, measureCost: WORK_COST.walk[this.blocks - 1]! });
  }

  /** The first cover, completed greedily from nothing and offered to the incumbent: built on the first ask. */
  greedy(): readonly number[] {
    if (!this.greedyCover) {
      this.greedyCover = this.covers.completeGreedily(new Uint8Array(this.problem.places.length), this.incumbent);
      this.incumbent.offer(this.greedyCover);
    }
    return this.greedyCover;
  }
}

/** The candidates of each subaisle, front to back. */
function candidatesByAisle(places: readonly Place[], layout: Layout, crossYs: readonly number[]): number[][][] {
  const byAisle = Array.from({ length: layout.aisles }, () => crossYs.slice(1).map((): number[] => []));
  const order = places.map((place, index) => ({ index, aisle: place.aisle, y: positionY(layout, place.position) })).sort((a, b) => a.y - b.y);
  for (const { index, aisle, y } of order) {
    let block = 0;
    while (y > crossYs[block + 1]!) block++;
    byAisle[aisle - 1]![block]!.push(index);
  }
  return byAisle;
}
