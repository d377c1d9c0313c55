import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WaveLimits } from '../../../src/floor/plan/batching';
import { planCarts, urgencyRuleBreach } from '../../../src/floor/plan/cart-plan';
import type { Layout, Place } from '../../../src/floor/plan/layout';
import { planStillRight, type PlanMade, type SignedOrder } from '../../../src/floor/plan/plan-reuse';
import { shortestRouteLength } from '../../../src/floor/plan/walks';

const layout: Layout = { aisles: 10, positionsPerAisle: 30, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
const limits: WaveLimits = { maxOrders: 3, maxItems: 10 };

function signed(id: string, units: number, places: Place[], urgency = 0): SignedOrder {
  return { id, units, places, urgency, signature: JSON.stringify([urgency, units, places]) };
}
/** Twelve orders of equal urgency, two units each, spread over the floor. */
const pool = Array.from({ length: 12 }, (_, i) => signed(`o${i}`, 2, [{ aisle: 1 + ((i * 7) % 10), position: 1 + ((i * 11) % 30) }]));

function made(orders: readonly SignedOrder[], full = false): PlanMade {
  return { plan: planCarts(layout, orders, limits), signatures: new Map(orders.map((order) => [order.id, order.signature])), full };
}

describe('a plan kept for a later pool (planStillRight)', () => {
  it('is kept whole for the same pool, and without its first cart once that cart is taken', () => {
    const before = made(pool);
    expect(planStillRight(layout, before, pool, limits)?.carts).toEqual(before.plan.carts);
    const taken = new Set(before.plan.carts[0]!.orders);
    const after = planStillRight(layout, before, pool.filter((order) => !taken.has(order.id)), limits);
    expect(after?.carts).toEqual(before.plan.carts.slice(1));
    expect(after?.distance).toBeCloseTo(before.plan.distance - before.plan.carts[0]!.distance, 9);
    expect(after?.greedyDistance).toBeNull();
  });

  it('routes again a cart that lost an order (cancelled), and keeps the others', () => {
    const before = made(pool);
    const cart = before.plan.carts.find((candidate) => candidate.orders.length > 1)!;
    const cancelled = cart.orders[0]!;
    const after = planStillRight(layout, before, pool.filter((order) => order.id !== cancelled), limits)!;
    const shorter = after.carts.find((candidate) => candidate.orders.includes(cart.orders[1]!))!;
    expect(shorter.orders).toEqual(cart.orders.slice(1));
    expect(shorter.units).toBe(cart.units - 2);
    const places = pool.filter((order) => shorter.orders.includes(order.id)).flatMap((order) => order.places);
    expect(shorter.distance).toBe(shortestRouteLength(layout, places));
    expect(after.carts.filter((candidate) => candidate !== shorter)).toEqual(before.plan.carts.filter((candidate) => candidate !== cart));
  });

  it('is planned again when an order arrives in a pool that was not full, or a planned order changed', () => {
    const before = made(pool.slice(0, 11));
    expect(planStillRight(layout, before, pool, limits)).toBeUndefined();
    const changed = pool.slice(0, 11).map((order, i) => (i === 4 ? signed(order.id, 3, order.places) : order));
    expect(planStillRight(layout, before, changed, limits)).toBeUndefined();
  });

  it('keeps a full pool\'s plan when orders arrive beyond its end, not when one comes before a planned order', () => {
    const before = made(pool.slice(0, 11), true);
    const kept = planStillRight(layout, before, pool, limits);
    expect(kept?.carts).toEqual(before.plan.carts);
    expect(kept?.carts.flatMap((cart) => cart.orders)).not.toContain('o11');
    expect(planStillRight(layout, before, [pool[0]!, pool[11]!, ...pool.slice(1, 11)], limits)).toBeUndefined();
  });

  it('is planned again once half its orders have left', () => {
    const before = made(pool);
    expect(planStillRight(layout, before, pool.slice(0, 6), limits)).toBeDefined();
    expect(planStillRight(layout, before, pool.slice(0, 5), limits)).toBeUndefined();
    expect(planStillRight(layout, before, [], limits)).toBeUndefined();
  });

  it('is not kept when a lighter cart would leave a more urgent order behind', () => {
    // Carts of at most 4 units: c (3 units) is more urgent than b but cannot join a and b.
    const tight: WaveLimits = { maxOrders: 3, maxItems: 4 };
    const [a, c, b] = [signed('a', 2, [{ aisle: 1, position: 2 }], 0), signed('c', 3, [{ aisle: 9, position: 30 }], 1), signed('b', 2, [{ aisle: 1, position: 3 }], 2)];
    const before: PlanMade = { plan: planCarts(layout, [a!, c!, b!], tight), signatures: new Map([a!, c!, b!].map((order) => [order.id, order.signature])), full: false };
    expect(before.plan.carts.map((cart) => cart.orders)).toEqual([['a', 'b'], ['c']]);
    // a cancelled: b's cart now has room for c, so the plan is made again.
    expect(planStillRight(layout, before, [c!, b!], tight)).toBeUndefined();
    expect(planStillRight(layout, before, [a!, c!], tight)?.carts.map((cart) => cart.orders)).toEqual([['a'], ['c']]);
  });

  it('whatever leaves the pool, a kept plan covers each remaining order once, within the limits and the urgency rule', () => {
    let keptPlans = 0;
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 12, maxLength: 12 }), (leaves, urgencies) => {
        const ranked = pool.map((order, i) => signed(order.id, 1 + (i % 4), order.places, urgencies[i]!)).sort((a, b) => a.urgency - b.urgency);
        const before = made(ranked);
        const left = ranked.filter((_, i) => !leaves[i]);
        const kept = planStillRight(layout, before, left, limits);
        if (kept === undefined) return;
        keptPlans++;
        expect(kept.carts.flatMap((cart) => cart.orders).sort()).toEqual(left.map((order) => order.id).sort());
        for (const cart of kept.carts) expect(cart.orders.length <= limits.maxOrders && cart.units <= limits.maxItems).toBe(true);
        expect(urgencyRuleBreach(left, kept.carts, limits)).toBeUndefined();
      }),
    );
    // Planned again is always right; the property is about the plans kept, so some must be.
    expect(keptPlans).toBeGreaterThan(10);
  });
});
