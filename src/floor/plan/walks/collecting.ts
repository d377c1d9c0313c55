import { aisleKind, grownTo, undominated, UnitsCode } from './labels';
import * as optimal from './optimal';
import { spaceFor, unreached, type StateSpace } from './optimal';
import { pastDeadline } from '../deadline';

// Plain constants here: an imported binding can be a property read on every use, and these are read in the inner loops.
const { BOTH_ENDS, EMPTY, FINISHED, FROM_BACK, FROM_FRONT, NOTHING, ONCE, SHAPE_COUNT, TWICE } = optimal;

/*
 * The prize-collecting tour of the Lagrangian relaxation that routing items over scattered slots
 * is bounded by: the demand is dropped and each unit of an item the tour passes pays back its
 * price (the Lagrangian multiplier), and the tour of least length less what it is paid back (its
 * value) is found by the same dynamic program over aisles as the exact shortest tour, with no
 * place to visit but the required ones. Its value plus the price of the demand is a lower bound on
 * the shortest walk that covers the demand. Within a subaisle a tour passes the places its pattern
 * covers: all of them for a traversal, those up to how far it reaches from the front and back for
 * the in-and-out patterns (the part in between, left out, may now hold places). Each pattern's
 * best reach is found in one sweep over the subaisle's places, so a tour costs what the dynamic
 * program for fixed places costs.
 *
 * Each part of a subaisle a tour passes (the whole of it, or its front part, or its back part)
 * is paid for at most the units wanted of each item: a tour that covers the demands still
 * collects at least the demands' price, so the bound stays a bound, and a tour can no longer
 * look cheap by passing the same item again and again in one aisle.
 *
 * A few items may be tracked (decremental state-space relaxation): a label is then a frontier
 * state and the units taken of each tracked item (a units code, walks/labels.ts), so each is paid
 * for at most its demand over the whole tour, and labels are dropped by dominance. That is still
 * a bound (a walk that covers the demands takes no more than them), and tracking every item makes
 * it the least, over every set of places, of the walk through them less what they hold. Worked
 * backwards from the last aisle, the same gives completion bounds (values to go) by frontier
 * state, and by units taken of the tracked items, which bound the covering program's labels.
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

/** A collecting tour. Its `passed` and `collected` are the tours' own buffers, which the next tour overwrites: copy what is kept. */
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

/** A pattern a tour takes: its subaisle, what it is paid back, its reaches, and the most units of each item each of its parts is paid for. */
interface TourPattern {
  at: number;
  gain: number;
  frontReach: number;
  backReach: number;
  caps: Float64Array;
}

interface TourRun {
  value: number;
  work: number;
  patterns: TourPattern[];
}

/** One way through a subaisle for given tracked units: its shape and reaches, its value, what it is paid back, and the tracked items' part of the code after it. */
interface TrackedOption {
  shape: number;
  cost: number;
  gain: number;
  frontReach: number;
  backReach: number;
  next: number;
}

/** A pattern through a subaisle at given reaches: its shape and reaches, what it walks less what the untracked items pay, that pay, and the tracked units it passes (at most each demand) as a units code. */
interface Reach {
  shape: number;
  cost: number;
  gain: number;
  frontReach: number;
  backReach: number;
  passes: number;
}

/** A subaisle as the tracked dynamic program sees it: the reaches worth trying, whether the tour may leave it alone, its count of places, and the work of finding the reaches. */
interface TrackedSubaisle {
  reaches: Reach[];
  skippable: boolean;
  placeCount: number;
  work: number;
}

/**
 * What a collecting tour is asked: the prices of a unit of each item, the places it must pass or
 * is paid nothing at, and the subaisles it must walk into. Every field is always set, in this
 * order: terms of one shape keep the reads of them in each subaisle's sweep monomorphic (terms
 * without `forbidden` made the tours measurably slower).
 */
interface TourTerms {
  prices: Float64Array;
  /** 1 for each place the tour must pass. */
  required: Uint8Array;
  /** 1 for each place the tour is paid nothing at. */
  forbidden: Uint8Array | undefined;
  /** By subaisle (aisle-major, then block): 1 where the tour must walk in. */
  entered: Uint8Array | undefined;
}

/** The ways taken through an aisle's blocks so far for one code: their value, the code after them, their shapes as a combination's key. */
interface AisleWay {
  cost: number;
  code: number;
  shapesKey: number;
  picks: TrackedOption[];
}

/** A step of the tracked dynamic program (a label's way through an aisle, a check, a reach priced) costs about as much as this many transitions of the untracked one. */
const TRACKED_STEP_COST = 4;

/** The same for the tracked values to go, worked backwards: each step there is cheaper (no labels to keep or compare). */
const TRACKED_TO_GO_STEP_COST = 2;

/** How many of the cheapest labels kept of its frontier state a tracked tour's label is checked against for dominance (the covering program checks against more). */
const DOMINANCE_CHECKS_PER_TRACKED_LABEL = 32;

/**
 * The tracked items of a collecting tour: the units taken of each (at most its demand) are the
 * digits of a units code, tracked item j's digit at place value `radix[j]`.
 */
class Tracking extends UnitsCode {
  /** By subaisle: the work of one sweep over its places. */
  readonly sweepWork: number[];
  /** Every item's demand, the tracked ones' none: what the untracked items are paid for at most in a part. */
  readonly untrackedCaps: Float64Array;
  /** By subaisle: the tracked items (their indexes among the tracked) its places hold. */
  private readonly here: number[][];
  /** By subaisle, then its tracked items in the order of `here`: the units of that item in its first i places (forbidden ones left out). */
  private readonly unitsBefore: Float64Array[][];
  private readonly capsByCode = new Map<number, Float64Array>();
  /** The depot's subaisle (aisle-major, then block). */
  private readonly depotAt: number;

  constructor(
    floor: CollectingFloor,
    private readonly goods: CollectingGoods,
    private readonly tracked: readonly number[],
    forbidden: Uint8Array | undefined,
  ) {
    super(tracked.map((item) => goods.demand[item]!));
    this.depotAt = (floor.depotAisle - 1) * (floor.crossYs.length - 1);
    this.untrackedCaps = Float64Array.from(goods.demand);
    for (const item of tracked) this.untrackedCaps[item] = 0;
    const index = new Map(tracked.map((item, j) => [item, j]));
    const subaisles = floor.candidates.flatMap((byBlock) => byBlock);
    this.here = [];
    this.unitsBefore = [];
    for (const places of subaisles) {
      const byItem = new Map<number, Float64Array>();
      places.forEach((place, i) => {
        if (forbidden?.[place]) return;
        for (const { item, units } of goods.stock[place]!) {
          const j = index.get(item);
          if (j === undefined) continue;
          const before = byItem.get(j) ?? byItem.set(j, new Float64Array(places.length + 1)).get(j)!;
          before[i + 1]! += units;
        }
      });
      for (const before of byItem.values()) for (let i = 1; i < before.length; i++) before[i]! += before[i - 1]!;
      this.here.push([...byItem.keys()]);
      this.unitsBefore.push([...byItem.values()]);
    }
    this.sweepWork = subaisles.map((places) => 4 * places.reduce((sum, place) => sum + goods.stock[place]!.length, 0));
  }

  /** The units tracked item j still lacks when the tracked items have the units of `code`. */
  lacking(code: number, j: number): number {
    return this.wants[j]! - this.unitsTaken(code, j);
  }

  /** The code's digits of the tracked items the subaisle holds (the others zero). */
  part(code: number, at: number): number {
    let part = 0;
    for (const j of this.here[at]!) part += this.unitsTaken(code, j) * this.radix[j]!;
    return part;
  }

  /** The most units of each item a part may be paid for when the tracked items have the units of `code`. */
  caps(code: number): Float64Array {
    let caps = this.capsByCode.get(code);
    if (!caps) {
      caps = Float64Array.from(this.goods.demand);
      this.tracked.forEach((item, j) => (caps![item] = this.wants[j]! - this.unitsTaken(code, j)));
      this.capsByCode.set(code, caps);
    }
    return caps;
  }

  /** The tracked units (at most each demand) in the subaisle's first `frontEnd` places and those from `backStart` on, as a code. */
  passes(at: number, frontEnd: number, backStart: number): number {
    const unitsBefore = this.unitsBefore[at]!;
    let code = 0;
    this.here[at]!.forEach((j, h) => {
      const before = unitsBefore[h]!;
      code += Math.min(this.wants[j]!, before[frontEnd]! + before[before.length - 1]! - before[backStart]!) * this.radix[j]!;
    });
    return code;
  }

  /**
   * The ways through a subaisle when the tracked items it holds have the units of `code`: each
   * reach paid for every tracked unit it passes that is still lacking, the cheapest for each code
   * after it. Where the tour may leave the subaisle alone, an in-and-out walk that pays back less
   * than it walks never helps.
   */
  options({ reaches, skippable, placeCount }: TrackedSubaisle, at: number, code: number, prices: Float64Array): TrackedOption[] {
    const best = new Map<number, TrackedOption>();
    for (const reach of reaches) {
      let gain = 0;
      let next = 0;
      for (const j of this.here[at]!) {
        const had = this.unitsTaken(code, j);
        const paid = Math.min(this.wants[j]! - had, this.unitsTaken(reach.passes, j));
        gain += paid * prices[this.tracked[j]!]!;
        next += (had + paid) * this.radix[j]!;
      }
      const cost = reach.cost - gain;
      // Not so from the depot into its own aisle: the rest of a tour can be that walk alone.
      if (skippable && cost >= 0 && reach.shape !== ONCE && reach.shape !== TWICE && !(at === this.depotAt && reach.shape === FROM_FRONT)) continue;
      const id = reach.shape * this.total + next;
      const known = best.get(id);
      if (!known || cost < known.cost) best.set(id, { shape: reach.shape, cost, gain: reach.gain + gain, frontReach: reach.frontReach, backReach: reach.backReach, next });
    }
    const options = [...best.values()];
    if (skippable) options.push({ shape: NOTHING, cost: 0, gain: 0, frontReach: -1, backReach: placeCount, next: code });
    return options;
  }

  /**
   * The labels (by key, state * total + code, and value) that none of the cheapest kept of their
   * frontier state dominates: no dearer, and no more units taken of any tracked item, so no less
   * to gain. Their indexes, by state, each state's cheapest first; a check counts as a step.
   */
  undominatedLabels(keys: readonly number[], values: readonly number[], counted: { work: number }): number[] {
    const { total } = this;
    const order = keys.map((_, i) => i).sort((x, y) => Math.floor(keys[x]! / total) - Math.floor(keys[y]! / total) || values[x]! - values[y]!);
    const dominance = {
      groupOf: (i: number) => Math.floor(keys[i]! / total),
      dominates: (kept: number, i: number) => this.noMore(keys[kept]! % total, keys[i]! % total),
      mostChecks: DOMINANCE_CHECKS_PER_TRACKED_LABEL,
      checksPerStep: 1,
    };
    return undominated(order, dominance, counted).flat();
  }
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
 * Prize-collecting tours of one floor for many prices: the floor's buffers are made once. By
 * subaisle (aisle-major, then block) and shape: what the pattern costs, the last place it passes
 * from the front (-1 for none) and the first it passes from the back (the count for none).
 */
/** What a prize-collecting tour is asked besides its prices and required places: see CollectingTours.tour. */
export interface TourOptions {
  forbidden?: Uint8Array | undefined;
  entered?: Uint8Array | undefined;
  budget?: number;
  tracked?: readonly number[];
}

/** What tracked values to go are asked besides their prices, items and required places: see CollectingTours.trackedToGo. */
export interface ToGoOptions {
  entered?: Uint8Array | undefined;
  budget?: number;
  counted?: Float64Array;
}

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
  /**
   * By aisle - 1: for each state the aisle step reached, the state before it and the combination
   * taken. Kept from tour to tour: a tour reads back only states it reached, whose entries it wrote.
   */
  private readonly previous: Int32Array[];
  private readonly taken: Int32Array[];
  /** What `tour` returns as passed and collected, filled again for each tour: a typed array made costs more than the tour's step over an aisle. */
  private readonly passed: Uint8Array;
  private readonly collected: Float64Array;
  /** The dynamic program's values by state for one aisle and the next, used in turn (grown with the state space). */
  private values: Float64Array;
  private spare: Float64Array;
  /** The combinations of finite cost in the aisle under way, first `open` of them. */
  private readonly openCombos: Int32Array;
  /** By subaisle and shape: the price of the units the pattern is paid for. */
  private readonly gain: Float64Array;
  /** Units of each item counted so far in one sweep (all zero between sweeps). */
  private readonly counts: Float64Array;
  /** The goods flattened for the sweeps: place p holds units[k] of item[k] for k from first[p] to first[p + 1]. */
  private readonly first: Int32Array;
  private readonly item: Int32Array;
  private readonly units: Float64Array;
  private readonly demand: Float64Array;
  /** The most units of each item a part is paid for in the sweep under way: the demand, less what tracked items already have. */
  private caps: Float64Array;
  /** In the subaisle `fillPatterns` filled last: the first and the last place the tour must pass (the count and -1 for none). */
  private firstRequired = 0;
  private lastRequired = -1;
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
    this.passed = new Uint8Array(floor.ys.length);
    this.collected = new Float64Array(goods.demand.length);
    this.values = unreached(Math.max(FINISHED + 1, this.space.size));
    this.spare = unreached(this.values.length);
    this.previous = Array.from({ length: floor.aisles }, () => new Int32Array(this.values.length));
    this.taken = Array.from({ length: floor.aisles }, () => new Int32Array(this.values.length));
    this.openCombos = new Int32Array(this.combos.length);
    this.gain = new Float64Array(subaisles * SHAPE_COUNT);
    this.counts = new Float64Array(goods.demand.length);
    this.demand = Float64Array.from(goods.demand);
    this.caps = this.demand;
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
    const { counts, caps: demand, item, units } = this;
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

  /** Fills in one subaisle's pattern costs, reaches and gains under the terms' prices. */
  private fillPatterns(at: number, { prices, forbidden, required, entered }: TourTerms): void {
    const { floor, blocks, cost, gain, frontReach, backReach, fromFront, fromBack } = this;
    const places = floor.candidates[Math.floor(at / blocks)]![at % blocks]!;
    const front = floor.crossYs[at % blocks]!;
    const back = floor.crossYs[(at % blocks) + 1]!;
    const ys = floor.ys;
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
    this.firstRequired = firstRequired;
    this.lastRequired = lastRequired;
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
    if (lastRequired < 0 && entered?.[at] !== 1) cost[base + NOTHING] = 0;
    cost[base + ONCE] = length - all;
    cost[base + TWICE] = 2 * length - all;
    gain[base + ONCE] = gain[base + TWICE] = all;
    frontReach[base + ONCE] = frontReach[base + TWICE] = n - 1;
    if (n === 0) return;
    for (let i = Math.max(lastRequired, 0); i < n; i++) {
      if (fromFront[i]! < cost[base + FROM_FRONT]!) {
        cost[base + FROM_FRONT] = fromFront[i]!;
        frontReach[base + FROM_FRONT] = i;
      }
    }
    if (frontReach[base + FROM_FRONT]! >= 0) gain[base + FROM_FRONT] = frontGainOf(ys, places, front, fromFront, frontReach[base + FROM_FRONT]!);
    for (let j = Math.min(firstRequired, n - 1); j >= 0; j--) {
      if (fromBack[j]! < cost[base + FROM_BACK]!) {
        cost[base + FROM_BACK] = fromBack[j]!;
        backReach[base + FROM_BACK] = j;
      }
    }
    if (backReach[base + FROM_BACK]! < n) gain[base + FROM_BACK] = backGainOf(ys, places, back, fromBack, backReach[base + FROM_BACK]!);
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
    else gain[base + BOTH_ENDS] = frontGainOf(ys, places, front, fromFront, frontReach[base + BOTH_ENDS]!) + backGainOf(ys, places, back, fromBack, backReach[base + BOTH_ENDS]!);
    // Where the tour may leave the subaisle alone, an in-and-out walk that pays back less than it
    // costs never helps: it hangs off a cross aisle the tour passes anyway. Fewer patterns, fewer
    // combinations of blocks to try. Not so from the depot into its own aisle: the rest of a tour
    // can be that walk alone, and then it passes no cross aisle.
    const fromDepot = at === (floor.depotAisle - 1) * blocks;
    if (cost[base + NOTHING] === 0) for (let shape = FROM_FRONT; shape <= BOTH_ENDS; shape++) if (cost[base + shape]! >= 0 && !(fromDepot && shape === FROM_FRONT)) cost[base + shape] = Infinity;
  }

  /**
   * The prize-collecting tour of least value at the Lagrangian `prices` (per unit of each item),
   * or undefined when the work would exceed `budget`. It passes every `required` place, is paid
   * nothing at a `forbidden` one, and walks into every subaisle `entered` marks (by subaisle:
   * aisle-major, then block). The empty tour (staying at the depot) counts when neither asks for
   * anything. Each `tracked` item is paid for at most its demand over the whole tour, not in each
   * part: the units taken of each are carried in the labels (decremental state-space relaxation).
   */
  tour(prices: Float64Array, required: Uint8Array, { forbidden, entered, budget = Infinity, tracked = [] }: TourOptions = {}): CollectedTour | undefined {
    const terms: TourTerms = { prices, required, forbidden, entered };
    const { lastRequired, anyRequired } = this.prepare(terms);
    const run = tracked.length === 0 ? this.untrackedRun(lastRequired, budget) : this.trackedRun(new Tracking(this.floor, this.goods, tracked, forbidden), terms, lastRequired, budget);
    if (!run) return undefined;
    const { value, work, patterns } = run;
    const passed = this.passed.fill(0);
    const collected = this.collected.fill(0);
    if (!anyRequired && !(value < 0)) return { value: 0, length: 0, passed, collected, work };
    // The tour's length: its value with the gains of its patterns given back.
    let length = value;
    for (const { at, gain, frontReach, backReach, caps } of patterns) {
      length += gain;
      const places = this.floor.candidates[Math.floor(at / this.blocks)]![at % this.blocks]!;
      // Every pattern's back part starts at its back reach (the count of places where it has none).
      this.collect(places, 0, frontReach + 1, forbidden, caps);
      this.collect(places, backReach, places.length, forbidden, caps);
    }
    return { value, length, passed, collected, work };
  }

  /** Fills in every subaisle's patterns under the terms; the last aisle a tour must reach and whether anything is required. */
  private prepare(terms: TourTerms): { lastRequired: number; anyRequired: boolean } {
    const { floor, blocks } = this;
    const { required, entered } = terms;
    let lastRequired = floor.depotAisle;
    let anyRequired = false;
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const byBlock = floor.candidates[aisle - 1]!;
      for (let b = 0; b < blocks; b++) {
        const places = byBlock[b]!;
        const at = (aisle - 1) * blocks + b;
        this.fillPatterns(at, terms);
        if (entered?.[at] === 1) {
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
    return { lastRequired, anyRequired };
  }

  /** The dynamic program over aisles on the patterns `prepare` filled in: the least value and the patterns of its tour. */
  private untrackedRun(lastRequired: number, budget: number): TourRun | undefined {
    const { floor, blocks, combos, cost, optionCost, openCombos, space } = this;
    let states = [EMPTY];
    // Two buffers in turn, kept from tour to tour: the next aisle's values go where the aisle before last's were (its states set back to Infinity).
    let values = this.values.fill(Infinity);
    let spare = this.spare.fill(Infinity);
    values[EMPTY] = 0;
    let spareStates: number[] = [];
    const { previous, taken } = this;
    let work = this.sweepWork;
    const spacing = floor.spacing;
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const base = (aisle - 1) * blocks * SHAPE_COUNT;
      // The combinations open in this aisle, in their order (which decides ties): most are closed where subaisles may be left alone.
      let open = 0;
      for (let c = 0; c < combos.length; c++) {
        const shapes = combos[c]!.shapes;
        let sum = 0;
        for (let b = 0; b < blocks; b++) sum += cost[base + b * SHAPE_COUNT + shapes[b]!]!;
        optionCost[c] = sum;
        if (sum !== Infinity) openCombos[open++] = c;
      }
      const kind = aisleKind(aisle, floor.depotAisle, lastRequired);
      const lastAisle = aisle === floor.aisles;
      const reached: number[] = [];
      let next = spare;
      for (const state of spareStates) next[state] = Infinity;
      let from = grownTo(previous[aisle - 1]!, next.length);
      let via = grownTo(taken[aisle - 1]!, next.length);
      for (const state of states) {
        const before = values[state]!;
        const table = space.movesTable(state);
        for (let o = 0; o < open; o++) {
          const c = openCombos[o]!;
          const combo = combos[c]!;
          const moves = table[combo.key * 4 + kind] ?? space.movesFrom(state, combo.shapes, combo.key, kind);
          if (next.length < space.size) {
            next = grownTo(next, space.size, Infinity);
            from = grownTo(from, next.length);
            via = grownTo(via, next.length);
          }
          const count = moves.next.length;
          work += count + 1;
          const upTo = before + optionCost[c]!;
          for (let t = 0; t < count; t++) {
            const width = moves.width[t]!;
            if (lastAisle && width > 0) continue;
            const total = upTo + width * spacing;
            const after = moves.next[t]!;
            const known = next[after]!;
            if (known === Infinity) reached.push(after);
            else if (total >= known) continue;
            next[after] = total;
            from[after] = state;
            via[after] = c;
          }
        }
        if (work > budget || pastDeadline()) return undefined;
      }
      previous[aisle - 1] = from;
      taken[aisle - 1] = via;
      [spare, spareStates] = [values, states];
      states = reached;
      values = next;
    }
    [this.values, this.spare] = [grownTo(values, space.size, Infinity), grownTo(spare, space.size, Infinity)];
    const value = values[FINISHED]!;
    const patterns: TourPattern[] = [];
    if (value === Infinity) return { value, work, patterns };
    for (let aisle = floor.aisles, state = FINISHED; aisle >= 1; aisle--) {
      const shapes = combos[taken[aisle - 1]![state]!]!.shapes;
      for (let b = 0; b < blocks; b++) {
        const shape = shapes[b]!;
        if (shape === NOTHING) continue;
        const at = (aisle - 1) * blocks + b;
        const k = at * SHAPE_COUNT + shape;
        patterns.push({ at, gain: this.gain[k]!, frontReach: this.frontReach[k]!, backReach: this.backReach[k]!, caps: this.demand });
      }
      state = previous[aisle - 1]![state]!;
    }
    return { value, work, patterns };
  }

  /**
   * The dynamic program over aisles with the units taken of each tracked item in the state (a
   * label is a frontier state and those units, as a units code). A pattern's best reach now
   * depends on what comes after (taking a tracked item here leaves less to gain elsewhere), so
   * each pattern is tried at every reach that takes a different share of the tracked items, and
   * is paid for every tracked unit it passes that is still lacking: being paid later instead never
   * gains more. A label is dropped when one of the same frontier state dominates it: no dearer,
   * and no more taken of any item.
   */
  private trackedRun(tracking: Tracking, terms: TourTerms, lastRequired: number, budget: number): TourRun | undefined {
    const { floor, blocks, space } = this;
    const { total } = tracking;
    let work = this.sweepWork;
    const subaisles: (TrackedSubaisle | undefined)[] = [];
    // A subaisle's reaches are found when a label first goes through it.
    const subaisleAt = (at: number): TrackedSubaisle => {
      let found = subaisles[at];
      if (!found) {
        found = subaisles[at] = this.trackedSubaisle(at, tracking, terms);
        work += tracking.sweepWork[at]! + found.work;
      }
      return found;
    };
    const optionsAt = pricedOnce(tracking, terms.prices, subaisleAt, (priced) => (work += priced));
    const comboByKey = new Map(this.combos.map((combo) => [combo.key, combo]));
    // Labels as parallel columns: key (state * total + code) and value; `slot` finds a key's label while an aisle is worked.
    let keys = [EMPTY * total];
    let values = [0];
    let slot = new Int32Array(4 * total).fill(-1);
    // By aisle: the labels kept, the label each came from and the ways taken through the aisle's blocks.
    const kept: { keys: number[]; from: number[]; via: TrackedOption[][] }[] = [];
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const kind = aisleKind(aisle, floor.depotAisle, lastRequired);
      const lastAisle = aisle === floor.aisles;
      const next = { keys: [] as number[], values: [] as number[], from: [] as number[], via: [] as TrackedOption[][] };
      // Labels of one code share the ways through the aisle: worked out once per code.
      const order = keys.map((_, i) => i).sort((x, y) => (keys[x]! % total) - (keys[y]! % total));
      let code = -1;
      let ways: AisleWay[] = [];
      for (const i of order) {
        if (keys[i]! % total !== code) {
          code = keys[i]! % total;
          const found = aisleWays(aisle, blocks, code, tracking, optionsAt);
          ways = found.ways;
          work += found.work;
        }
        const before = values[i]!;
        const state = Math.floor(keys[i]! / total);
        for (const way of ways) {
          const combo = comboByKey.get(way.shapesKey)!;
          const transitions = space.transitionsFrom(state, combo.shapes, combo.key, kind);
          work += transitions.length + 1;
          for (const transition of transitions) {
            if (lastAisle && transition.width > 0) continue;
            const value = before + way.cost + transition.width * floor.spacing;
            const after = transition.next * total + way.code;
            if (after >= slot.length) slot = grownTo(slot, (transition.next + 1) * total, -1);
            const known = slot[after]!;
            if (known >= 0 && value >= next.values[known]!) continue;
            const index = known >= 0 ? known : next.keys.length;
            slot[after] = index;
            next.keys[index] = after;
            next.values[index] = value;
            next.from[index] = keys[i]!;
            next.via[index] = way.picks;
          }
        }
        if (work * TRACKED_STEP_COST > budget || pastDeadline()) return undefined;
      }
      for (const key of next.keys) slot[key] = -1;
      const checked = { work: 0 };
      const survivors = tracking.undominatedLabels(next.keys, next.values, checked);
      work += next.keys.length + checked.work;
      kept.push({ keys: survivors.map((k) => next.keys[k]!), from: survivors.map((k) => next.from[k]!), via: survivors.map((k) => next.via[k]!) });
      keys = survivors.map((k) => next.keys[k]!);
      values = survivors.map((k) => next.values[k]!);
    }
    let value = Infinity;
    let last = -1;
    keys.forEach((key, i) => {
      if (Math.floor(key / total) === FINISHED && values[i]! < value) [value, last] = [values[i]!, key];
    });
    const patterns: TourPattern[] = [];
    if (last < 0) return { value, work: work * TRACKED_STEP_COST, patterns };
    for (let aisle = floor.aisles, key = last; aisle >= 1; aisle--) {
      const { keys: reached, from, via } = kept[aisle - 1]!;
      const i = reached.indexOf(key);
      let code = from[i]! % total;
      via[i]!.forEach((option, b) => {
        const at = (aisle - 1) * blocks + b;
        if (option.shape !== NOTHING) patterns.push({ at, gain: option.gain, frontReach: option.frontReach, backReach: option.backReach, caps: tracking.caps(tracking.part(code, at)) });
        code = code - tracking.part(code, at) + option.next;
      });
      key = from[i]!;
    }
    return { value, work: work * TRACKED_STEP_COST, patterns };
  }

  /**
   * The reaches worth trying in one subaisle, whatever the tracked items have: by shape, for each
   * share of the tracked units it passes, the reach that walks least less what the untracked items
   * pay (at most their demand in each part, as in `fillPatterns`).
   */
  private trackedSubaisle(at: number, tracking: Tracking, terms: TourTerms): TrackedSubaisle {
    const { floor, blocks, fromFront, fromBack } = this;
    const { required, entered } = terms;
    const places = floor.candidates[Math.floor(at / blocks)]![at % blocks]!;
    const front = floor.crossYs[at % blocks]!;
    const back = floor.crossYs[(at % blocks) + 1]!;
    const ys = floor.ys;
    this.caps = tracking.untrackedCaps;
    this.fillPatterns(at, terms);
    this.caps = this.demand;
    const n = places.length;
    const length = back - front;
    const all = this.gain[at * SHAPE_COUNT + ONCE]!;
    const best = new Map<number, Reach>();
    let work = 0;
    const offer = (shape: number, walked: number, untrackedGain: number, frontReach: number, backReach: number) => {
      work++;
      const passes = tracking.passes(at, frontReach + 1, backReach);
      const id = shape * tracking.total + passes;
      const known = best.get(id);
      if (!known || walked - untrackedGain < known.cost) best.set(id, { shape, cost: walked - untrackedGain, gain: untrackedGain, frontReach, backReach, passes });
    };
    const { firstRequired, lastRequired } = this;
    offer(ONCE, length, all, n - 1, n);
    offer(TWICE, 2 * length, all, n - 1, n);
    const walkedFront = (i: number) => 2 * (ys[places[i]!]! - front);
    const walkedBack = (j: number) => 2 * (back - ys[places[j]!]!);
    for (let i = Math.max(lastRequired, 0); i < n; i++) offer(FROM_FRONT, walkedFront(i), walkedFront(i) - fromFront[i]!, i, n);
    for (let j = Math.min(firstRequired, n - 1); j >= 0; j--) offer(FROM_BACK, walkedBack(j), walkedBack(j) - fromBack[j]!, -1, j);
    // Both ends: no required place left out between the parts, and shorter than two traversals (which pass everything).
    for (let i = n - 1, requiredAfter = n; i >= 0; i--) {
      for (let j = i + 1; j < n && j <= requiredAfter; j++) {
        const walked = walkedFront(i) + walkedBack(j);
        if (walked < 2 * length) offer(BOTH_ENDS, walked, walkedFront(i) - fromFront[i]! + walkedBack(j) - fromBack[j]!, i, j);
      }
      if (required[places[i]!]) requiredAfter = i;
    }
    return { reaches: [...best.values()], skippable: lastRequired < 0 && entered?.[at] !== 1, placeCount: n, work };
  }

  /** Marks a part's places (`places` from `start` up to `end`) in the tour's `passed` and adds the units it is paid for (at most `caps` of each item) to its `collected`. */
  private collect(places: readonly number[], start: number, end: number, forbidden: Uint8Array | undefined, caps: Float64Array): void {
    const { counts, passed, collected } = this;
    for (let i = start; i < end; i++) {
      const place = places[i]!;
      passed[place] = 1;
      if (!forbidden?.[place]) for (const { item, units } of this.goods.stock[place]!) counts[item]! += units;
    }
    for (let i = start; i < end; i++) {
      for (const { item } of this.goods.stock[places[i]!]!) {
        collected[item]! += Math.min(caps[item]!, counts[item]!);
        counts[item] = 0;
      }
    }
  }

  /**
   * Completion bounds (values to go): by boundary (after aisle j, j = 0..aisles) and state there,
   * the least value the rest of a prize-collecting tour can have at `prices`, passing the
   * `required` places and walking into the subaisles `entered` marks after the boundary. What a
   * partial tour can still gain, for bounding; `work` counts the transitions looked at.
   */
  toGo(prices: Float64Array, required: Uint8Array = new Uint8Array(this.floor.ys.length), entered?: Uint8Array): { byBoundary: number[][]; work: number } {
    const { floor, blocks, combos, cost, optionCost, space } = this;
    let work = this.sweepWork;
    const { lastRequired } = this.prepare({ prices, required, forbidden: undefined, entered });
    const options: Float64Array[] = [];
    for (let aisle = 1; aisle <= floor.aisles; aisle++) {
      const base = (aisle - 1) * blocks * SHAPE_COUNT;
      for (let c = 0; c < combos.length; c++) {
        let sum = 0;
        for (let b = 0; b < blocks; b++) sum += cost[base + b * SHAPE_COUNT + combos[c]!.shapes[b]!]!;
        optionCost[c] = sum;
      }
      options.push(Float64Array.from(optionCost));
    }
    const met = this.statesMet((aisle) => combos.filter((_, c) => options[aisle - 1]![c] !== Infinity), lastRequired);
    work += met.work;
    const go: number[][] = met.states.map(() => []);
    go[floor.aisles]![FINISHED] = 0;
    for (let aisle = floor.aisles; aisle >= 1; aisle--) {
      const after = go[aisle]!;
      const lastAisle = aisle === floor.aisles;
      const kind = aisleKind(aisle, floor.depotAisle, lastRequired);
      for (const state of met.states[aisle - 1]!) {
        let best = Infinity;
        combos.forEach((combo, c) => {
          const option = options[aisle - 1]![c]!;
          if (option === Infinity) return;
          const transitions = space.transitionsFrom(state, combo.shapes, combo.key, kind);
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

  /**
   * The frontier states met at each boundary (after aisle j, j = 0..aisles), going forward from
   * the empty one through the combinations `open` gives each aisle (of the kind `lastRequired`
   * gives it); `work` counts the transitions.
   */
  private statesMet(open: (aisle: number) => readonly Combination[], lastRequired: number): { states: number[][]; work: number } {
    const states: number[][] = [[EMPTY]];
    let work = 0;
    for (let aisle = 1; aisle <= this.floor.aisles; aisle++) {
      const seen = new Set<number>();
      const combos = open(aisle);
      const kind = aisleKind(aisle, this.floor.depotAisle, lastRequired);
      for (const state of states[aisle - 1]!) {
        for (const combo of combos) {
          const transitions = this.space.transitionsFrom(state, combo.shapes, combo.key, kind);
          work += transitions.length + 1;
          for (const transition of transitions) seen.add(transition.next);
        }
      }
      states.push([...seen]);
    }
    return { states, work };
  }

  /**
   * `toGo` with the units taken of each `tracked` item in the labels: each is paid for at most
   * what it still lacks over the whole rest of the tour, so a partial tour's bound no longer
   * counts units it has taken already, nor the same units in several aisles. With a price on a
   * tracked item above any walk, the rest must take what it lacks: those items are covered
   * exactly, the others priced. Each entry is what the rest costs beyond the `counted` prices of
   * the tracked units still lacking (the price they are paid at less the counted one is added),
   * for a caller that counts what is still wanted at other prices. Undefined when the work would
   * exceed `budget`.
   */
  trackedToGo(prices: Float64Array, tracked: readonly number[], required: Uint8Array, { entered, budget = Infinity, counted = prices }: ToGoOptions = {}): TrackedValuesToGo | undefined {
    const { floor, blocks, space } = this;
    const tracking = new Tracking(floor, this.goods, tracked, undefined);
    const { total } = tracking;
    const terms: TourTerms = { prices, required, forbidden: undefined, entered };
    const { lastRequired } = this.prepare(terms);
    let work = this.sweepWork;
    const subaisles: TrackedSubaisle[] = [];
    for (let at = 0; at < floor.aisles * blocks; at++) {
      subaisles.push(this.trackedSubaisle(at, tracking, terms));
      work += tracking.sweepWork[at]! + subaisles[at]!.work;
    }
    // The combinations each aisle may take: a shape per block that some reach (or leaving it alone) has.
    const open = (aisle: number) =>
      this.combos.filter((combo) =>
        combo.shapes.every((shape, b) => {
          const { reaches, skippable } = subaisles[(aisle - 1) * blocks + b]!;
          return (shape === NOTHING && skippable) || reaches.some((reach) => reach.shape === shape);
        }),
      );
    const { states: met, work: metWork } = this.statesMet(open, lastRequired);
    work += metWork;
    const size = space.size;
    const go = met.map(() => new Float64Array(size * total).fill(Infinity));
    go[floor.aisles]!.fill(0, FINISHED * total, (FINISHED + 1) * total);
    const comboByKey = new Map(this.combos.map((combo) => [combo.key, combo]));
    const optionsAt = pricedOnce(tracking, prices, (at) => subaisles[at]!, (priced) => (work += priced));
    for (let aisle = floor.aisles; aisle >= 1; aisle--) {
      const after = go[aisle]!;
      const here = go[aisle - 1]!;
      const lastAisle = aisle === floor.aisles;
      const kind = aisleKind(aisle, floor.depotAisle, lastRequired);
      for (let code = 0; code < total; code++) {
        const { ways, work: found } = aisleWays(aisle, blocks, code, tracking, optionsAt);
        work += found;
        for (const state of met[aisle - 1]!) {
          let least = Infinity;
          const table = space.movesTable(state);
          for (const way of ways) {
            const moves = table[way.shapesKey * 4 + kind] ?? space.movesFrom(state, comboByKey.get(way.shapesKey)!.shapes, way.shapesKey, kind);
            const count = moves.next.length;
            work += count + 1;
            for (let t = 0; t < count; t++) {
              const width = moves.width[t]!;
              if (lastAisle && width > 0) continue;
              const next = moves.next[t]!;
              if (next >= size) continue;
              const value = way.cost + width * floor.spacing + after[next * total + way.code]!;
              if (value < least) least = value;
            }
          }
          here[state * total + code] = least;
        }
        if (work * TRACKED_TO_GO_STEP_COST > budget || pastDeadline()) return undefined;
      }
    }
    const beyond = Float64Array.from({ length: total }, (_, code) => tracked.reduce((sum, item, j) => sum + (prices[item]! - counted[item]!) * tracking.lacking(code, j), 0));
    for (const values of go) values.forEach((value, at) => (values[at] = value + beyond[at % total]!));
    return { items: tracked, byBoundary: go, total, radix: tracking.radix, work: work * TRACKED_TO_GO_STEP_COST };
  }
}

/**
 * The ways through a subaisle when the tracked items have the units of a code, priced at `prices`
 * once for each part of a code the subaisle holds (`Tracking.options`): `subaisleAt` gives a
 * subaisle's reaches, and `count` is told the work of each pricing.
 */
function pricedOnce(tracking: Tracking, prices: Float64Array, subaisleAt: (at: number) => TrackedSubaisle, count: (work: number) => void): (at: number, code: number) => TrackedOption[] {
  const cached = new Map<number, TrackedOption[]>();
  return (at, code) => {
    const part = tracking.part(code, at);
    let options = cached.get(at * tracking.total + part);
    if (!options) {
      const subaisle = subaisleAt(at);
      options = tracking.options(subaisle, at, part, prices);
      count(subaisle.reaches.length);
      cached.set(at * tracking.total + part, options);
    }
    return options;
  };
}

/**
 * The ways through an aisle's blocks when the tracked items have the units of `code`, block by
 * block (`optionsAt` gives a subaisle's): for each combination of shapes and code after them, the
 * cheapest. `work` counts the options tried.
 */
function aisleWays(aisle: number, blocks: number, code: number, tracking: Tracking, optionsAt: (at: number, code: number) => TrackedOption[]): { ways: AisleWay[]; work: number } {
  let ways: AisleWay[] = [{ cost: 0, code, shapesKey: 0, picks: [] }];
  let work = 0;
  for (let b = 0; b < blocks; b++) {
    const at = (aisle - 1) * blocks + b;
    const best = new Map<number, AisleWay>();
    for (const way of ways) {
      const options = optionsAt(at, way.code);
      work += options.length;
      for (const option of options) {
        const after = way.code - tracking.part(way.code, at) + option.next;
        const shapesKey = way.shapesKey + option.shape * SHAPE_COUNT ** b;
        const id = shapesKey * tracking.total + after;
        const cost = way.cost + option.cost;
        const known = best.get(id);
        if (!known || cost < known.cost) best.set(id, { cost, code: after, shapesKey, picks: [...way.picks, option] });
      }
    }
    ways = [...best.values()];
  }
  return { ways, work };
}

/**
 * Values to go with the units taken of a few tracked items (`items`): by boundary, the entry at
 * `state * total + code` is the least value the rest of a collecting tour can have from that
 * frontier state when the tracked items have the units of `code` (tracked item j's digit at
 * place value `radix[j]`); Infinity where no rest finishes the tour.
 */
export interface TrackedValuesToGo {
  items: readonly number[];
  byBoundary: Float64Array[];
  total: number;
  radix: number[];
  work: number;
}

/** What the front part as far as place i is paid back: its walk less its value (`fromFront`). Not a closure: it runs for every subaisle of every tour. */
function frontGainOf(ys: readonly number[], places: readonly number[], front: number, fromFront: Float64Array, i: number): number {
  return 2 * (ys[places[i]!]! - front) - fromFront[i]!;
}

/** What the back part from place j is paid back. */
function backGainOf(ys: readonly number[], places: readonly number[], back: number, fromBack: Float64Array, j: number): number {
  return 2 * (back - ys[places[j]!]!) - fromBack[j]!;
}
