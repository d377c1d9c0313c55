import { aisleX, backY, positionY, type Layout, type Place } from './layout';
import { shortestRouteLength } from './routing';

/** An order that could go on the cart: the places of its placed lines (may be empty) and its units. */
export interface WaveCandidate {
  id: string;
  units: number;
  places: Place[];
}

export interface WaveLimits {
  maxOrders: number;
  maxItems: number;
}

/** How many of the best-ranked candidates are routed exactly before one is added. */
const CONFIRMED = 8;

/**
 * Chooses the orders of one cart by seed batching: the most urgent candidate is the seed, then,
 * while the cart has room, the candidate whose places add the least walking to the cart's shortest
 * route joins it (the more urgent one of equal cost). Each round ranks every candidate that fits
 * by a cheap lower bound of the added walking and routes only the best few exactly.
 *
 * `candidates` come most urgent first (priority urgent > high > medium > low, then dueDate, then
 * age). Returns the chosen ids in the order chosen; never empty when candidates is not empty: a
 * seed with more units than `maxItems` goes alone rather than never being picked.
 */
export function chooseWave(layout: Layout, candidates: readonly WaveCandidate[], limits: WaveLimits): string[] {
  const seed = candidates[0];
  if (!seed) return [];
  const cart = new CartBound(layout);
  cart.add(cart.byAisle(seed.places));
  const chosen = [seed];
  let units = seed.units;
  let places = [...seed.places];
  // Candidates keep their rank so that ties go to the more urgent one.
  let waiting = candidates.slice(1).map((candidate, rank) => ({ candidate, rank, aisles: cart.byAisle(candidate.places) }));

  while (chosen.length < limits.maxOrders) {
    const fitting = waiting.filter(({ candidate }) => units + candidate.units <= limits.maxItems);
    if (fitting.length === 0) break;
    // The sort is stable: of equal bounds the more urgent stays first.
    const shortlist = fitting
      .map((entry) => ({ ...entry, bound: cart.addedBy(entry.aisles) }))
      .sort((a, b) => a.bound - b.bound)
      .slice(0, CONFIRMED)
      .map((entry) => ({ ...entry, distance: shortestRouteLength(layout, [...places, ...entry.candidate.places]) }));
    const best = shortlist.reduce((a, b) => (b.distance < a.distance || (b.distance === a.distance && b.rank < a.rank) ? b : a));
    chosen.push(best.candidate);
    waiting = waiting.filter((entry) => entry.rank !== best.rank);
    units += best.candidate.units;
    places = [...places, ...best.candidate.places];
    cart.add(best.aisles);
  }
  return chosen.map((candidate) => candidate.id);
}

/**
 * A lower bound of the shortest route through the cart's places, kept aisle by aisle: twice the
 * walk along the front from the depot to the farthest aisles, plus for each aisle with places the
 * least any tour spends in it (one walk through, or in and out from both ends leaving out its
 * largest gap).
 */
class CartBound {
  private readonly back: number;
  /** By aisle: the cart's ys there, sorted. */
  private readonly ys = new Map<number, number[]>();
  private left: number;
  private right: number;

  constructor(private readonly layout: Layout) {
    this.back = backY(layout);
    this.left = this.right = aisleX(layout, layout.depotAisle);
  }

  /** An order's places as the bound works with them: by aisle, their ys sorted. */
  byAisle(places: readonly Place[]): Map<number, number[]> {
    const result = new Map<number, number[]>();
    for (const place of places) {
      const ys = result.get(place.aisle);
      if (ys) ys.push(positionY(this.layout, place.position));
      else result.set(place.aisle, [positionY(this.layout, place.position)]);
    }
    for (const ys of result.values()) ys.sort((a, b) => a - b);
    return result;
  }

  add(aisles: Map<number, number[]>): void {
    for (const [aisle, ys] of aisles) {
      this.ys.set(aisle, [...(this.ys.get(aisle) ?? []), ...ys].sort((a, b) => a - b));
      this.left = Math.min(this.left, aisleX(this.layout, aisle));
      this.right = Math.max(this.right, aisleX(this.layout, aisle));
    }
  }

  /** How much the bound grows with an order's places (from `byAisle`). */
  addedBy(aisles: Map<number, number[]>): number {
    let added = 0;
    let [left, right] = [this.left, this.right];
    for (const [aisle, ys] of aisles) {
      const cart = this.ys.get(aisle) ?? [];
      added += this.inAisle(cart, ys) - this.inAisle(cart, []);
      left = Math.min(left, aisleX(this.layout, aisle));
      right = Math.max(right, aisleX(this.layout, aisle));
    }
    return added + 2 * (right - left - (this.right - this.left));
  }

  /** The least walking any tour does in an aisle holding the ys of both sorted lists (merged on the fly). */
  private inAisle(a: readonly number[], b: readonly number[]): number {
    if (a.length + b.length === 0) return 0;
    let [i, j, previous, gap] = [0, 0, 0, 0];
    while (i < a.length || j < b.length) {
      const y = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
      gap = Math.max(gap, y - previous);
      previous = y;
    }
    gap = Math.max(gap, this.back - previous);
    return Math.min(this.back, 2 * (this.back - gap));
  }
}
