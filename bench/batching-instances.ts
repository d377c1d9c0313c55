import type { PoolOrder } from '../src/floor/plan/cart-plan';
import type { Layout, Place } from '../src/floor/plan/layout';
import { shortestRouteLength } from '../src/floor/plan/walks';
import { mulberry32 } from '../src/floor/plan/random';

/**
 * Order-batching instances in the shape of Henn & Wäscher's (EJOR 222, 2012): one block of 10
 * aisles of 45 pick positions (both sides of an aisle are picked from its centre line), the depot
 * at the front of the first aisle; aisles 5 apart, positions 1 apart, the front and back cross
 * aisles 1.5 beyond the first and last position. Orders of 5 to 25 items, uniformly; every item at
 * its own draw of a position (units = items); carts of 30, 45, 60 or 75 items and no limit on
 * orders.
 */
export const HW_LAYOUT: Layout = { aisles: 10, positionsPerAisle: 45, aisleSpacing: 5, positionSpacing: 1, crossAisleOffset: 1.5, depotAisle: 1 };
export const CAPACITIES = [30, 45, 60, 75] as const;

/**
 * How an item's position is drawn: `uniform` over all positions; `class-based` as Henn & Wäscher's
 * ABC demand: 52% of items in the first aisle (class A, 10% of the positions), 36% in aisles 2 to
 * 4 (class B, 30%), 12% in aisles 5 to 10 (class C, 60%), uniformly within a class.
 */
export type Demand = 'uniform' | 'class-based';
export const DEMANDS: readonly Demand[] = ['uniform', 'class-based'];

const CLASSES = [
  { share: 0.52, firstAisle: 1, lastAisle: 1 },
  { share: 0.36, firstAisle: 2, lastAisle: 4 },
  { share: 0.12, firstAisle: 5, lastAisle: 10 },
];

/** `orders` orders, all equally urgent (the instances know no due dates), ids o0, o1, ... */
export function batchingInstance(orders: number, demand: Demand, seed: number): PoolOrder[] {
  const random = mulberry32(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const place = (): Place => {
    if (demand === 'uniform') return { aisle: between(1, HW_LAYOUT.aisles), position: between(1, HW_LAYOUT.positionsPerAisle) };
    let draw = random();
    const chosen = CLASSES.find((entry) => (draw -= entry.share) < 0) ?? CLASSES[CLASSES.length - 1]!;
    return { aisle: between(chosen.firstAisle, chosen.lastAisle), position: between(1, HW_LAYOUT.positionsPerAisle) };
  };
  return Array.from({ length: orders }, (_, i) => {
    const items = between(5, 25);
    return { id: `o${i}`, units: items, urgency: 0, places: Array.from({ length: items }, place) };
  });
}

/**
 * The least total walk of any partition of `pool` into carts of at most `capacity` units (no
 * limit on orders), exactly: every feasible cart is routed exactly, then a dynamic program over
 * the subsets of the pool, f(S) = least over feasible carts C holding the order of fewest units
 * in S, C ⊆ S, of walk(C) + f(S \ C), in increasing order of S. Orders are numbered by units, so
 * that a cart stops growing at the first order that does not fit. For pools of about 20 orders.
 */
export function optimalBatchingDistance(layout: Layout, pool: readonly PoolOrder[], capacity: number): number {
  const orders = [...pool].sort((a, b) => a.units - b.units);
  const n = orders.length;
  if (n > 24) throw new RangeError('the exact optimum is for small pools');
  if (orders.some((order) => order.units > capacity)) throw new RangeError('every order must fit in a cart');
  const walk = new Float64Array(1 << n).fill(Infinity);
  const route = (cart: number, next: number, units: number, places: Place[]) => {
    walk[cart] = shortestRouteLength(layout, places);
    for (let j = next; j < n && units + orders[j]!.units <= capacity; j++) route(cart | (1 << j), j + 1, units + orders[j]!.units, [...places, ...orders[j]!.places]);
  };
  for (let i = 0; i < n; i++) route(1 << i, i + 1, orders[i]!.units, orders[i]!.places);

  const least = new Float64Array(1 << n);
  let best = Infinity;
  let set = 0;
  // Carts within `rest` that hold the set's first order `cart`, each scored against what is left.
  const tryCarts = (cart: number, rest: number, next: number, units: number) => {
    best = Math.min(best, walk[cart]! + least[set ^ cart]!);
    for (let j = next; j < n && units + orders[j]!.units <= capacity; j++) {
      if (rest & (1 << j)) tryCarts(cart | (1 << j), rest, j + 1, units + orders[j]!.units);
    }
  };
  for (set = 1; set < 1 << n; set++) {
    const first = 31 - Math.clz32(set & -set);
    best = Infinity;
    tryCarts(1 << first, set, first + 1, orders[first]!.units);
    least[set] = best;
  }
  return least[(1 << n) - 1]!;
}

/**
 * A lower bound of any partition's walk: a cart walks at least the route of each of its orders.
 * With the orders by their own route, longest first, r1 ≥ r2 ≥ ..., the first k need at least
 * ⌈their units / capacity⌉ carts, so at least t carts hold an order of route ≥ r(k_t), k_t the
 * least k needing t carts; the carts' walks add up to at least the sum of r(k_t) over t.
 */
export function batchingLowerBound(layout: Layout, pool: readonly PoolOrder[], capacity: number): number {
  const orders = pool.map((order) => ({ units: order.units, route: shortestRouteLength(layout, order.places) })).sort((a, b) => b.route - a.route);
  let [bound, units, carts] = [0, 0, 0];
  for (const { units: own, route } of orders) {
    units += own;
    while (carts < Math.ceil(units / capacity)) {
      carts++;
      bound += route;
    }
  }
  return bound;
}
