import { aisleX, positionY, type Layout, type Place, type Policy } from './layout';
import { chooseScattered } from './scattered';
import { routePicks } from './walks';

/*
 * Routes for items kept at several places (the single picker routing problem with scattered
 * storage): which slots to take each item from, and the walk through them.
 */

/** A location on the layout: several may share a place (shelves one above the other). */
export interface Location extends Place {
  code: string;
  /**
   * For a slot of a lot: the lot held there, and the day it expires (YYYY-MM-DD; undefined when
   * unknown). A location holding several lots of a product is one Location per lot.
   */
  lot?: string | undefined;
  expiresOn?: string | undefined;
}

/** Units of one item at one location. */
export interface ItemSlot<L extends Location> {
  place: L;
  quantity: number;
}

/** An item to pick: how many units, and the slots it may be taken from. */
export interface ItemNeed<L extends Location> {
  item: string;
  quantity: number;
  slots: readonly ItemSlot<L>[];
}

export interface ItemPick {
  item: string;
  quantity: number;
}

/** A place the walk stops at, and what to take there. */
export interface ItemStop<L extends Location> {
  place: L;
  picks: ItemPick[];
}

export interface ItemRoute<L extends Location> {
  /** Length of the walk, depot to depot. */
  distance: number;
  /** Whether `distance` is proven the shortest over every choice of slots that covers the quantities. */
  exact: boolean;
  /** In walking order; every slot taken from once. */
  stops: ItemStop<L>[];
  /** What the slots cannot cover, by item. */
  short: ItemPick[];
}

/**
 * The walk that picks every need: under `optimal` the shortest over every choice of slots that
 * covers the quantities (proven, or the best found within the search's allowance); under the
 * other policies the slots nearest the depot (by walking distance) that cover each need, then
 * the policy's walk through them. What the slots cannot cover is short, and all of them are taken.
 */
export function routeItems<L extends Location>(layout: Layout, needs: readonly ItemNeed<L>[], policy: Policy): ItemRoute<L> {
  if (policy !== 'optimal') return nearestItemsRoute(layout, needs, policy);
  const problem = scatteredProblem(layout, needs);
  const choice = chooseScattered(problem);
  const walk = routePicks(layout, choice.places.map((place) => problem.places[place]!), 'optimal');
  const left = new Map(problem.needs.map((need) => [need.item, need.quantity]));
  const picks = walk.stops.flatMap((place) =>
    problem.slotsAt.get(placeKey(place))!.flatMap(({ need, slot }) => {
      const take = Math.min(slot.quantity, left.get(need.item)!);
      if (take <= 0) return [];
      left.set(need.item, left.get(need.item)! - take);
      return [{ aisle: place.aisle, position: place.position, slot: slot.place, item: need.item, quantity: take }];
    }),
  );
  return { distance: walk.distance, exact: choice.exact && walk.exact, stops: stopsOf(picks), short: problem.short };
}

/**
 * Each need taken from its slots nearest the depot (by walking distance), then the policy's walk
 * through them: quick on any floor, and never proven shortest over the choice of slots.
 */
export function nearestItemsRoute<L extends Location>(layout: Layout, needs: readonly ItemNeed<L>[], policy: Policy): ItemRoute<L> {
  const { chosen, short } = nearestSlots(layout, needs);
  const { distance, stops } = routePicks(layout, chosen, policy);
  return { distance, exact: false, stops: stopsOf(stops), short };
}

/** The needs as places holding units of items; a need its slots cannot cover takes them all and is short of the rest. */
export function scatteredProblem<L extends Location>(layout: Layout, given: readonly ItemNeed<L>[]) {
  const short: ItemPick[] = [];
  const needs = given.flatMap((need) => {
    const slots = need.slots.filter((slot) => slot.quantity > 0);
    const held = slots.reduce((sum, slot) => sum + slot.quantity, 0);
    if (held < need.quantity) short.push({ item: need.item, quantity: need.quantity - held });
    const quantity = Math.min(need.quantity, held);
    return quantity > 0 ? [{ item: need.item, quantity, slots }] : [];
  });
  const places: Place[] = [];
  const stock: { item: number; units: number }[][] = [];
  const slotsAt = new Map<string, { need: (typeof needs)[number]; slot: ItemSlot<L> }[]>();
  const indexOf = new Map<string, number>();
  needs.forEach((need, item) => {
    for (const slot of need.slots) {
      const key = placeKey(slot.place);
      if (!indexOf.has(key)) {
        indexOf.set(key, places.length);
        slotsAt.set(key, []);
        places.push({ aisle: slot.place.aisle, position: slot.place.position });
        stock.push([]);
      }
      slotsAt.get(key)!.push({ need, slot });
      const at = stock[indexOf.get(key)!]!;
      const units = at.find((entry) => entry.item === item);
      if (units) units.units = Math.min(need.quantity, units.units + slot.quantity);
      else at.push({ item, units: Math.min(need.quantity, slot.quantity) });
    }
  });
  return { places, stock, demand: needs.map((need) => need.quantity), layout, needs, slotsAt, short };
}

function placeKey(place: Place): string {
  return `${place.aisle}:${place.position}`;
}

interface ChosenSlot<L extends Location> extends Place {
  slot: L;
  item: string;
  quantity: number;
}

/** The shortest walk from the depot to a place: along the front cross aisle, then up the aisle. */
export function fromDepot(layout: Layout, place: Place): number {
  return Math.abs(aisleX(layout, place.aisle) - aisleX(layout, layout.depotAisle)) + positionY(layout, place.position);
}

/** Each need covered from its slots nearest the depot; what they cannot cover is short. */
export function nearestSlots<L extends Location>(layout: Layout, needs: readonly ItemNeed<L>[]) {
  const away = (place: Place) => fromDepot(layout, place);
  const chosen: ChosenSlot<L>[] = [];
  const short: ItemPick[] = [];
  for (const need of needs) {
    let left = need.quantity;
    for (const slot of [...need.slots].filter((s) => s.quantity > 0).sort((a, b) => away(a.place) - away(b.place))) {
      if (left <= 0) break;
      const take = Math.min(left, slot.quantity);
      chosen.push({ aisle: slot.place.aisle, position: slot.place.position, slot: slot.place, item: need.item, quantity: take });
      left -= take;
    }
    if (left > 0) short.push({ item: need.item, quantity: left });
  }
  return { chosen, short };
}

/** Consecutive picks at one location (and lot) become one stop. */
function stopsOf<L extends Location>(picks: readonly ChosenSlot<L>[]): ItemStop<L>[] {
  const stops: ItemStop<L>[] = [];
  for (const pick of picks) {
    const last = stops[stops.length - 1];
    if (last && last.place.code === pick.slot.code && last.place.lot === pick.slot.lot) last.picks.push({ item: pick.item, quantity: pick.quantity });
    else stops.push({ place: pick.slot, picks: [{ item: pick.item, quantity: pick.quantity }] });
  }
  return stops;
}
