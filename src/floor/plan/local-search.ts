import type { Budget } from './budget';
import { reinsertItems } from './reinsertion';
import type { SearchContext } from './search-context';

/*
 * The local improvement phase: ruin and recreate by aisle, then exact reinsertion of each aisle's
 * items (reinsertion.ts), each repeated while it shortens the incumbent. The proof phase runs it
 * after its first bound too.
 */

/** Rounds of ruin and recreate, and of exact reinsertion by aisle, at most. */
const ROUNDS = 3;
/** Items put back at once at most: the covering dynamic program's states double with each. */
const REINSERTED_AT_MOST = 10;

export function improveLocally(context: SearchContext, budget: Budget): void {
  if (!context.floor) return;
  ruinAndRecreate(context, budget);
  reinsertByAisle(context, budget);
}

/**
 * Ruin and recreate: for each aisle the incumbent takes from, its places are left out and the
 * demands covered again greedily from elsewhere.
 */
function ruinAndRecreate(context: SearchContext, budget: Budget): void {
  const { problem, covers, incumbent } = context;
  const { places } = problem;
  for (let round = 0; round < ROUNDS; round++) {
    const before = incumbent.distance;
    for (const aisle of new Set(incumbent.places.map((place) => places[place]!.aisle))) {
      if (budget.exhausted()) return;
      const kept = new Uint8Array(places.length);
      for (const place of incumbent.places) if (places[place]!.aisle !== aisle) kept[place] = 1;
      incumbent.offer(covers.completeGreedily(kept, incumbent, aisle));
    }
    if (incumbent.distance >= before) return;
  }
}

/**
 * Exact reinsertion by aisle: the items the incumbent takes in each aisle (up to ten) are taken
 * out and put back where the walk is shortest given the rest.
 */
function reinsertByAisle(context: SearchContext, budget: Budget): void {
  const { problem, incumbent } = context;
  for (let round = 0; round < ROUNDS; round++) {
    const before = incumbent.distance;
    const byAisle = new Map<number, Set<number>>();
    for (const place of incumbent.places) {
      const aisle = problem.places[place]!.aisle;
      const items = byAisle.get(aisle) ?? byAisle.set(aisle, new Set()).get(aisle)!;
      for (const { item } of problem.stock[place]!) items.add(item);
    }
    for (const items of byAisle.values()) {
      if (budget.exhausted()) return;
      if (items.size <= REINSERTED_AT_MOST) reinsertItems(context, [...items], budget);
    }
    if (incumbent.distance >= before) return;
  }
}
