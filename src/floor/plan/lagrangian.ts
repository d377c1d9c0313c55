import type { Budget } from './budget';
import type { SearchContext } from './search-context';

/*
 * The Lagrangian bound of a branch-and-bound node: the demands move into the objective with a
 * price per unit of each item, which leaves a prize-collecting tour (the collecting tour,
 * walks/collecting.ts) paid for the units it passes. Any prices give a lower bound on the
 * shortest walk; subgradient optimization raises it. Where the first node's bound stalls close
 * to the incumbent, decremental state-space relaxation tracks the items its tour is paid for
 * beyond their demand, and the prices are raised again.
 */

/** A node of branch and bound: what its walks must visit, may not use, and must walk into; the prices it starts from. */
export interface BranchNode {
  required: Uint8Array;
  forbidden: Uint8Array;
  /** By subaisle: 1 where the tour must walk in, 2 where it uses nothing (its places are forbidden). */
  entered: Uint8Array;
  prices: Float64Array;
}

/** A node's bound: open (its best prices, and the places their tour passed), pruned, or not worked out within the budget. */
export type NodeBound = { prices: Float64Array; passed: Uint8Array } | 'pruned' | 'out of work';

/** Steps without a better bound after which the step length halves. */
const STALL_STEPS = 10;
/** Halvings after which a node's bound is taken as it is: smaller steps seldom raise it. */
const MAX_HALVINGS = 5;
/** Every this many steps, the places of a tour that does not cover the order are completed greedily into a cover. */
const COMPLETE_EVERY = 5;
/** Combinations of units taken of the tracked items a collecting tour may carry in its state at most: its states multiply by them. */
const TRACKED_COMBINATIONS = 256;
/**
 * How far below the incumbent, as a share of it, the first node's bound may stall for items to be
 * tracked: further below, tracking seldom closes the gap and takes the work branching needs.
 */
const TRACKING_GAP = 0.03;

export interface LagrangianBudgets {
  /** What untracked tours may spend: the proof's budget. */
  proof: Budget;
  /** What the first node's tracked tours may spend (the bound so far stands once it is spent). */
  tracking: Budget;
}

/** Subgradient optimization of the Lagrangian bound, node after node of one proof. */
export class LagrangianBound {
  /** The places of bound tours completed into covers so far, as keys. */
  private readonly completed = new Set<string>();

  constructor(
    private readonly context: SearchContext,
    private readonly budgets: LagrangianBudgets,
  ) {}

  /**
   * Raises the node's bound by up to `steps` subgradient steps, tracking items when `tracking`
   * (the first node). Tours that cover the order, or once completed greedily, are offered to
   * the incumbent on the way.
   */
  raise(node: BranchNode, { steps, tracking }: { steps: number; tracking: boolean }): NodeBound {
    const { problem, tours, incumbent, covers } = this.context;
    const { demand, stock } = problem;
    const items = demand.length;
    const prices = Float64Array.from(node.prices);
    const gradient = new Float64Array(items);
    let bestBound = -Infinity;
    // The best bound's prices and tour, copied into these (a tour's own arrays are overwritten by the next).
    const bestPrices = Float64Array.from(prices);
    const bestPassed = new Uint8Array(stock.length);
    const bestCollected = new Float64Array(items);
    let tracked: number[] = [];
    /** The prices and tour of the best bound before tracking: what later nodes and the covering program start from. */
    let untracked: { prices: Float64Array; passed: Uint8Array } | undefined;
    let scale = 2;
    let sinceBetter = 0;
    let halvings = 0;
    for (let step = 0; step < steps; step++) {
      const budget = tracked.length > 0 ? this.budgets.tracking : this.budgets.proof;
      const tour = tours!.tour(prices, node.required, { forbidden: node.forbidden, entered: node.entered, budget: budget.left(), tracked });
      if (!tour) {
        // Out of work: tracked, the bound so far stands; untracked, the node is left open.
        budget.charge(budget.left());
        if (tracked.length > 0) break;
        return 'out of work';
      }
      budget.charge(tour.work);
      const bound = tour.value + demand.reduce((sum, want, item) => sum + prices[item]! * want, 0);
      gradient.forEach((_, item) => (gradient[item] = demand[item]! - tour.collected[item]!));
      const coversOrder = covers.holdsEveryDemand(tour.passed, node.forbidden);
      if (coversOrder && tour.length < incumbent.distance) incumbent.offer(tour.passed);
      else if (!coversOrder && step % COMPLETE_EVERY === 0) this.completeOnce(tour.passed);
      if (bound > bestBound + 1e-9) {
        [bestBound, sinceBetter] = [bound, 0];
        bestPrices.set(prices);
        bestPassed.set(tour.passed);
        bestCollected.set(tour.collected);
      } else if (++sinceBetter >= STALL_STEPS) {
        [scale, sinceBetter] = [scale / 2, 0];
        if (++halvings >= MAX_HALVINGS) {
          // The prices have done what they can: at the first node, when the bound is near the
          // incumbent, track the items the best tour is paid for too often and go on from its prices.
          const near = incumbent.distance - incumbent.roundUp(bestBound) <= TRACKING_GAP * incumbent.distance;
          const more = tracking && near ? this.moreTracked(tracked, bestCollected) : tracked;
          if (more.length === tracked.length) break;
          untracked ??= { prices: Float64Array.from(bestPrices), passed: Uint8Array.from(bestPassed) };
          [tracked, halvings, scale, steps] = [more, 0, 2, step + steps];
          prices.set(bestPrices);
          continue;
        }
      }
      if (bestBound > incumbent.boundLimit()) return 'pruned';
      const norm = gradient.reduce((sum, g) => sum + g * g, 0);
      if (norm === 0) return 'pruned';
      const length = (scale * (incumbent.distance - bound)) / norm;
      prices.forEach((price, item) => (prices[item] = Math.max(0, price + length * gradient[item]!)));
    }
    return untracked ?? { prices: bestPrices, passed: bestPassed };
  }

  /**
   * Completes the places a tour passed into a cover and offers it, unless the same places were
   * completed before: the greedy construction would give the same cover, already kept or beaten
   * (and its walks are remembered, so the work counted is the same either way).
   */
  private completeOnce(passed: Uint8Array): void {
    const key = passed.join('');
    if (this.completed.has(key)) return;
    this.completed.add(key);
    const { covers, incumbent } = this.context;
    incumbent.offer(covers.completeGreedily(passed, incumbent));
  }

  /**
   * The tracked items and, most paid for beyond its demand first, those the tour is paid for
   * beyond their demand, as long as the tracked units' combinations stay few.
   */
  private moreTracked(tracked: number[], collected: Float64Array): number[] {
    const { demand } = this.context.problem;
    const excess = (item: number) => (collected[item]! - demand[item]!) / demand[item]!;
    const candidates = demand.map((_, item) => item).filter((item) => excess(item) > 1e-9 && !tracked.includes(item));
    const more = [...tracked];
    let combinations = tracked.reduce((product, item) => product * (demand[item]! + 1), 1);
    for (const item of candidates.sort((a, b) => excess(b) - excess(a))) {
      if (combinations * (demand[item]! + 1) > TRACKED_COMBINATIONS) continue;
      combinations *= demand[item]! + 1;
      more.push(item);
    }
    return more;
  }
}
