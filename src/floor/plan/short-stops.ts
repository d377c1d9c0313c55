import type { ItemSlot, Location } from './items';
import type { Layout, Place } from './layout';
import { legsOf } from './progress';

/** Units a short pick left missing, taken at one slot, and where its stop goes on the rest of the route. */
export interface MissingUnitsStop<L extends Location> {
  slot: L;
  quantity: number;
  /**
   * Its place in the rest of the route as the stops placed before it left it: the index of the stop
   * at the same location it joins (`joins`), else the index it is inserted at (the route's length:
   * after its last stop, before the depot).
   */
  at: number;
  joins: boolean;
}

type Leg = (from: Place | undefined, to: Place | undefined) => number;

/**
 * Where the units a short pick left missing are taken, by cheapest insertion: the picker stands at
 * `from` (the depot when undefined), with the stops of `rest` still to walk (in walking order, then back to the depot). The
 * slots of the first tier (pick faces) are chosen one at a time, each time the one whose stop
 * lengthens the rest of the walk least (ties: the slot with more units, then the lowest code), its
 * stop put where it adds least (a slot at a location of the rest joins that stop and adds nothing),
 * taking all it has up to what is still missing; then the next tier's (reserve), while units are
 * missing. The stops already on the route keep their order. Slots of no units are skipped; what no
 * slot covers is simply not placed. Work: stops × slots leg lengths per slot chosen.
 */
export function placeMissingUnits<L extends Location>(layout: Layout, from: Place | undefined, rest: readonly Location[], tiers: readonly (readonly ItemSlot<L>[])[], missing: number): MissingUnitsStop<L>[] {
  const leg = legsOf(layout);
  const route = [...rest];
  const placed: MissingUnitsStop<L>[] = [];
  let left = missing;
  for (const tier of tiers) {
    const open = tier.filter((slot) => slot.quantity > 0);
    while (left > 0 && open.length > 0) {
      let best: { index: number; cost: number; at: number; joins: boolean } | undefined;
      open.forEach((slot, index) => {
        const option = cheapestInsertion(leg, from, route, slot.place);
        const chosen = best && open[best.index]!;
        if (!best || !chosen || option.cost < best.cost || (option.cost === best.cost && (slot.quantity > chosen.quantity || (slot.quantity === chosen.quantity && slot.place.code < chosen.place.code)))) {
          best = { index, ...option };
        }
      });
      const [slot] = open.splice(best!.index, 1);
      const quantity = Math.min(slot!.quantity, left);
      placed.push({ slot: slot!.place, quantity, at: best!.at, joins: best!.joins });
      if (!best!.joins) route.splice(best!.at, 0, slot!.place);
      left -= quantity;
    }
  }
  return placed;
}

/** Where a stop at `place` adds least to the walk from `from` through `route` to the depot, and what it adds. */
function cheapestInsertion(leg: Leg, from: Place | undefined, route: readonly Location[], place: Location): { cost: number; at: number; joins: boolean } {
  const joined = route.findIndex((stop) => stop.code === place.code);
  if (joined >= 0) return { cost: 0, at: joined, joins: true };
  let best = { cost: Infinity, at: 0, joins: false };
  for (let at = 0; at <= route.length; at++) {
    const before = at === 0 ? from : route[at - 1];
    const after = route[at];
    const cost = leg(before, place) + leg(place, after) - leg(before, after);
    if (cost < best.cost) best = { cost, at, joins: false };
  }
  return best;
}
