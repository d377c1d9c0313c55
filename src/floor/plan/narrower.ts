import type { Budget } from './budget';
import { runPhases, type Phase } from './phases';
import { SearchContext } from './search-context';

/*
 * The narrower-floors phase, a restricted search on sub-floors: a walk that reaches far for a few
 * items settles its other items around that reach, and moves from it keep reaching there. On each
 * side of the depot, the phases before this one run again on the floor without the aisles from the
 * incumbent's outermost one outwards (then from its second outermost), and a shorter walk found
 * there is offered to the incumbent.
 */

/** Aisles left out on each side of the depot: from the incumbent's outermost one, then from its second outermost. */
const OUTERMOST = 2;

export function searchNarrowerFloors(context: SearchContext, budget: Budget, earlier: readonly Phase[]): void {
  const { problem, covers, incumbent } = context;
  if (!context.floor) return;
  const { places, stock, layout } = problem;
  const aisles = [...new Set(incumbent.places.map((place) => places[place]!.aisle))].sort((a, b) => a - b);
  const left = aisles.filter((aisle) => aisle < layout.depotAisle);
  const right = aisles.filter((aisle) => aisle > layout.depotAisle).reverse();
  const leftOut: ((aisle: number) => boolean)[] = [];
  for (let count = 1; count <= OUTERMOST; count++) {
    if (count <= left.length) leftOut.push((aisle) => aisle <= left[count - 1]!);
    if (count <= right.length) leftOut.push((aisle) => aisle >= right[count - 1]!);
  }
  // The narrower floors whose places still hold every demand, each with an equal part of what is left.
  const floors = leftOut.map((out) => places.flatMap((place, index) => (out(place.aisle) ? [] : [index]))).filter((kept) => covers.holdsEveryDemand(kept));
  floors.forEach((kept, index) => {
    if (budget.exhausted()) return;
    const part = budget.share(1 / (floors.length - index));
    const narrower = new SearchContext({ ...problem, places: kept.map((place) => places[place]!), stock: kept.map((place) => stock[place]!) }, part);
    runPhases(narrower, earlier, part);
    incumbent.offer(narrower.incumbent.places.map((place) => kept[place]!));
  });
}
