import { WORK_COST, type Budget } from './budget';
import type { SearchContext } from './search-context';
import { CollectingTours, type TrackedValuesToGo } from './walks/collecting';
import { prepareCovering, shortestCoveringTour, type CoveringProblem } from './walks/covering';

/*
 * The proof by the covering dynamic program (walks/covering.ts): the dynamic program over aisles
 * with what has been taken in its state (a labelling algorithm), bounded by completion bounds
 * (values to go) worked out backwards from the first node's Lagrangian prices.
 */

/** What the first node of branch and bound knows: its prices, and the places and subaisles every cover visits. */
export interface RootBound {
  prices: Float64Array;
  required: Uint8Array;
  entered: Uint8Array;
}

/**
 * Combinations of units of the items each table of values to go covers exactly, at most, table
 * by table, on one block and on two: the first takes the dearest items, each next the dearest of
 * the rest. Two blocks have many more frontier states, which each combination multiplies.
 */
const COVERED_COMBINATIONS = [[256, 128, 128], [16]];
/**
 * Combinations of units still to take at most for the covering dynamic program to be asked before
 * branching: up to here it settled every benchmark route, on both floors, well within the proof's
 * share (docs/benchmarks.md).
 */
const DIRECTLY_COVERED = 4096;
/** The share of the proof's allowance the tables of values to go that cover a few items exactly may cost at most, all of them. */
const TABLES_SHARE = 0.4;
/** The beam search's part of what is left to the covering program, and the labels it keeps past each aisle. */
const BEAM_PART = 0.1;
const BEAM = 1000;

/** Whether the units the `required` places leave to take have at most `DIRECTLY_COVERED` combinations. */
export function fewCombinationsLeft(context: SearchContext, required: Uint8Array): boolean {
  const { demand } = context.covers.residual(context.floor!, context.problem.demand.map((_, item) => item), required).problem;
  return demand.reduce((product, want) => product * (want + 1), 1) <= DIRECTLY_COVERED;
}

/**
 * The covering dynamic program bounded by the prices given (the first node's, or none): true
 * when it settles the shortest walk (finding a shorter one than the incumbent or proving there is
 * none) within the budget. The places every cover visits are required of it, and its values to go
 * walk into the subaisles every cover walks into: they then count the walk there, which is most of
 * the bound where an item has too few units elsewhere.
 */
export function proveByCovering(context: SearchContext, { prices, required, entered }: RootBound, budget: Budget): boolean {
  const { floor, covers, incumbent, problem } = context;
  const { short, problem: residual } = covers.residual(floor!, problem.demand.map((_, item) => item), required);
  // The required places alone hold every demand: no cover is shorter than theirs.
  if (short.length === 0) {
    incumbent.offer(required);
    return true;
  }
  const prepared = prepareCovering(residual);
  if (!prepared) return false;
  // The values to go of what is left: the required places' units are not paid for again.
  const shortPrices = Float64Array.from(short, (item) => prices[item]!);
  const { byBoundary: toGo, work } = new CollectingTours(floor!, residual).toGo(shortPrices, required, entered);
  budget.charge(work * WORK_COST.toGoStep + prepared.work * WORK_COST.coveringStep);
  const priced = shortPrices.some((price) => price > 0);
  // With no price on any item none is dearer than another: tables over a few taken at random cost more than they prune.
  const tables = priced ? tablesCoveringExactly(context, residual, { prices: shortPrices, required, entered }, budget) : [];
  const steps = () => budget.left() / WORK_COST.coveringStep;
  // Priced, a beam search first, for a shorter walk to prune the full run by (both work on the
  // same passes). Unpriced, a partial tour's bound is little more than its length, so the beam
  // keeps nearly any labels, and costs more than it saves.
  if (priced) {
    const quick = shortestCoveringTour(prepared, shortPrices, toGo, { limit: incumbent.boundLimit(), budget: steps() * BEAM_PART, beam: BEAM, tracked: tables });
    budget.charge(quick.work * WORK_COST.coveringStep);
    if (quick.found) incumbent.offer(quick.places);
  }
  const outcome = shortestCoveringTour(prepared, shortPrices, toGo, { limit: incumbent.boundLimit(), budget: steps(), tracked: tables });
  budget.charge(outcome.work * WORK_COST.coveringStep);
  if (outcome.found) incumbent.offer(outcome.places);
  return outcome.found || outcome.proven;
}

/**
 * Completion bounds that cover a few items exactly, a table for each few: the first table's items
 * those of dearest price, as many as keep their combinations of units few, each next table's the
 * dearest of the rest, each unit priced at the incumbent's length, so that a partial tour's rest
 * must take what it still lacks of them; the other items keep their prices. Prices however high
 * still give a bound, and covering some items outright closes much of the gap that pricing them
 * leaves; a label is bounded by the largest of the tables'. Tables stop when they would cost more
 * than their share of the proof's allowance or than the covering program has left.
 */
function tablesCoveringExactly(context: SearchContext, problem: CoveringProblem, { prices, required, entered }: RootBound, budget: Budget): TrackedValuesToGo[] {
  const { demand } = problem;
  const byPrice = demand.map((_, item) => item).sort((a, b) => prices[b]! - prices[a]!);
  const covered = new Set<number>();
  const tables: TrackedValuesToGo[] = [];
  // Never more than the covering program has left: what the tables spend, the program cannot.
  const tablesBudget = budget.next(TABLES_SHARE * budget.allowance);
  for (const most of COVERED_COMBINATIONS[context.blocks - 1]!) {
    const items: number[] = [];
    let combinations = 1;
    for (const item of byPrice) {
      if (covered.has(item) || combinations * (demand[item]! + 1) > most) continue;
      combinations *= demand[item]! + 1;
      items.push(item);
      covered.add(item);
    }
    if (items.length === 0) break;
    // Each table covers its own items; those of the tables before it keep their prices.
    const tablePrices = Float64Array.from(prices, (price, item) => (items.includes(item) ? context.incumbent.distance : price));
    const allowed = tablesBudget.left();
    if (allowed <= 0) break;
    const found = new CollectingTours(context.floor!, problem).trackedToGo(tablePrices, items, required, { entered, budget: allowed, counted: prices });
    tablesBudget.charge(found?.work ?? allowed);
    if (!found) break;
    tables.push(found);
  }
  return tables;
}
