import { chooseWave, type WaveCandidate, type WaveLimits } from './batching';
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
  /** What the same pool walks as carts made one at a time by `chooseWave`, the next from what the last left. */
  greedyDistance: number;
}

/**
 * Plans carts for the whole pool: `pool` comes most urgent first (urgency, then age). The first
 * cart is the one to hand out next.
 *
 * For now the greedy plan: one cart at a time by `chooseWave`, each from the orders the last ones
 * left.
 */
export function planCarts(layout: Layout, pool: readonly PoolOrder[], limits: WaveLimits): CartPlan {
  const carts = greedyCarts(layout, pool, limits);
  const distance = carts.reduce((sum, cart) => sum + cart.distance, 0);
  return { carts, distance, greedyDistance: distance };
}

/** Carts made one at a time by `chooseWave`, each seeded by the most urgent order left. */
export function greedyCarts(layout: Layout, pool: readonly PoolOrder[], limits: WaveLimits): PlannedCart[] {
  const carts: PlannedCart[] = [];
  let left = [...pool];
  while (left.length > 0) {
    const chosen = new Set(chooseWave(layout, left, limits));
    const orders = left.filter((order) => chosen.has(order.id));
    carts.push({
      orders: orders.map((order) => order.id),
      units: orders.reduce((sum, order) => sum + order.units, 0),
      distance: shortestRouteLength(layout, orders.flatMap((order) => order.places)),
    });
    left = left.filter((order) => !chosen.has(order.id));
  }
  return carts;
}
