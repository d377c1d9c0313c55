import { aisleX, backY, middleCrossAisleYs, positionY, type Layout, type Place } from './layout';
import type { CollectingFloor } from './walks/collecting';
import type { CoveringProblem } from './walks/covering';
import { leastOf } from './walks/least-of';

/*
 * Covers: sets of places that hold every item's demand. What the phases of the search for items
 * at several places (scattered.ts) share about them: whether places cover the order, the greedy
 * construction that completes places into a cover, a minimal cover, and the residual problem
 * left to the covering dynamic program once some places are visited anyway.
 */

/** Items at places (scattered storage): which places hold which items, and how many of each are wanted. */
export interface ScatteredProblem {
  layout: Layout;
  /** Distinct places that hold units of some item. */
  places: readonly Place[];
  /** By place: the items there and their units, at most the item's demand. */
  stock: readonly (readonly { item: number; units: number }[])[];
  /** Units wanted, by item; the places hold at least that many of each. */
  demand: readonly number[];
}

/** Exact walk lengths, each charged to a budget (the incumbent's). */
export interface WalkMeter {
  walkLength(places: readonly number[]): number;
  /** Whether the budget the walks are charged to has work left. */
  canMeasure(): boolean;
}

/** Places measured by the exact walk when completing a cover, of those that look cheapest to add. */
const CANDIDATES_MEASURED = 4;

/** `chosen` less the places the others make needless, farthest from a cross aisle first: fewer places never lengthen the walk. */
export function minimalCover(problem: ScatteredProblem, chosen: readonly number[]): number[] {
  const { layout, places, stock, demand } = problem;
  const crossYs = crossAisleYs(layout);
  const depth = new Map<number, number>();
  for (const place of chosen) {
    const y = positionY(layout, places[place]!.position);
    depth.set(place, Math.min(...crossYs.map((cross) => Math.abs(cross - y))));
  }
  const covered = new Float64Array(demand.length);
  for (const place of chosen) for (const { item, units } of stock[place]!) covered[item]! += units;
  const kept = new Set(chosen);
  for (const place of [...kept].sort((a, b) => depth.get(b)! - depth.get(a)!)) {
    if (stock[place]!.some(({ item, units }) => covered[item]! - units < demand[item]!)) continue;
    kept.delete(place);
    for (const { item, units } of stock[place]!) covered[item]! -= units;
  }
  return [...kept];
}

/** y of every cross aisle, front to back. */
export function crossAisleYs(layout: Layout): number[] {
  return [0, ...middleCrossAisleYs(layout), backY(layout)];
}

/** Cover tests and constructions over one problem. */
export class Covers {
  /** By place: there and back from the nearer cross aisle of its block. */
  private readonly reaches: Float64Array;
  /** Units by item that `holdsEveryDemand` counts in, filled again on each call (it runs at every step of a bound). */
  private readonly covered: Float64Array;

  constructor(private readonly problem: ScatteredProblem) {
    const { layout, places } = problem;
    const crossYs = crossAisleYs(layout);
    this.covered = new Float64Array(problem.demand.length);
    this.reaches = Float64Array.from(places, (place) => {
      const y = positionY(layout, place.position);
      let nearest = Infinity;
      for (const cross of crossYs) nearest = Math.min(nearest, Math.abs(cross - y));
      return 2 * nearest;
    });
  }

  /** There and back from the nearer cross aisle of a place's block. */
  reach(place: number): number {
    return this.reaches[place]!;
  }

  /** Whether the places (a list, or flags by place, less the `forbidden`) hold every demand. */
  holdsEveryDemand(places: readonly number[] | Uint8Array, forbidden?: Uint8Array): boolean {
    const covered = this.covered.fill(0);
    const add = (place: number) => {
      if (!forbidden?.[place]) for (const { item, units } of this.problem.stock[place]!) covered[item]! += units;
    };
    if (places instanceof Uint8Array) places.forEach((flag, place) => flag && add(place));
    else places.forEach(add);
    return this.problem.demand.every((want, item) => covered[item]! >= want);
  }

  /**
   * Greedy construction: places that cover every demand, starting from the useful ones of
   * `chosen`. While an item is short, of the few places that look cheapest to add (there and
   * back from the nearest aisle or cross aisle already walked, per unit wanted), the one that
   * lengthens the exact walk least per unit; none in `avoidingAisle`. Exact walks are measured only
   * while the budget that pays for them lasts: after that, the cheapest-looking place is taken, so
   * that completing a cover never overruns the budget by more than a walk.
   */
  completeGreedily(chosen: Uint8Array, walks: WalkMeter, avoidingAisle?: number): number[] {
    const { stock, demand, places, layout } = this.problem;
    const covered = new Float64Array(demand.length);
    const taken: number[] = [];
    const isTaken = new Uint8Array(places.length);
    const aislesWalked = new Set<number>([layout.depotAisle]);
    const take = (place: number) => {
      taken.push(place);
      isTaken[place] = 1;
      aislesWalked.add(places[place]!.aisle);
      for (const { item, units } of stock[place]!) covered[item]! += units;
    };
    const useful = (place: number) => {
      let sum = 0;
      for (const { item, units } of stock[place]!) sum += Math.min(units, Math.max(0, demand[item]! - covered[item]!));
      return sum;
    };
    chosen.forEach((flag, place) => flag && useful(place) > 0 && take(place));
    const extra = (place: number) => {
      let across = Infinity;
      for (const walked of aislesWalked) across = Math.min(across, Math.abs(aisleX(layout, walked) - aisleX(layout, places[place]!.aisle)));
      return 2 * across + this.reach(place);
    };
    for (;;) {
      const open: { place: number; units: number; estimate: number }[] = [];
      for (let place = 0; place < places.length; place++) {
        if (isTaken[place] || places[place]!.aisle === avoidingAisle) continue;
        const units = useful(place);
        if (units > 0) open.push({ place, units, estimate: extra(place) / units });
      }
      if (open.length === 0) return taken;
      const tried = leastOf(open, CANDIDATES_MEASURED, (candidate) => candidate.estimate);
      // Each candidate measured once (a lone one not at all); the first of the cheapest per unit wins.
      let best = tried[0]!.place;
      if (tried.length > 1 && walks.canMeasure()) {
        const now = walks.walkLength(taken);
        let bestPerUnit = Infinity;
        for (const { place, units } of tried) {
          const perUnit = (walks.walkLength([...taken, place]) - now) / units;
          if (perUnit < bestPerUnit) [best, bestPerUnit] = [place, perUnit];
        }
      }
      take(best);
    }
  }

  /**
   * The residual problem once the `required` places are visited anyway: of `items`, the units
   * those places lack (`short`, numbered from 0 in its order), to be taken from the other places.
   * Fewer units wanted, fewer combinations of units for the covering program to tell apart.
   */
  residual(floor: CollectingFloor, items: readonly number[], required: Uint8Array): { short: number[]; problem: CoveringProblem } {
    const { stock, demand } = this.problem;
    const asked = new Set(items);
    const wanted = new Map(items.map((item) => [item, demand[item]!]));
    stock.forEach((here, place) => {
      if (!required[place]) return;
      for (const { item, units } of here) if (asked.has(item)) wanted.set(item, wanted.get(item)! - units);
    });
    const short = items.filter((item) => wanted.get(item)! > 0);
    const number = new Map(short.map((item, index) => [item, index]));
    const shortStock = stock.map((here, place) => (required[place] ? [] : here.flatMap(({ item, units }) => (number.has(item) ? [{ item: number.get(item)!, units: Math.min(units, wanted.get(item)!) }] : []))));
    return { short, problem: { floor, stock: shortStock, demand: short.map((item) => wanted.get(item)!), required } };
  }
}
