import type { Budget } from './budget';
import { fewCombinationsLeft, proveByCovering, type RootBound } from './covering-proof';
import { LagrangianBound, type BranchNode } from './lagrangian';
import { improveLocally } from './local-search';
import type { SearchContext } from './search-context';

/*
 * The proof phase: branch and bound (a subaisle walked into or not used, then a place visited or
 * not used), each node bounded by its Lagrangian bound (lagrangian.ts) after variable fixing; where
 * branching does not close the gap within its part of the phase, the covering dynamic program
 * (covering-proof.ts) may. Where the units to take have few combinations, that program is asked
 * first: unpriced before any bound, or priced once the first node has fixed what it can.
 */

/** Subgradient steps at the first node, and at every node after. */
const ROOT_STEPS = 150;
const NODE_STEPS = 30;
/** The parts of the phase's allowance branching, and the first node's tracked tours, may spend (the covering program has the rest). */
const BRANCHING_SHARE = 8 / 15;
const TRACKING_SHARE = 2 / 3;

/** True when the incumbent is proven shortest within the budget. */
export function prove(context: SearchContext, budget: Budget): boolean {
  const { problem, floor, noPrices } = context;
  if (!floor) return false;
  const all = problem.places.length;
  const first: BranchNode = { required: new Uint8Array(all), forbidden: new Uint8Array(all), entered: new Uint8Array(floor.aisles * (floor.crossYs.length - 1)), prices: new Float64Array(problem.demand.length) };
  if (fewCombinationsLeft(context, first.required) && proveByCovering(context, { prices: noPrices, required: first.required, entered: first.entered }, budget)) return true;
  const branching = budget.upTo(BRANCHING_SHARE);
  const bounds = new LagrangianBound(context, { proof: budget, tracking: budget.upTo(TRACKING_SHARE) });
  const stack = [first];
  /** The first node's prices, and the places and subaisles every cover visits: what bounds the covering dynamic program. */
  let rootBound: RootBound | undefined;
  let coveringAsked = false;
  let outOfWork = false;
  while (stack.length > 0 && !branching.exhausted()) {
    const node = stack.pop()!;
    if (!fixVariables(context, node)) continue;
    const root = node === first;
    const bound = bounds.raise(node, { steps: root ? ROOT_STEPS : NODE_STEPS, tracking: root });
    if (bound === 'out of work') {
      outOfWork = true;
      break;
    }
    if (bound === 'pruned') continue;
    if (root) {
      rootBound = { prices: bound.prices, required: node.required, entered: node.entered };
      improveLocally(context, budget);
      if (fewCombinationsLeft(context, node.required)) {
        coveringAsked = true;
        if (proveByCovering(context, rootBound, budget)) return true;
      }
    }
    stack.push(...branch(context, node, bound));
  }
  if (stack.length === 0 && !outOfWork) return true;
  // Branching has not settled it: the covering dynamic program, bounded by what the first node knows, may.
  return rootBound !== undefined && !coveringAsked && !outOfWork && !budget.pastDeadline() && proveByCovering(context, rootBound, budget);
}

/**
 * Variable fixing at a node: marks the places every cover left to it must visit, and the
 * subaisles it must walk into (an item has too few units outside them); false when no cover is left.
 */
function fixVariables(context: SearchContext, node: BranchNode): boolean {
  const { problem, subaisleOf } = context;
  const { stock, demand } = problem;
  const items = demand.length;
  const capacity = new Float64Array(items);
  // By subaisle and item: the units its places open at the node hold.
  const held = new Float64Array(node.entered.length * items);
  stock.forEach((here, place) => {
    if (node.forbidden[place]) return;
    for (const { item, units } of here) {
      capacity[item]! += units;
      held[subaisleOf[place]! * items + item]! += units;
    }
  });
  if (demand.some((want, item) => capacity[item]! < want)) return false;
  stock.forEach((here, place) => {
    if (!node.forbidden[place] && here.some(({ item, units }) => capacity[item]! - units < demand[item]!)) node.required[place] = 1;
  });
  held.forEach((units, at) => {
    const item = at % items;
    if (units > 0 && capacity[item]! - units < demand[item]!) node.entered[Math.floor(at / items)] = 1;
  });
  return true;
}

/** The node's two children, the one to search first last; none when there is nothing left to decide. */
function branch(context: SearchContext, node: BranchNode, { prices, passed }: { prices: Float64Array; passed: Uint8Array }): BranchNode[] {
  const subaisle = branchingSubaisle(context, node, passed, prices);
  if (subaisle !== undefined) {
    const closed = childOf(node, prices);
    closed.entered[subaisle] = 2;
    context.subaisleOf.forEach((at, place) => at === subaisle && (closed.forbidden[place] = 1));
    const walkedIn = childOf(node, prices);
    walkedIn.entered[subaisle] = 1;
    return [closed, walkedIn];
  }
  const place = branchingPlace(context, node, passed, prices);
  if (place === undefined) return [];
  const without = childOf(node, prices);
  without.forbidden[place] = 1;
  const withIt = childOf(node, prices);
  withIt.required[place] = 1;
  return [without, withIt];
}

/** A child of the node, with its own copies of what variable fixing and branching mark. */
function childOf(node: BranchNode, prices: Float64Array): BranchNode {
  return { required: Uint8Array.from(node.required), forbidden: Uint8Array.from(node.forbidden), entered: Uint8Array.from(node.entered), prices: Float64Array.from(prices) };
}

/**
 * A subaisle to branch on (walked into, or unused): of those still open that the bound's tour
 * walks into, the one where it collects the most. Deciding subaisles first splits the walks far
 * more evenly than deciding single places.
 */
function branchingSubaisle(context: SearchContext, node: BranchNode, passed: Uint8Array, prices: Float64Array): number | undefined {
  const { problem, subaisleOf } = context;
  const collected = new Float64Array(node.entered.length);
  passed.forEach((flag, place) => {
    if (!flag || node.forbidden[place] || node.entered[subaisleOf[place]!]) return;
    for (const { item, units } of problem.stock[place]!) collected[subaisleOf[place]!]! += prices[item]! * units;
  });
  let choice: number | undefined;
  collected.forEach((value, subaisle) => {
    if (value > 0 && (choice === undefined || value > collected[choice]!)) choice = subaisle;
  });
  return choice;
}

/** A place to branch on: one of the least covered item's, in the incumbent if it can be. */
function branchingPlace(context: SearchContext, node: BranchNode, passed: Uint8Array, prices: Float64Array): number | undefined {
  const { problem, covers, incumbent } = context;
  const { demand, stock } = problem;
  const covered = new Float64Array(demand.length);
  passed.forEach((flag, place) => {
    if (flag && !node.forbidden[place]) for (const { item, units } of stock[place]!) covered[item]! += units;
  });
  const open = (place: number) => !node.required[place] && !node.forbidden[place];
  const inIncumbent = new Set(incumbent.places);
  let choice: number | undefined;
  let worst = 0;
  for (let item = 0; item < demand.length; item++) {
    const missing = (demand[item]! - covered[item]!) / demand[item]!;
    if (missing <= worst) continue;
    const places = stock.flatMap((here, place) => (open(place) && here.some((s) => s.item === item) ? [place] : []));
    if (places.length === 0) continue;
    worst = missing;
    choice = places.find((place) => inIncumbent.has(place)) ?? places.reduce((a, b) => (covers.reach(a) <= covers.reach(b) ? a : b));
  }
  if (choice !== undefined) return choice;
  // Every demand covered yet the bound is short of the incumbent: decide a place the tour used most dearly.
  let dearest = -1;
  passed.forEach((flag, place) => {
    if (!flag || !open(place)) return;
    const value = stock[place]!.reduce((sum, { item, units }) => sum + prices[item]! * units, 0);
    if (choice === undefined || value > dearest) [choice, dearest] = [place, value];
  });
  return choice;
}
