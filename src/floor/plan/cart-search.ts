import { CartBound, type AislePlaces, type WaveCandidate, type WaveLimits } from './batching';
import type { Layout } from './layout';
import { shortestRouteLength } from './walks';
import { pastDeadline } from './deadline';
import { mulberry32 } from './random';

/** What the search needs of an order: a wave candidate with its urgency (lower is more urgent). */
export type RankedOrder = WaveCandidate & { urgency: number };

/** Lengths closer than this are equal (sums of the same lengths in another order differ in the last bits). */
const SAME = 1e-9;
/** Carts a move looks at for an order: those whose cheap bound grows least with it. */
const NEAREST_CARTS = 5;
/** Swaps per order that are routed exactly, the best estimated first. */
const SWAPS_ROUTED = 5;
/** Orders a perturbation moves or swaps at random. */
const KICKS = 3;
/** Perturbations in a row that may fail to improve the best plan before the search gives up. */
const STALE_ROUNDS = 1000;
/** The fixed seed of the perturbations' random numbers: the same pool always gives the same plan. */
const SEED = 0x2f6b_1d3;

/**
 * The first order of `later` (a cart handed out after `earlier`) that is more urgent than an order
 * of `earlier` and would fit in `earlier` in its place, with that order; undefined when there is
 * none. An urgent order must not wait for a later cart when it fits in an earlier one.
 */
export function leftBehind<T extends RankedOrder>(earlier: readonly T[], later: readonly T[], maxItems: number): [T, T] | undefined {
  const units = earlier.reduce((sum, order) => sum + order.units, 0);
  for (const waiting of later) {
    for (const taken of earlier) {
      if (waiting.urgency < taken.urgency && units - taken.units + waiting.units <= maxItems) return [waiting, taken];
    }
  }
  return undefined;
}

/** Orders that would share a cart, with what the urgency rule looks at first. */
interface Span {
  /** Pool indices, ascending: the first is the cart's most urgent order and sets its place in the plan. */
  members: number[];
  /** The urgency of its least urgent order (the highest) and of its most urgent one. */
  leastUrgent: number;
  mostUrgent: number;
}

/** A cart (by its place in the list) and the orders it is to hold. */
type Change = [cart: number, members: number[]];

/** A cart during the search; replaced, never changed, so that a snapshot is a copy of the list. */
interface Cart extends Span {
  units: number;
  distance: number;
  bound: CartBound;
  /** By pool index, how much `bound` grows with that order (NaN until asked). */
  growth: Float64Array;
  /** By position in `members`, how much shorter the walk is without that order (NaN until asked). */
  savings: Float64Array;
}

export interface SearchResult {
  /** Pool indices by cart, in the order the carts are handed out. */
  carts: number[][];
  distances: number[];
  /** Work done: exact routes computed and orders tried. */
  work: number;
  /** Whether the search stopped because it ran out of budget rather than of ideas. */
  exhausted: boolean;
}

/**
 * Iterated local search over a partition of the pool into carts, after Henn et al.'s for order
 * batching (BuR 3(1), 2010): moves one order to another cart or swaps two orders of two carts
 * while that shortens the walk, then perturbs the best plan with a few random moves and descends
 * again, keeping the best. Moves are ranked by the cheap bound `chooseWave` uses and only the best
 * few per order are routed exactly; exact walks are kept by cart. Every move keeps the carts
 * within their limits and the urgency rule (see `leftBehind`) between the carts it changes and
 * all others; carts are ordered by their most urgent order. The budget counts work (exact routes
 * and orders tried), not time, so that a pool always gives the same plan.
 */
export class CartSearch {
  private carts: Cart[];
  private readonly cartOf: Int32Array;
  private readonly aisles: AislePlaces[][];
  private readonly lengths = new Map<string, number>();
  /** Carts built so far by their orders, so that one met again keeps what was worked out for it. */
  private readonly built = new Map<string, Cart>();
  private readonly equalUrgency: boolean;
  /** Orders whose moves are still to be tried: those of the carts changed since. */
  private readonly waiting = new Set<number>();
  private work = 0;

  constructor(
    private readonly layout: Layout,
    private readonly pool: readonly RankedOrder[],
    private readonly limits: WaveLimits,
    /** The plan to start from: pool indices and walk of each cart (the walk is not routed again). */
    start: readonly { members: readonly number[]; distance: number }[],
    private readonly budget: number,
  ) {
    const probe = new CartBound(layout);
    this.aisles = pool.map((order) => probe.byAisle(order.places));
    this.equalUrgency = pool.every((order) => order.urgency === pool[0]!.urgency);
    this.cartOf = new Int32Array(pool.length);
    this.carts = start.map(({ members, distance }) => {
      const sorted = [...members].sort((a, b) => a - b);
      this.lengths.set(sorted.join(','), distance);
      return this.cart(sorted);
    });
    this.place();
  }

  run(): SearchResult {
    this.pool.forEach((_, order) => this.waiting.add(order));
    this.descend(true);
    let best = this.carts;
    let bestDistance = this.distance();
    const random = mulberry32(SEED);
    let stale = 0;
    while (stale < STALE_ROUNDS && !this.spent()) {
      this.perturb(random);
      this.descend(false);
      const distance = this.distance();
      if (distance < bestDistance - SAME) {
        [best, bestDistance, stale] = [this.carts, distance, 0];
      } else {
        this.carts = best;
        this.place();
        stale++;
      }
    }
    const carts = best.filter((cart) => cart.members.length > 0).sort((a, b) => a.members[0]! - b.members[0]!);
    return { carts: carts.map((cart) => cart.members), distances: carts.map((cart) => cart.distance), work: this.work, exhausted: this.spent() };
  }

  private spent(): boolean {
    return this.work >= this.budget || pastDeadline();
  }

  /** Shifts `order`, or else swaps it, if that shortens the walk. */
  private try(order: number): void {
    this.work++;
    if (!this.shift(order)) this.swap(order);
  }

  private distance(): number {
    return this.carts.reduce((sum, cart) => sum + cart.distance, 0);
  }

  /**
   * Shifts and swaps of the waiting orders (joined by those of every cart a move changes) until
   * none shortens the walk or the budget is spent; with `everyOrder`, each time the waiting orders
   * run out, every order is tried once more.
   */
  private descend(everyOrder: boolean): void {
    while (this.waiting.size > 0 && !this.spent()) {
      for (const order of this.waiting) {
        if (this.spent()) break;
        this.waiting.delete(order);
        this.try(order);
      }
      if (everyOrder) for (let order = 0; order < this.pool.length && !this.spent(); order++) this.try(order);
    }
    this.waiting.clear();
  }

  /**
   * Moves `order` to the cart where it shortens the walk most, if any. Where it does not fit, an
   * order of that cart without placed lines may make room by moving to a cart of its own: it walks
   * nothing anywhere, so only the room it takes counts.
   */
  private shift(order: number): boolean {
    const { units } = this.pool[order]!;
    const from = this.cartOf[order]!;
    const saving = this.saving(this.carts[from]!, order);
    if (saving <= SAME) return false;
    const makesRoom = (cart: Cart) => cart.members.find((member) => this.pool[member]!.places.length === 0 && cart.units - this.pool[member]!.units + units <= this.limits.maxItems);
    let best: { changes: Change[]; gain: number } | undefined;
    for (const { cart: to, added } of this.nearest(order, (cart) => this.fits(order, cart) || makesRoom(cart) !== undefined)) {
      if (added >= saving) continue;
      const target = this.carts[to]!;
      const changes = this.moved(order, to, this.fits(order, target) ? undefined : makesRoom(target));
      if (!this.allowed(changes)) continue;
      const gain = saving - (this.length(changes[1]![1]) - target.distance);
      if (gain > SAME && (!best || gain > best.gain + SAME)) best = { changes, gain };
    }
    if (!best) return false;
    this.apply(best.changes);
    return true;
  }

  /** Swaps `order` with an order of a nearby cart where that shortens the walk most, if any. */
  private swap(order: number): boolean {
    const home = this.carts[this.cartOf[order]!]!;
    const saving = this.saving(home, order);
    const estimates: { changes: Change[]; estimate: number; other: number }[] = [];
    for (const { cart: to, added } of this.nearest(order, () => true)) {
      const away = this.carts[to]!;
      for (const other of away.members) {
        const changes = this.swapped(order, other);
        if (!changes) continue;
        const estimate = saving + this.saving(away, other) - added - this.growth(home, other);
        if (estimate > SAME) estimates.push({ changes, estimate, other });
      }
    }
    estimates.sort((a, b) => b.estimate - a.estimate || a.other - b.other);
    let best: { changes: Change[]; gain: number } | undefined;
    for (const { changes } of estimates.slice(0, SWAPS_ROUTED)) {
      if (!this.allowed(changes)) continue;
      const before = changes.reduce((sum, [cart]) => sum + this.carts[cart]!.distance, 0);
      const gain = before - changes.reduce((sum, [, members]) => sum + this.length(members), 0);
      if (gain > SAME && (!best || gain > best.gain + SAME)) best = { changes, gain };
    }
    if (!best) return false;
    this.apply(best.changes);
    return true;
  }

  /** A few random shifts or swaps between nearby carts, within the limits and the urgency rule, whatever they cost. */
  private perturb(random: () => number): void {
    for (let kick = 0; kick < KICKS; kick++) {
      const order = Math.floor(random() * this.pool.length);
      const near = this.nearest(order, () => true);
      if (near.length === 0) continue;
      const to = near[Math.floor(random() * near.length)]!.cart;
      const away = this.carts[to]!;
      const changes = this.fits(order, away) ? this.moved(order, to) : this.swapped(order, away.members[Math.floor(random() * away.members.length)]!);
      if (changes && this.allowed(changes)) this.apply(changes);
    }
  }

  /** Whether `order` fits in `cart` as it is. */
  private fits(order: number, cart: Cart): boolean {
    return cart.units + this.pool[order]!.units <= this.limits.maxItems && cart.members.length < this.limits.maxOrders;
  }

  /** `order` moved to cart `to` (its home cart first, then `to`), and `leaving` from `to` to a new cart. */
  private moved(order: number, to: number, leaving?: number): Change[] {
    const from = this.cartOf[order]!;
    const target = this.carts[to]!.members;
    const changes: Change[] = [
      [from, without(this.carts[from]!.members, order)],
      [to, including(leaving === undefined ? target : without(target, leaving), order)],
    ];
    if (leaving !== undefined) changes.push([this.carts.length, [leaving]]);
    return changes;
  }

  /** `order` and `other` (of another cart) swapped, if both carts stay within `maxItems`. */
  private swapped(order: number, other: number): Change[] | undefined {
    const [from, to] = [this.cartOf[order]!, this.cartOf[other]!];
    const [home, away] = [this.carts[from]!, this.carts[to]!];
    const [units, otherUnits] = [this.pool[order]!.units, this.pool[other]!.units];
    if (home.units - units + otherUnits > this.limits.maxItems || away.units - otherUnits + units > this.limits.maxItems) return undefined;
    return [
      [from, including(without(home.members, order), other)],
      [to, including(without(away.members, other), order)],
    ];
  }

  /** The NEAREST_CARTS other non-empty carts that `fits` accepts, least bound growth first. */
  private nearest(order: number, fits: (cart: Cart) => boolean): { cart: number; added: number }[] {
    const from = this.cartOf[order]!;
    const near: { cart: number; added: number }[] = [];
    this.carts.forEach((cart, index) => {
      if (index === from || cart.members.length === 0 || !fits(cart)) return;
      const added = this.growth(cart, order);
      if (near.length === NEAREST_CARTS && added >= near[NEAREST_CARTS - 1]!.added) return;
      const at = near.findIndex((listed) => listed.added > added);
      near.splice(at === -1 ? near.length : at, 0, { cart: index, added });
      if (near.length > NEAREST_CARTS) near.pop();
    });
    return near;
  }

  /** How much the cart's bound grows with `order`, worked out once per cart. */
  private growth(cart: Cart, order: number): number {
    let added = cart.growth[order]!;
    if (Number.isNaN(added)) added = cart.growth[order] = cart.bound.addedBy(this.aisles[order]!);
    return added;
  }

  /** How much shorter the cart's walk is without `order`, worked out once per cart. */
  private saving(cart: Cart, order: number): number {
    const at = cart.members.indexOf(order);
    let saving = cart.savings[at]!;
    if (Number.isNaN(saving)) saving = cart.savings[at] = cart.distance - this.length(without(cart.members, order));
    return saving;
  }

  /** Whether the changed carts may hold their new orders as far as urgency goes (the limits are the caller's). */
  private allowed(changes: readonly Change[]): boolean {
    if (this.equalUrgency) return true;
    const touched = new Set(changes.map(([cart]) => cart));
    const changed = changes.filter(([, members]) => members.length > 0).map(([, members]) => this.span(members));
    for (const [i, span] of changed.entries()) {
      if (changed.slice(i + 1).some((other) => !this.inUrgencyOrder(span, other))) return false;
      for (const [index, cart] of this.carts.entries()) {
        if (!touched.has(index) && cart.members.length > 0 && !this.inUrgencyOrder(span, cart)) return false;
      }
    }
    return true;
  }

  /** Whether two carts keep the urgency rule, the one with the more urgent first order going first. */
  private inUrgencyOrder(x: Span, y: Span): boolean {
    const [earlier, later] = x.members[0]! < y.members[0]! ? [x, y] : [y, x];
    if (earlier.leastUrgent <= later.mostUrgent) return true;
    const orders = (span: Span) => span.members.map((index) => this.pool[index]!);
    return leftBehind(orders(earlier), orders(later), this.limits.maxItems) === undefined;
  }

  private span(members: number[]): Span {
    let [leastUrgent, mostUrgent] = [-Infinity, Infinity];
    for (const order of members) {
      const { urgency } = this.pool[order]!;
      [leastUrgent, mostUrgent] = [Math.max(leastUrgent, urgency), Math.min(mostUrgent, urgency)];
    }
    return { members, leastUrgent, mostUrgent };
  }

  /** Gives each changed cart its new orders; a cart numbered past the last is a new one. */
  private apply(changes: readonly Change[]): void {
    const carts = [...this.carts];
    for (const [cart, members] of changes) {
      carts[cart] = this.cart(members);
      for (const order of members) {
        this.cartOf[order] = cart;
        this.waiting.add(order);
      }
    }
    this.carts = carts;
  }

  /** Points every order at its cart again (after the list of carts was replaced). */
  private place(): void {
    this.carts.forEach((cart, index) => cart.members.forEach((order) => (this.cartOf[order] = index)));
  }

  private cart(members: number[]): Cart {
    const key = members.join(',');
    let cart = this.built.get(key);
    if (!cart) {
      const bound = new CartBound(this.layout);
      for (const order of members) bound.add(this.aisles[order]!);
      cart = {
        ...this.span(members),
        units: members.reduce((sum, order) => sum + this.pool[order]!.units, 0),
        distance: this.length(members),
        bound,
        growth: new Float64Array(this.pool.length).fill(NaN),
        savings: new Float64Array(members.length).fill(NaN),
      };
      this.built.set(key, cart);
    }
    return cart;
  }

  /** The exact walk of a cart of these orders (ascending), routed once. */
  private length(members: readonly number[]): number {
    if (members.length === 0) return 0;
    const key = members.join(',');
    let length = this.lengths.get(key);
    if (length === undefined) {
      length = shortestRouteLength(
        this.layout,
        members.flatMap((order) => this.pool[order]!.places),
      );
      this.work++;
      this.lengths.set(key, length);
    }
    return length;
  }
}

function without(members: readonly number[], order: number): number[] {
  return members.filter((member) => member !== order);
}

function including(members: readonly number[], order: number): number[] {
  return [...members, order].sort((a, b) => a - b);
}
