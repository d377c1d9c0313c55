import type { WaveLimits } from './batching';
import { urgencyRuleBreach, type CartPlan, type PlannedCart, type PoolOrder } from './cart-plan';
import type { Layout } from './layout';
import { shortestRouteLength } from './walks';

/** An order as it was planned: what the plan depends on, besides its id. */
export type OrderSignature = string;

/** A plan with what it was made for: the signature of each order of its pool. */
export interface PlanMade {
  plan: CartPlan;
  signatures: ReadonlyMap<string, OrderSignature>;
  /** Whether the pool was cut at its size limit: orders beyond it were left out of the plan. */
  full: boolean;
}

/** A plan as it stands: made for this pool, or kept from an earlier one (no greedy plan made then). */
export type CurrentPlan = Omit<CartPlan, 'greedyDistance'> & { greedyDistance: number | null };

/** A pool order with what makes it what it is to a plan: its urgency as sent, units and places. */
export interface SignedOrder extends PoolOrder {
  signature: OrderSignature;
}

/**
 * The plan made for an earlier pool, still right for this one, or undefined when the pool must be
 * planned again. It is still right when, since it was made, orders only left the pool (a cart
 * taken, an order cancelled or given issues) and none of the rest changed, and when every order
 * that came in stands beyond a full pool's end (it would not have been planned then either). The
 * carts lose the orders that left (an emptied cart goes) and are routed again where they did; the
 * result must still keep the urgency rule (a lighter cart may now have room for a more urgent
 * order), or it is not used. Once half the planned orders have left, the rest is planned again.
 *
 * `pool` comes most urgent first, like the one the plan was made for. The carts of the answer
 * name only orders of `pool`; when orders left, `greedyDistance` is null, as no greedy plan was
 * made for what stayed.
 */
export function planStillRight(layout: Layout, made: PlanMade, pool: readonly SignedOrder[], limits: WaveLimits): CurrentPlan | undefined {
  const staying = new Set<string>();
  let arrivedSinceKept = false;
  for (const order of pool) {
    const planned = made.signatures.get(order.id);
    if (planned === undefined) {
      if (!made.full) return undefined;
      arrivedSinceKept = true;
      continue;
    }
    // A kept order after one that came in: the newcomer is within the planned horizon.
    if (arrivedSinceKept || planned !== order.signature) return undefined;
    staying.add(order.id);
  }
  if (staying.size === made.signatures.size) return made.plan;
  // Half the plan handed out: planning what is left anew finds better carts, at a cost shared by many.
  if (staying.size === 0 || staying.size < made.signatures.size / 2) return undefined;
  const byId = new Map(pool.map((order) => [order.id, order]));
  const carts: PlannedCart[] = [];
  for (const cart of made.plan.carts) {
    const orders = cart.orders.filter((id) => staying.has(id));
    if (orders.length === 0) continue;
    if (orders.length === cart.orders.length) {
      carts.push(cart);
      continue;
    }
    const kept = orders.map((id) => byId.get(id)!);
    carts.push({ orders, units: kept.reduce((sum, order) => sum + order.units, 0), distance: shortestRouteLength(layout, kept.flatMap((order) => order.places)) });
  }
  const planned = pool.filter((order) => staying.has(order.id));
  if (urgencyRuleBreach(planned, carts, limits) !== undefined) return undefined;
  return { ...made.plan, carts, distance: carts.reduce((sum, cart) => sum + cart.distance, 0), greedyDistance: null };
}
