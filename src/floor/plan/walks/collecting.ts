import * as optimal from './optimal';
import { spaceFor, type StateSpace } from './optimal';

// Plain constants here: an imported binding can be a property read on every use, and these are read in the inner loops.
const { BOTH_ENDS, EMPTY, FINISHED, FROM_BACK, FROM_FRONT, NOTHING, ONCE, SHAPE_COUNT, TWICE } = optimal;

/*
 * The tour that is shortest once every place it passes pays back its reward: the same dynamic
 * program over aisles as the exact shortest tour, but no place has to be visited except the
 * required ones. Within a subaisle a tour passes the places its pattern covers: all of them for a
 * traversal, those up to how far it reaches from the front and back for the in-and-out patterns
 * (the part in between, left out, may now hold places). Each pattern's best reach is found in one
 * sweep over the subaisle's places, so a tour costs what the dynamic program for fixed places
 * costs. Rewards turn it into the bound that routing items over scattered slots needs.
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

export interface CollectedTour {
  /** The tour's length less the rewards of the candidates it passes. */
  value: number;
  /** The tour's length. */
  length: number;
  /** 1 for each candidate the tour passes. */
  passed: Uint8Array;
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
 * Collecting tours of one floor for many rewards: the floor's buffers are made once. By
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

  constructor(private readonly floor: CollectingFloor) {
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
  }

  /** Fills in one subaisle's pattern costs and reaches under the rewards. */
  private subaisle(at: number, places: readonly number[], front: number, back: number, reward: Float64Array, required: Uint8Array, enter: boolean): void {
    const { cost, frontReach, backReach, fromFront, fromBack } = this;
    const ys = this.floor.ys;
    const n = places.length;
    const length = back - front;
    const base = at * SHAPE_COUNT;
    let all = 0;
    let firstRequired = n;
    let lastRequired = -1;
    for (let i = 0; i < n; i++) {
      const place = places[i]!;
      all += reward[place]!;
      if (required[place]) {
        if (firstRequired === n) firstRequired = i;
        lastRequired = i;
      }
    }
    for (let shape = 0; shape < SHAPE_COUNT; shape++) {
      cost[base + shape] = Infinity;
      frontReach[base + shape] = -1;
      backReach[base + shape] = n;
    }
    if (lastRequired < 0 && !enter) cost[base + NOTHING] = 0;
    cost[base + ONCE] = length - all;
    cost[base + TWICE] = 2 * length - all;
    frontReach[base + ONCE] = frontReach[base + TWICE] = n - 1;
    if (n === 0) return;
    for (let i = 0, collected = 0; i < n; i++) {
      collected += reward[places[i]!]!;
      fromFront[i] = 2 * (ys[places[i]!]! - front) - collected;
    }
    for (let j = n - 1, collected = 0; j >= 0; j--) {
      collected += reward[places[j]!]!;
      fromBack[j] = 2 * (back - ys[places[j]!]!) - collected;
    }
    for (let i = Math.max(lastRequired, 0); i < n; i++) {
      if (fromFront[i]! < cost[base + FROM_FRONT]!) {
        cost[base + FROM_FRONT] = fromFront[i]!;
        frontReach[base + FROM_FRONT] = i;
      }
    }
    for (let j = Math.min(firstRequired, n - 1); j >= 0; j--) {
      if (fromBack[j]! < cost[base + FROM_BACK]!) {
        cost[base + FROM_BACK] = fromBack[j]!;
        backReach[base + FROM_BACK] = j;
      }
    }
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
  }

  /**
   * The collecting tour of least value, or undefined when the work would exceed `budget`. It
   * passes every `required` place and walks into every subaisle `entered` marks (by subaisle:
   * aisle-major, then block). The empty tour (staying at the depot) counts when neither asks
   * for anything.
   */
  tour(reward: Float64Array, required: Uint8Array, entered?: Uint8Array, budget = Infinity): CollectedTour | undefined {
    const { floor, blocks, combos, cost, optionCost, space } = this;
    let lastRequired = floor.depotAisle;
    let anyRequired = false;
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const byBlock = floor.candidates[aisle - 1]!;
      for (let b = 0; b < blocks; b++) {
        const places = byBlock[b]!;
        const at = (aisle - 1) * blocks + b;
        const enter = entered?.[at] === 1;
        this.subaisle(at, places, floor.crossYs[b]!, floor.crossYs[b + 1]!, reward, required, enter);
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
    let work = 0;
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
    const value = values[FINISHED] ?? Infinity;
    if (!anyRequired && !(value < 0)) return { value: 0, length: 0, passed, work };
    // The tour's length: its value with the rewards of the places it passes given back.
    let length = value;
    for (let aisle = floor.aisles, state = FINISHED; aisle >= 1; aisle--) {
      const shapes = combos[taken[aisle - 1]![state]!]!.shapes;
      for (let b = 0; b < blocks; b++) {
        const shape = shapes[b]!;
        if (shape === NOTHING) continue;
        const at = ((aisle - 1) * blocks + b) * SHAPE_COUNT + shape;
        const places = floor.candidates[aisle - 1]![b]!;
        for (let i = 0; i < places.length; i++) {
          if (i > this.frontReach[at]! && i < this.backReach[at]!) continue;
          passed[places[i]!] = 1;
          length += reward[places[i]!]!;
        }
      }
      state = previous[aisle - 1]![state]!;
    }
    return { value, length, passed, work };
  }

  /**
   * By boundary (after aisle j, j = 0..aisles) and state there: the least value the rest of a
   * collecting tour can have, nothing required. What a partial tour can still gain, for bounding.
   */
  toGo(reward: Float64Array): number[][] {
    const { floor, blocks, combos, cost, optionCost, space } = this;
    const none = new Uint8Array(floor.ys.length);
    const options: Float64Array[] = [];
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      for (let b = 0; b < blocks; b++) {
        const at = (aisle - 1) * blocks + b;
        this.subaisle(at, floor.candidates[aisle - 1]![b]!, floor.crossYs[b]!, floor.crossYs[b + 1]!, reward, none, false);
      }
      const base = (aisle - 1) * blocks * SHAPE_COUNT;
      for (let c = 0; c < combos.length; c++) {
        let sum = 0;
        for (let b = 0; b < blocks; b++) sum += cost[base + b * SHAPE_COUNT + combos[c]!.shapes[b]!]!;
        optionCost[c] = sum;
      }
      options.push(Float64Array.from(optionCost));
    }
    const kindOf = (aisle: number) => (aisle === floor.depotAisle ? 1 : 0) + (aisle >= floor.depotAisle ? 2 : 0);
    // The states met at each boundary, going forward.
    const met: number[][] = [[EMPTY]];
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const seen = new Set<number>();
      for (const state of met[aisle - 1]!) {
        combos.forEach((combo, c) => {
          if (options[aisle - 1]![c] === Infinity) return;
          for (const transition of space.transitionsFrom(state, combo.shapes, combo.key, kindOf(aisle))) seen.add(transition.next);
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
          for (const transition of space.transitionsFrom(state, combo.shapes, combo.key, kindOf(aisle))) {
            if (lastAisle && transition.width > 0) continue;
            const rest = after[transition.next];
            if (rest !== undefined) best = Math.min(best, option + transition.width * floor.spacing + rest);
          }
        });
        if (best < Infinity) go[aisle - 1]![state] = best;
      }
    }
    return go;
  }
}
