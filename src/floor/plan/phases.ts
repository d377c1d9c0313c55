import type { Budget } from './budget';
import type { SearchContext } from './search-context';

/** A phase of the search for items at several places (the table is `PHASES` in scattered.ts). */
export interface Phase {
  name: string;
  /** What it is for, in a line. */
  purpose: string;
  /** Its share of the allowance left when it starts (the last phase run takes all that is left). */
  share: number;
  /** Runs the phase within `budget`; true when it proves the incumbent shortest. `earlier`: the phases before it. */
  run(context: SearchContext, budget: Budget, earlier: readonly Phase[]): boolean | void;
}

/**
 * Runs the phases in order, each within its share of what is left of the budget, until one proves
 * the incumbent shortest (true). The first walk, a greedy cover, is built at the start of the first
 * phase and charged to it. Past the deadline, the phases after the first do not start: the
 * incumbent is the answer.
 */
export function runPhases(context: SearchContext, phases: readonly Phase[], budget: Budget): boolean {
  for (const [index, phase] of phases.entries()) {
    if (index > 0 && budget.pastDeadline()) break;
    const share = budget.share(index === phases.length - 1 ? 1 : phase.share);
    context.greedy();
    if (phase.run(context, share, phases.slice(0, index))) return true;
  }
  context.greedy();
  return false;
}
