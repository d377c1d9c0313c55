import { Budget } from './budget';
import { searchNeighbourhoods } from './cover-search';
import type { ScatteredProblem } from './covers';
import { searchNarrowerFloors } from './narrower';
import { runPhases, type Phase } from './phases';
import { prove } from './proof';
import { reinsertAtRandom } from './reinsertion';
import { SearchContext } from './search-context';

/*
 * Which places to take items from when each item stands at several (the single picker routing
 * problem with scattered storage), so that the walk through them is shortest: a table of phases,
 * each run within its share of the allowance left when it starts, so that the search never spends
 * more than its allowance. docs/routing.md describes each phase, with its measured gain, and maps
 * the field's terms to the code. Beyond two blocks only the large-neighbourhood search runs, and
 * nothing is proven.
 */

export interface ScatteredChoice {
  /** Indexes of the places to visit. */
  places: number[];
  /** Length of the shortest walk through them. */
  distance: number;
  /** Whether no choice of places that covers the demands has a shorter walk. */
  exact: boolean;
  /** Work units spent: never more than the allowance. */
  work: number;
}

/**
 * The allowance: work the search may spend, in work units (transitions of the collecting tour,
 * the other steps counted at what they cost next to one: `WORK_COST`). A count, not a clock, so
 * that a route is the same on every run; what it takes in time is in docs/benchmarks.md.
 */
export const SEARCH_WORK = 50_000_000;

/** The phases in order, each with its share of what is left of the allowance when it starts. */
export const PHASES: readonly Phase[] = [
  {
    name: 'proof',
    purpose: 'branch and bound with the Lagrangian bound, and the covering dynamic program: proves the incumbent shortest',
    share: 0.57,
    run: prove,
  },
  {
    name: 'narrower floors',
    purpose: 'the phases above again without the aisles the incumbent reaches farthest',
    share: 0.4,
    run: searchNarrowerFloors,
  },
  {
    name: 'large-neighbourhood search',
    purpose: 'ruin and recreate over the choice of places, from the incumbent and from the greedy cover',
    share: 0.5,
    run: searchNeighbourhoods,
  },
  {
    name: 'random exact reinsertion',
    purpose: 'a few items chosen at random put back by the covering dynamic program, round after round',
    share: 1,
    run: reinsertAtRandom,
  },
];

/** The shortest walk the phases find within `work`, proven or not; `phases` may leave some out (to measure them). */
export function chooseScattered(problem: ScatteredProblem, work = SEARCH_WORK, phases: readonly Phase[] = PHASES): ScatteredChoice {
  const budget = Budget.of(work);
  const context = new SearchContext(problem, budget);
  const exact = runPhases(context, phases, budget);
  return { places: context.incumbent.places, distance: context.incumbent.distance, exact, work: budget.spent };
}
