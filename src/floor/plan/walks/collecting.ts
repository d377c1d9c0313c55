import * as optimal from './optimal';
import { spaceFor, type StateSpace } from './optimal';

// Plain constants here: an imported binding can be a property read on every use, and these are read in the inner loops.
const { BOTH_ENDS, EMPTY, FINISHED, FROM_BACK, FROM_FRONT, NOTHING, ONCE, SHAPE_COUNT, TWICE } = optimal;

/*
 * The tour that is shortest once the units it passes pay back their prices: the same dynamic
 * program over aisles as the exact shortest tour, but no place has to be visited except the
 * required ones. Within a subaisle a tour passes the places its pattern covers: all of them for a
 * traversal, those up to how far it reaches from the front and back for the in-and-out patterns
 * (the part in between, left out, may now hold places). Each pattern's best reach is found in one
 * sweep over the subaisle's places, so a tour costs what the dynamic program for fixed places
 * costs. Prices turn it into the bound that routing items over scattered slots needs.
 *
 * Each part of a subaisle a tour passes (the whole of it, or its front part, or its back part)
 * is paid for at most the units wanted of each item: a tour that covers the demands still
 * collects at least the demands' price, so the bound stays a bound, and a tour can no longer
 * look cheap by passing the same item again and again in one aisle.
 */

/** The floor as the collecting tour sees it: where the candidate places stand. */
export interface CollectingFloor {
  aisles: number;
  depotAisle: number;
  /** y of every cross aisle, front to back. */
  crossYs: readonly number[];
  /** Distance between neighbouring aisles. */
  spacing: number;
  /** By aisle - 1, then block (front first): the candidates in that subaisle, front to back. */
  candidates: readonly (readonly (readonly number[])[])[];
  /** y of each candidate. */
  ys: readonly number[];
}

/** What the candidates hold: by candidate, the items there and their units (at most the item's demand). */
export interface CollectingGoods {
  stock: readonly (readonly { item: number; units: number }[])[];
  demand: readonly number[];
}

export interface CollectedTour {
  /** The tour's length less the price of the units it is paid for. */
  value: number;
  /** The tour's length. */
  length: number;
  /** 1 for each candidate the tour passes. */
  passed: Uint8Array;
  /** By item: the units the tour is paid for (at most the demand in each part of a subaisle it passes). */
  collected: Float64Array;
  /** Transitions the dynamic program looked at. */
  work: number;
}

/** Every combination of one shape per block, with the key the state space looks transitions up by. */
interface Combination {
  shapes: number[];
  key: number;
}

const COMBINATIONS = new Map<number, Combination[]>();

function combinationsFor(blocks: number): Combination[] {
  let known = COMBINATIONS.get(blocks);
  if (!known) {
    known = [{ shapes: [], key: 0 }];
    for (let b = 0; b < blocks; b++) {
      known = known.flatMap(({ shapes, key }) =>
        Array.from({ length: SHAPE_COUNT }, (_, shape) => ({ shapes: [...shapes, shape], key: key + shape * SHAPE_COUNT ** b })),
      );
    }
    COMBINATIONS.set(blocks, known);
  }
  return known;
}

/**
 * Collecting tours of one floor for many prices: the floor's buffers are made once. By
 * subaisle (aisle-major, then block) and shape: what the pattern costs, the last place it passes
 * from the front (-1 for none) and the first it passes from the back (the count for none).
 */
export class CollectingTours {
  private readonly blocks: number;
  private readonly space: StateSpace;
  private readonly combos: Combination[];
  private readonly cost: Float64Array;
  private readonly frontReach: Int32Array;
  private readonly backReach: Int32Array;
  private readonly fromFront: Float64Array;
  private readonly fromBack: Float64Array;
  private readonly optionCost: Float64Array;
  /** By subaisle and shape: the price of the units the pattern is paid for. */
  private readonly gain: Float64Array;
  /** Units of each item counted so far in one sweep (all zero between sweeps). */
  private readonly counts: Float64Array;
  /** The goods flattened for the sweeps: place p holds units[k] of item[k] for k from first[p] to first[p + 1]. */
  private readonly first: Int32Array;
  private readonly item: Int32Array;
  private readonly units: Float64Array;
  private readonly demand: Float64Array;
  /** What the sweeps over every subaisle's places count as, in transitions: four looks at each unit held. */
  private readonly sweepWork: number;

  constructor(
    private readonly floor: CollectingFloor,
    private readonly goods: CollectingGoods,
  ) {
    this.blocks = floor.crossYs.length - 1;
    this.space = spaceFor(floor.crossYs.length);
    this.combos = combinationsFor(this.blocks);
    const subaisles = floor.aisles * this.blocks;
    this.cost = new Float64Array(subaisles * SHAPE_COUNT);
    this.frontReach = new Int32Array(subaisles * SHAPE_COUNT);
    this.backReach = new Int32Array(subaisles * SHAPE_COUNT);
    const most = Math.max(1, ...floor.candidates.flatMap((byBlock) => byBlock.map((places) => places.length)));
    this.fromFront = new Float64Array(most);
    this.fromBack = new Float64Array(most);
    this.optionCost = new Float64Array(this.combos.length);
    this.gain = new Float64Array(subaisles * SHAPE_COUNT);
    this.counts = new Float64Array(goods.demand.length);
    this.demand = Float64Array.from(goods.demand);
    this.first = new Int32Array(goods.stock.length + 1);
    goods.stock.forEach((here, place) => (this.first[place + 1] = this.first[place]! + here.length));
    this.item = Int32Array.from(goods.stock.flatMap((here) => here.map(({ item }) => item)));
    this.units = Float64Array.from(goods.stock.flatMap((here) => here.map(({ units }) => units)));
    this.sweepWork = 4 * this.item.length;
  }

  /**
   * What the place adds to a part already holding `counts` (which it updates): the price of its
   * units up to the demand of each item. Nothing for a place `forbidden`.
   */
  private adds(place: number, prices: Float64Array, forbidden: Uint8Array | undefined): number {
    if (forbidden?.[place]) return 0;
    const { counts, demand, item, units } = this;
    let gained = 0;
    for (let k = this.first[place]!, end = this.first[place + 1]!; k < end; k++) {
      const which = item[k]!;
      const had = counts[which]!;
      const want = demand[which]!;
      if (had < want) gained += prices[which]! * (Math.min(want, had + units[k]!) - had);
      counts[which] = had + units[k]!;
    }
    return gained;
  }

  private clearCounts(places: readonly number[]): void {
    for (const place of places) for (let k = this.first[place]!, end = this.first[place + 1]!; k < end; k++) this.counts[this.item[k]!] = 0;
  }

  /** Fills in one subaisle's pattern costs, reaches and gains under the prices. */
  private subaisle(at: number, places: readonly number[], front: number, back: number, prices: Float64Array, forbidden: Uint8Array | undefined, required: Uint8Array, enter: boolean): void {
    const { cost, gain, frontReach, backReach, fromFront, fromBack } = this;
    const ys = this.floor.ys;
    const n = places.length;
    const length = back - front;
    const base = at * SHAPE_COUNT;
    let firstRequired = n;
    let lastRequired = -1;
    for (let i = 0; i < n; i++) {
      if (!required[places[i]!]) continue;
      if (firstRequired === n) firstRequired = i;
      lastRequired = i;
    }
    // The front part as far as i, then the back part from j: each paid for apart.
    let all = 0;
    for (let i = 0; i < n; i++) {
      all += this.adds(places[i]!, prices, forbidden);
      fromFront[i] = 2 * (ys[places[i]!]! - front) - all;
    }
    this.clearCounts(places);
    for (let j = n - 1, collected = 0; j >= 0; j--) {
      collected += this.adds(places[j]!, prices, forbidden);
      fromBack[j] = 2 * (back - ys[places[j]!]!) - collected;
    }
    this.clearCounts(places);
    for (let shape = 0; shape < SHAPE_COUNT; shape++) {
      cost[base + shape] = Infinity;
      gain[base + shape] = 0;
      frontReach[base + shape] = -1;
      backReach[base + shape] = n;
    }
    if (lastRequired < 0 && !enter) cost[base + NOTHING] = 0;
    cost[base + ONCE] = length - all;
    cost[base + TWICE] = 2 * length - all;
    gain[base + ONCE] = gain[base + TWICE] = all;
    frontReach[base + ONCE] = frontReach[base + TWICE] = n - 1;
    if (n === 0) return;
    const frontGain = (i: number) => 2 * (ys[places[i]!]! - front) - fromFront[i]!;
    const backGain = (j: number) => 2 * (back - ys[places[j]!]!) - fromBack[j]!;
    for (let i = Math.max(lastRequired, 0); i < n; i++) {
      if (fromFront[i]! < cost[base + FROM_FRONT]!) {
        cost[base + FROM_FRONT] = fromFront[i]!;
        frontReach[base + FROM_FRONT] = i;
      }
    }
    if (frontReach[base + FROM_FRONT]! >= 0) gain[base + FROM_FRONT] = frontGain(frontReach[base + FROM_FRONT]!);
    for (let j = Math.min(firstRequired, n - 1); j >= 0; j--) {
      if (fromBack[j]! < cost[base + FROM_BACK]!) {
        cost[base + FROM_BACK] = fromBack[j]!;
        backReach[base + FROM_BACK] = j;
      }
    }
    if (backReach[base + FROM_BACK]! < n) gain[base + FROM_BACK] = backGain(backReach[base + FROM_BACK]!);
    // Both ends: the front part as far as i, the back part from j > i; no required place between them.
    let bestFront = Infinity;
    let bestFrontAt = -1;
    for (let j = 1; j < n; j++) {
      const i = j - 1;
      if (required[places[i]!] || fromFront[i]! < bestFront) {
        bestFront = fromFront[i]!;
        bestFrontAt = i;
      }
      if (bestFront + fromBack[j]! < cost[base + BOTH_ENDS]!) {
        cost[base + BOTH_ENDS] = bestFront + fromBack[j]!;
        frontReach[base + BOTH_ENDS] = bestFrontAt;
        backReach[base + BOTH_ENDS] = j;
      }
    }
    // In and out from both ends never beats two traversals, which also join the ends.
    if (cost[base + BOTH_ENDS]! >= cost[base + TWICE]!) cost[base + BOTH_ENDS] = Infinity;
    else gain[base + BOTH_ENDS] = frontGain(frontReach[base + BOTH_ENDS]!) + backGain(backReach[base + BOTH_ENDS]!);
    // Where the tour may leave the subaisle alone, an in-and-out walk that pays back less than it
    // costs never helps: it hangs off a cross aisle the tour passes anyway. Fewer patterns, fewer
    // combinations of blocks to try.
    if (cost[base + NOTHING] === 0) for (const shape of [FROM_FRONT, FROM_BACK, BOTH_ENDS]) if (cost[base + shape]! >= 0) cost[base + shape] = Infinity;
  }

  /**
   * The collecting tour of least value at `prices` (per unit of each item), or undefined when
   * the work would exceed `budget`. It passes every `required` place, is paid nothing at a
   * `forbidden` one, and walks into every subaisle `entered` marks (by subaisle: aisle-major,
   * then block). The empty tour (staying at the depot) counts when neither asks for anything.
   */
  tour(prices: Float64Array, required: Uint8Array, forbidden?: Uint8Array, entered?: Uint8Array, budget = Infinity): CollectedTour | undefined {
    const { floor, blocks, combos, cost, optionCost, space } = this;
    let lastRequired = floor.depotAisle;
    let anyRequired = false;
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const byBlock = floor.candidates[aisle - 1]!;
      for (let b = 0; b < blocks; b++) {
        const places = byBlock[b]!;
        const at = (aisle - 1) * blocks + b;
        const enter = entered?.[at] === 1;
        this.subaisle(at, places, floor.crossYs[b]!, floor.crossYs[b + 1]!, prices, forbidden, required, enter);
        if (enter) {
          anyRequired = true;
          lastRequired = Math.max(lastRequired, aisle);
        }
        for (const place of places) {
          if (!required[place]) continue;
          anyRequired = true;
          lastRequired = Math.max(lastRequired, aisle);
        }
      }
    }

    let states = [EMPTY];
    let values: number[] = [0];
    // By aisle: for each state reached, the state before it and the combination taken.
    const previous: number[][] = [];
    const taken: number[][] = [];
    let work = this.sweepWork;
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const base = (aisle - 1) * blocks * SHAPE_COUNT;
      for (let c = 0; c < combos.length; c++) {
        const shapes = combos[c]!.shapes;
        let sum = 0;
        for (let b = 0; b < blocks; b++) sum += cost[base + b * SHAPE_COUNT + shapes[b]!]!;
        optionCost[c] = sum;
      }
      const kind = (aisle === floor.depotAisle ? 1 : 0) + (aisle >= lastRequired ? 2 : 0);
      const lastAisle = aisle === floor.aisles;
      const reached: number[] = [];
      const next: number[] = [];
      const from: number[] = [];
      const via: number[] = [];
      for (const state of states) {
        const before = values[state]!;
        for (let c = 0; c < combos.length; c++) {
          const option = optionCost[c]!;
          if (option === Infinity) continue;
          const transitions = space.transitionsFrom(state, combos[c]!.shapes, combos[c]!.key, kind);
          work += transitions.length + 1;
          for (const transition of transitions) {
            if (lastAisle && transition.width > 0) continue;
            const total = before + option + transition.width * floor.spacing;
            const after = transition.next;
            const known = next[after];
            if (known === undefined) reached.push(after);
            else if (total >= known) continue;
            next[after] = total;
            from[after] = state;
            via[after] = c;
          }
        }
        if (work > budget) return undefined;
      }
      previous.push(from);
      taken.push(via);
      states = reached;
      values = next;
    }

    const passed = new Uint8Array(floor.ys.length);
    const collected = new Float64Array(this.goods.demand.length);
    const value = values[FINISHED] ?? Infinity;
    if (!anyRequired && !(value < 0)) return { value: 0, length: 0, passed, collected, work };
    // The tour's length: its value with the gains of its patterns given back.
    let length = value;
    for (let aisle = floor.aisles, state = FINISHED; aisle >= 1; aisle--) {
      const shapes = combos[taken[aisle - 1]![state]!]!.shapes;
      for (let b = 0; b < blocks; b++) {
        const shape = shapes[b]!;
        if (shape === NOTHING) continue;
        const at = ((aisle - 1) * blocks + b) * SHAPE_COUNT + shape;
        length += this.gain[at]!;
        const places = floor.candidates[aisle - 1]![b]!;
        const front = places.slice(0, this.frontReach[at]! + 1);
        // Every pattern's back part starts at its back reach (the count of places where it has none).
        for (const part of [front, places.slice(this.backReach[at]!)]) this.collect(part, forbidden, passed, collected);
      }
      state = previous[aisle - 1]![state]!;
    }
    return { value, length, passed, collected, work };
  }

  /** Marks a part's places passed and adds the units it is paid for (at most each demand) to `collected`. */
  private collect(part: readonly number[], forbidden: Uint8Array | undefined, passed: Uint8Array, collected: Float64Array): void {
    const { counts } = this;
    for (const place of part) {
      passed[place] = 1;
      if (!forbidden?.[place]) for (const { item, units } of this.goods.stock[place]!) counts[item]! += units;
    }
    for (const place of part) {
      for (const { item } of this.goods.stock[place]!) {
        collected[item]! += Math.min(this.goods.demand[item]!, counts[item]!);
        counts[item] = 0;
      }
    }
  }

  /**
   * By boundary (after aisle j, j = 0..aisles) and state there: the least value the rest of a
   * collecting tour can have at `prices`, passing the `required` places after the boundary.
   * What a partial tour can still gain, for bounding; `work` counts the transitions looked at.
   */
  toGo(prices: Float64Array, required = new Uint8Array(this.floor.ys.length)): { byBoundary: number[][]; work: number } {
    const { floor, blocks, combos, cost, optionCost, space } = this;
    let work = this.sweepWork;
    let lastRequired = floor.depotAisle;
    const options: Float64Array[] = [];
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      for (let b = 0; b < blocks; b++) {
        const at = (aisle - 1) * blocks + b;
        const places = floor.candidates[aisle - 1]![b]!;
        this.subaisle(at, places, floor.crossYs[b]!, floor.crossYs[b + 1]!, prices, undefined, required, false);
        if (places.some((place) => required[place])) lastRequired = Math.max(lastRequired, aisle);
      }
      const base = (aisle - 1) * blocks * SHAPE_COUNT;
      for (let c = 0; c < combos.length; c++) {
        let sum = 0;
        for (let b = 0; b < blocks; b++) sum += cost[base + b * SHAPE_COUNT + combos[c]!.shapes[b]!]!;
        optionCost[c] = sum;
      }
      options.push(Float64Array.from(optionCost));
    }
    const kindOf = (aisle: number) => (aisle === floor.depotAisle ? 1 : 0) + (aisle >= lastRequired ? 2 : 0);
    // The states met at each boundary, going forward.
    const met: number[][] = [[EMPTY]];
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const seen = new Set<number>();
      for (const state of met[aisle - 1]!) {
        combos.forEach((combo, c) => {
          if (options[aisle - 1]![c] === Infinity) return;
          const transitions = space.transitionsFrom(state, combo.shapes, combo.key, kindOf(aisle));
          work += transitions.length + 1;
          for (const transition of transitions) seen.add(transition.next);
        });
      }
      met.push([...seen]);
    }
    const go: number[][] = met.map(() => []);
    go[floor.aisles]![FINISHED] = 0;
    for (let aisle = floor.aisles; aisle >= 1; aisle--) {
      const after = go[aisle]!;
      const lastAisle = aisle === floor.aisles;
      for (const state of met[aisle - 1]!) {
        let best = Infinity;
        combos.forEach((combo, c) => {
          const option = options[aisle - 1]![c]!;
          if (option === Infinity) return;
          const transitions = space.transitionsFrom(state, combo.shapes, combo.key, kindOf(aisle));
          work += transitions.length + 1;
          for (const transition of transitions) {
            if (lastAisle && transition.width > 0) continue;
            const rest = after[transition.next];
            if (rest !== undefined) best = Math.min(best, option + transition.width * floor.spacing + rest);
          }
        });
        if (best < Infinity) go[aisle - 1]![state] = best;
      }
    }
    return { byBoundary: go, work };
  }
}
