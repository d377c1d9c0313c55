import { WORK_COST, type Budget } from './budget';
import { mulberry32 } from './random';
import type { SearchContext } from './search-context';
import { prepareCovering, shortestCoveringTour } from './walks/covering';

/*
 * Exact reinsertion: items taken out of the incumbent and put back where the walk is shortest
 * given every place it keeps, by the covering dynamic program over those items alone (the best
 * answer for them, exactly). The local improvement phase (local-search.ts) puts back each aisle's
 * items; the random reinsertion phase here, a large-neighbourhood search whose repair is exact,
 * a few items chosen at random, round after round.
 */

/** Steps the covering dynamic program may take when it puts a few items back. */
const REINSERT_STEPS = 500_000;
/** Rounds of random reinsertion at most (its budget may end them sooner). */
const RANDOM_ROUNDS = 300;
/** Combinations of units of the items put back at once in those rounds, at most: the covering program's states multiply by them. */
const RANDOM_COMBINATIONS = 256;
/** Neighbouring aisles whose items are put back at once in those rounds, at most. */
const RANDOM_AISLES = 3;
/** How far, in aisles, from a place of the incumbent the items put back with its own may lie. */
const RANDOM_REACH = 3;

/**
 * Drops the places that serve only `items` from the incumbent and covers those items again where
 * the walk is shortest, within the budget. Returns the work it spent before the covering program
 * ran, and the walk it may measure after: what another call needs at least.
 */
export function reinsertItems(context: SearchContext, items: readonly number[], budget: Budget): number {
  const { problem, floor, tours, covers, incumbent, noPrices } = context;
  const { stock } = problem;
  const walkCost = WORK_COST.walk[context.blocks - 1]!;
  const out = new Set(items);
  const required = new Uint8Array(stock.length);
  const kept = incumbent.places.filter((place) => !stock[place]!.every(({ item }) => out.has(item)));
  for (const place of kept) required[place] = 1;
  const { short, problem: residual } = covers.residual(floor!, items, required);
  if (short.length === 0) {
    incumbent.offer(kept);
    return walkCost;
  }
  const prepared = prepareCovering(residual);
  if (!prepared) return 0;
  const { byBoundary: toGo, work } = tours!.toGo(noPrices, required);
  const setup = work * WORK_COST.toGoStep + prepared.work * WORK_COST.coveringStep;
  budget.charge(setup);
  // What is left once the walk found is measured.
  const steps = Math.min(REINSERT_STEPS - prepared.work, (budget.left() - walkCost) / WORK_COST.coveringStep);
  if (steps <= 0) return setup + walkCost;
  const outcome = shortestCoveringTour(prepared, new Float64Array(short.length), toGo, { limit: incumbent.boundLimit(), budget: steps });
  budget.charge(outcome.work * WORK_COST.coveringStep);
  if (outcome.found) incumbent.offer([...new Set([...kept, ...outcome.places])]);
  return setup + walkCost;
}

/**
 * The random reinsertion phase: a few items of the incumbent are taken out and put back exactly
 * (`reinsertItems`), those it takes in one to three neighbouring aisles, or about half of those
 * it takes near one of its places. It shortens walks the large-neighbourhood search over places
 * leaves (whose repair is an estimate of the walk, this one the covering program).
 */
export function reinsertAtRandom(context: SearchContext, budget: Budget): void {
  const { problem, floor, incumbent } = context;
  if (!floor) return;
  const { places, stock, demand } = problem;
  const random = mulberry32(incumbent.distance);
  const pick = (count: number) => Math.floor(random() * count);
  /** The most a round has needed before its covering program ran: a round starts only with more than that left. */
  let reserve = 0;
  for (let round = 0; round < RANDOM_ROUNDS && budget.left() > reserve && !budget.pastDeadline() && incumbent.places.length > 0; round++) {
    const walk = incumbent.places;
    let takenOut: number[];
    if (random() < 0.5) {
      const aisles = [...new Set(walk.map((place) => places[place]!.aisle))].sort((a, b) => a - b);
      const first = pick(aisles.length);
      const chosen = new Set(aisles.slice(first, first + 1 + pick(RANDOM_AISLES)));
      takenOut = walk.filter((place) => chosen.has(places[place]!.aisle));
    } else {
      const aisle = places[walk[pick(walk.length)]!]!.aisle;
      takenOut = walk.filter((place) => Math.abs(places[place]!.aisle - aisle) <= RANDOM_REACH && random() < 0.5);
    }
    const items = [...new Set(takenOut.flatMap((place) => stock[place]!.map(({ item }) => item)))];
    // In random order, as many as the covering program's states allow.
    for (let i = items.length - 1; i > 0; i--) {
      const j = pick(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    const putBack: number[] = [];
    let combinations = 1;
    for (const item of items) {
      if (combinations * (demand[item]! + 1) > RANDOM_COMBINATIONS) continue;
      combinations *= demand[item]! + 1;
      putBack.push(item);
    }
    if (putBack.length > 0) reserve = Math.max(reserve, reinsertItems(context, putBack, budget));
  }
}
