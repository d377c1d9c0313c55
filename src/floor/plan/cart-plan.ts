import { chooseWave, type WaveCandidate, type WaveLimits } from './batching';
import { CartSearch, leftBehind } from './cart-search';
import type { Layout } from './layout';
import { shortestRouteLength } from './walks';

/** An order of the pool: where its lines stand, its units, and how urgent it is. */
export interface PoolOrder extends WaveCandidate {
  /** Lower is more urgent; orders of the same value are equally urgent (same priority and due date). */
  urgency: number;
}

/** One cart of a plan: its orders and the length of their shortest route. */
export interface PlannedCart {
  orders: string[];
  units: number;
  distance: number;
}

/** Carts for the whole pool, in the order they are handed out; every order of the pool in exactly one. */
export interface CartPlan {
  carts: PlannedCart[];
  /** The carts' walks added up. */
  distance: number;
  /** What the same pool walks as the greedy plan (`greedyCarts`), which the plan never exceeds. */
  greedyDistance: number;
  /** Work the search did after the greedy plan: exact routes computed and orders tried. */
  work: number;
  /** Whether the search stopped at its budget rather than because nothing more improved the plan. */
  exhausted: boolean;
}

export interface PlanOptions {
  /** Work the search may do after the greedy plan: exact routes computed and orders tried, each one unit. */
  workBudget?: number;
}

/**
 * The search's work at most: with the greedy plan's, a pool of 500 orders stays well under a
 * second (docs/benchmarks.md has the figures). Work, not time, so that a pool gets the same plan
 * on any machine and under any load.
 */
export const WORK_BUDGET = 4_000;

/**
 * Plans carts for the whole pool, minimising the total walk: `pool` comes most urgent first
 * (urgency, then age); the first cart is the one to hand out next. Starts from the greedy plan and
 * improves it by iterated local search (`CartSearch`: shifts and swaps of orders between carts
 * scored by exact routes, then random perturbations, within `workBudget`), in the line of Henn et
 * al. (2010), Henn & Wäscher (2012) and Žulj, Kramer & Schneider (2018). Every cart keeps
 * `maxItems` and `maxOrders` (an order bigger than `maxItems` goes alone) and every plan the
 * urgency rule (`urgencyRuleBreach`). Deterministic: the same pool gives the same plan.
 */
export function planCarts(layout: Layout, pool: readonly PoolOrder[], limits: WaveLimits, options: PlanOptions = {}): CartPlan {
  const greedy = greedyCarts(layout, pool, limits);
  const greedyDistance = totalDistance(greedy);
  if (pool.length === 0) return { carts: [], distance: 0, greedyDistance, work: 0, exhausted: false };
  const index = new Map(pool.map((order, i) => [order.id, i]));
  const start = greedy.map((cart) => ({ members: cart.orders.map((id) => index.get(id)!), distance: cart.distance }));
  const search = new CartSearch(layout, pool, limits, start, options.workBudget ?? WORK_BUDGET).run();
  const { work, exhausted } = search;
  const distance = search.distances.reduce((sum, length) => sum + length, 0);
  // Sums in another order differ in the last bits: only a real improvement replaces the greedy plan.
  if (distance >= greedyDistance - 1e-9) return { carts: greedy, distance: greedyDistance, greedyDistance, work, exhausted };
  const carts = search.carts.map((members, i) => {
    const orders = members.map((member) => pool[member]!);
    return { orders: orders.map((order) => order.id), units: unitsOf(orders), distance: search.distances[i]! };
  });
  return { carts, distance, greedyDistance, work, exhausted };
}

/**
 * Carts made one at a time by `chooseWave`, each seeded by the most urgent order left and filled
 * urgency level by urgency level: orders of a less urgent level join only when no order of the
 * levels before fits any more, so the plan keeps the urgency rule. With one urgency level this is
 * `chooseWave` over all that is left, cart after cart.
 */
export function greedyCarts(layout: Layout, pool: readonly PoolOrder[], limits: WaveLimits): PlannedCart[] {
  const carts: PlannedCart[] = [];
  let left = [...pool];
  while (left.length > 0) {
    const cart = [left[0]!];
    for (const level of byUrgency(left.slice(1))) {
      if (cart.length >= limits.maxOrders) break;
      // The cart so far stands in as the seed, so that the wave grows around all of it.
      const sofar: WaveCandidate = { id: cart[0]!.id, units: unitsOf(cart), places: cart.flatMap((order) => order.places) };
      const byId = new Map(level.map((order) => [order.id, order]));
      const joining = chooseWave(layout, [sofar, ...level], { ...limits, maxOrders: limits.maxOrders - cart.length + 1 }).slice(1);
      cart.push(...joining.map((id) => byId.get(id)!));
    }
    carts.push({
      orders: cart.map((order) => order.id),
      units: unitsOf(cart),
      distance: shortestRouteLength(layout, cart.flatMap((order) => order.places)),
    });
    const taken = new Set(cart);
    left = left.filter((order) => !taken.has(order));
  }
  return carts;
}

/**
 * Why a plan breaks the urgency rule, or undefined when it keeps it. Carts are handed out in plan
 * order; the first holds an order of the most urgent level (the plan's own first cart is seeded
 * with `pool[0]`, the oldest of them), and no order waits for a later cart
 * while it would fit (within `maxItems`) in an earlier one in the place of a less urgent order.
 * Orders of equal urgency batch freely.
 */
export function urgencyRuleBreach(pool: readonly PoolOrder[], carts: readonly PlannedCart[], limits: WaveLimits): string | undefined {
  const byId = new Map(pool.map((order) => [order.id, order]));
  if (pool.length > 0 && !carts[0]?.orders.some((id) => byId.get(id)!.urgency === pool[0]!.urgency)) return `the first cart lacks an order as urgent as ${pool[0]!.id}`;
  const orders = carts.map((cart) => cart.orders.map((id) => byId.get(id)!));
  for (let i = 0; i < orders.length; i++) {
    for (let j = i + 1; j < orders.length; j++) {
      const breach = leftBehind(orders[i]!, orders[j]!, limits.maxItems);
      if (breach) return `${breach[0].id} (urgency ${breach[0].urgency}) in cart ${j + 1} fits in cart ${i + 1} in the place of ${breach[1].id} (urgency ${breach[1].urgency})`;
    }
  }
  return undefined;
}

/** The orders by urgency level, most urgent level first, each level in pool order. */
function byUrgency(orders: readonly PoolOrder[]): PoolOrder[][] {
  const levels = new Map<number, PoolOrder[]>();
  for (const order of orders) {
    const level = levels.get(order.urgency);
    if (level) level.push(order);
    else levels.set(order.urgency, [order]);
  }
  return [...levels.entries()].sort(([a], [b]) => a - b).map(([, level]) => level);
}

function unitsOf(orders: readonly PoolOrder[]): number {
  return orders.reduce((sum, order) => sum + order.units, 0);
}

function totalDistance(carts: readonly PlannedCart[]): number {
  return carts.reduce((sum, cart) => sum + cart.distance, 0);
}

/**
 * What putting urgency first costs a plan in walking: its walk less the walk of the plan for the
 * same pool with every order equally urgent, where only walking decides. At least 0: the search
 * can find a worse plan without the rule than with it, which says nothing about what urgency costs.
 */
export function urgencyCost(layout: Layout, pool: readonly PoolOrder[], limits: WaveLimits, plan: Pick<CartPlan, 'distance'>): number {
  if (pool.every((order) => order.urgency === pool[0]!.urgency)) return 0;
  const walkingOnly = planCarts(layout, pool.map((order) => ({ ...order, urgency: 0 })), limits);
  return Math.max(0, plan.distance - walkingOnly.distance);
}
