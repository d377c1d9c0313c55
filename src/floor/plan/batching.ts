import { aisleX, backY, middleCrossAisleYs, positionY, type Layout, type Place } from './layout';
import { shortestRouteLength } from './walks';

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
/** Lengths closer than this are equal (sums of the same lengths in another order differ in the last bits). */
const SAME = 1e-9;

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
    // The CONFIRMED fitting candidates of least bound; of equal bounds the more urgent comes first.
    const shortlist: { entry: (typeof waiting)[number]; bound: number }[] = [];
    for (const entry of waiting) {
      if (units + entry.candidate.units > limits.maxItems) continue;
      const bound = cart.addedBy(entry.aisles);
      if (shortlist.length === CONFIRMED && bound >= shortlist[CONFIRMED - 1]!.bound) continue;
      const at = shortlist.findIndex((listed) => listed.bound > bound);
      shortlist.splice(at === -1 ? shortlist.length : at, 0, { entry, bound });
      if (shortlist.length > CONFIRMED) shortlist.pop();
    }
    if (shortlist.length === 0) break;
    const best = shortlist
      .map(({ entry }) => ({ entry, distance: shortestRouteLength(layout, [...places, ...entry.candidate.places]) }))
      .reduce((a, b) => (b.distance < a.distance - SAME || (Math.abs(b.distance - a.distance) <= SAME && b.entry.rank < a.entry.rank) ? b : a)).entry;
    chosen.push(best.candidate);
    waiting = waiting.filter((entry) => entry !== best);
    units += best.candidate.units;
    places = [...places, ...best.candidate.places];
    cart.add(best.aisles);
  }
  return chosen.map((candidate) => candidate.id);
}

/**
 * A lower bound of the shortest route through the cart's places, kept aisle by aisle: twice the
 * walk along the front from the depot to the farthest aisles, plus for each block of an aisle with
 * places the least any tour spends in it (one walk through, or in and out from both ends leaving
 * out its largest gap). The cart planner ranks moves between carts by it too.
 */
export class CartBound {
  /** y of every cross aisle, front to back. */
  private readonly crossYs: number[];
  /** Index aisle - 1: the cart's ys in that aisle, sorted, and the least walking there. */
  private readonly ys: number[][];
  private readonly inAisleNow: Float64Array;
  private left: number;
  private right: number;

  constructor(private readonly layout: Layout) {
    this.crossYs = [0, ...middleCrossAisleYs(layout), backY(layout)];
    this.ys = Array.from({ length: layout.aisles }, () => []);
    this.inAisleNow = new Float64Array(layout.aisles);
    this.left = this.right = aisleX(layout, layout.depotAisle);
  }

  /** An order's places as the bound works with them: by aisle, with the aisle's x and the places' ys sorted. */
  byAisle(places: readonly Place[]): AislePlaces[] {
    const result: AislePlaces[] = [];
    for (const place of places) {
      const y = positionY(this.layout, place.position);
      const same = result.find((entry) => entry.aisle === place.aisle);
      if (same) same.ys.push(y);
      else result.push({ aisle: place.aisle, x: aisleX(this.layout, place.aisle), ys: [y] });
    }
    for (const { ys } of result) ys.sort((a, b) => a - b);
    return result;
  }

  add(aisles: readonly AislePlaces[]): void {
    for (const { aisle, x, ys } of aisles) {
      const merged = [...this.ys[aisle - 1]!, ...ys].sort((a, b) => a - b);
      this.ys[aisle - 1] = merged;
      this.inAisleNow[aisle - 1] = this.inAisle(merged, []);
      this.left = Math.min(this.left, x);
      this.right = Math.max(this.right, x);
    }
  }

  /** How much the bound grows with an order's places (from `byAisle`). */
  addedBy(aisles: readonly AislePlaces[]): number {
    let added = 0;
    let [left, right] = [this.left, this.right];
    for (const { aisle, x, ys } of aisles) {
      added += this.inAisle(this.ys[aisle - 1]!, ys) - this.inAisleNow[aisle - 1]!;
      left = Math.min(left, x);
      right = Math.max(right, x);
    }
    return added + 2 * (right - left - (this.right - this.left));
  }

  /** The least walking any tour does in an aisle holding the ys of both sorted lists (merged on the fly), block by block. */
  private inAisle(a: readonly number[], b: readonly number[]): number {
    const cross = this.crossYs;
    let [i, j, block, total, previous, gap] = [0, 0, 0, 0, 0, 0];
    let holds = false;
    while (i < a.length || j < b.length) {
      const y = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
      while (y > cross[block + 1]!) {
        if (holds) total += this.inBlock(block, previous, gap);
        block++;
        [previous, gap, holds] = [cross[block]!, 0, false];
      }
      gap = Math.max(gap, y - previous);
      previous = y;
      holds = true;
    }
    return holds ? total + this.inBlock(block, previous, gap) : total;
  }

  /** One walk through the block, or in and out from both ends leaving out its largest gap (`gap` so far, or the one behind `last`). */
  private inBlock(block: number, last: number, gap: number): number {
    const length = this.crossYs[block + 1]! - this.crossYs[block]!;
    return Math.min(length, 2 * (length - Math.max(gap, this.crossYs[block + 1]! - last)));
  }
}

export interface AislePlaces {
  aisle: number;
  x: number;
  ys: number[];
}
