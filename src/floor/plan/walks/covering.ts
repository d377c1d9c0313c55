import { CodeBook } from './code-book';
import type { CollectingFloor, TrackedValuesToGo } from './collecting';
import { aisleKind, grownTo, undominated, UnitsCode, type Dominance } from './labels';
import { leastOf } from './least-of';
import { NumberIndex } from './number-index';
import * as optimal from './optimal';
import { spaceFor } from './optimal';
import { pastDeadline } from '../deadline';

// Plain constants here: an imported binding can be a property read on every use, and these are read in the inner loops.
const { BOTH_ENDS, EMPTY, FINISHED, FROM_BACK, FROM_FRONT, NOTHING, ONCE, SHAPE_COUNT, TWICE } = optimal;

/*
 * The shortest tour that covers every demand, by a labelling algorithm: the dynamic program over
 * aisles with what has been covered so far added to each state. A label is a frontier state, the
 * units of each item taken so far (at most what is wanted, as a units code: walks/labels.ts) and
 * the length walked. Within a subaisle a tour passes the places of a front part and of a back
 * part, so the ways through it are few: nothing, a traversal (once or twice), in and out from the
 * front as far as some place, from the back, or both, each kept only where it reaches a place
 * that adds something. A label is dropped when its length, a completion bound of the rest (the
 * prize-collecting tour's value to go at the Lagrangian prices, or the largest of it and those of
 * tables that know the units taken of a few items) and the prices of what is still wanted reach a
 * length already known; when its length and the way to the farthest aisle the rest must reach do
 * (what is still wanted can only come from the aisles ahead, and the required places and the
 * depot there must be reached too); and by dominance, when another label of its state is no
 * longer and has taken at least as much of every item. What is left are the labels that could
 * still beat the length known.
 */

export interface CoveringProblem {
  floor: CollectingFloor;
  /** By place: the items there and their units, at most the item's demand. */
  stock: readonly (readonly { item: number; units: number }[])[];
  demand: readonly number[];
  /** 1 for each place the tour must pass whatever it covers (none when left out). */
  required?: Uint8Array;
}

export type CoveringOutcome =
  /** The shortest tour covering every demand, shorter than the length given (with a beam: a short one). */
  | { found: true; length: number; places: number[] }
  /** No tour covering every demand is shorter than the length given. */
  | { found: false; proven: true }
  /** The work outgrew the allowance: nothing proven. */
  | { found: false; proven: false };

/** One way through a subaisle: its shape, its length, the units it adds and the places it passes. */
interface Pass {
  shape: number;
  length: number;
  /** The units it adds; left empty where one unit of each item is wanted (`mask` says it there). */
  adds: { item: number; units: number }[];
  /** The items it adds as bits (item i is bit i), for floors where one unit of each is wanted. */
  mask: number;
  /** Last place passed from the front and first from the back, as indexes into the subaisle's places. */
  front: number;
  back: number;
}

/** How many of the shortest labels kept of its frontier state a covering label is checked against for dominance (a tracked collecting tour's against fewer). */
const DOMINANCE_CHECKS_PER_COVERING_LABEL = 64;

/** Steps counted for working out the ways through a subaisle that holds something, before its places and passes. */
const SUBAISLE_COST = 50;

/** Steps counted for taking up a partial label before its passes. */
const LABEL_COST = 4;

/**
 * Label keys number the state, the shapes of the aisle's passes and the code in one number,
 * which a double holds exactly below this: it bounds how many codes a problem may have.
 */
const EXACT_KEYS = 2 ** 53;

/**
 * Combinations numbered as met at most, where there are too many to number in advance: a label
 * key leaves room for this many codes, and the book's digits take this many times the items in
 * bytes at most.
 */
const MOST_CODES_MET = 2 ** 20;

/** Pass numbers of an aisle's blocks, packed into one number. */
const PASS_PACK = 1 << 16;

interface Label {
  state: number;
  code: number;
  /** Prices of the units still wanted. */
  wanted: number;
  length: number;
  previous: Label | undefined;
  /** The passes taken in this aisle: their numbers by block, packed (PASS_PACK). */
  taken: number;
  /** What any tour from here measures at least. */
  bound: number;
}

/** What the covering program works out of a problem before any run: the same for every run on it. */
export interface PreparedCovering {
  problem: CoveringProblem;
  /** Whether one unit of each item is wanted: the code's digits are then bits. */
  unit: boolean;
  /** The number of codes a label key leaves room for, and the code of every demand met. */
  total: number;
  full: number;
  /** Where the combinations are too many to number in advance: their numbers as met, which the codes are. */
  book: CodeBook | undefined;
  /** The units of `item` a label of `code` has taken. */
  unitsTaken: (code: number, item: number) => number;
  /** Where more than one unit is wanted: the units taken packed as fields, for comparing labels. */
  fields: Fields | undefined;
  /** Place value of each item's digit in the code (where it is not numbered in a book). */
  radix: number[];
  /** By aisle and block: the ways through the subaisle worth considering. */
  passes: Pass[][][];
  /** By aisle and item: the units held in that aisle and the aisles after it. */
  heldFrom: number[][];
  /** The last aisle with a required place (0 for none). */
  lastRequired: number;
  /** The steps working this out took, counted as the program's are. */
  work: number;
}

/**
 * The passes and sums the covering program needs for `problem`, worked out once however many
 * runs it takes. Where the combinations of units taken are too many to number in advance, they
 * are numbered as met; undefined when even that cannot hold them (more units of an item than a
 * digit of the book holds, or thousands of items). `numberAsMet` numbers them as met even where
 * they are few: the runs give the same answers either way.
 */
export function prepareCovering(problem: CoveringProblem, numberAsMet = false): PreparedCovering | undefined {
  const { floor, demand } = problem;
  // Units taken of each item, as a units code: item i's digit counts 0..demand[i].
  const units = new UnitsCode(demand);
  const { radix } = units;
  let total = units.total;
  // The states met so far on floors of this shape: more may be met, which the runs check.
  const keysPerCode = spaceFor(floor.crossYs.length).size * SHAPE_COUNT ** (floor.crossYs.length - 1);
  let book: CodeBook | undefined;
  let full = units.full();
  if (numberAsMet || total * keysPerCode > EXACT_KEYS) {
    if (!CodeBook.holds(demand.length) || demand.some((want) => want > CodeBook.MOST_UNITS) || MOST_CODES_MET * keysPerCode > EXACT_KEYS) return undefined;
    book = new CodeBook(demand.length);
    demand.forEach((want, item) => book!.raise(item, want));
    full = book.close();
    total = MOST_CODES_MET;
  }
  const unit = !book && units.bits;
  const unitsTaken = book ? (code: number, item: number) => book.unitsTaken(code, item) : (code: number, item: number) => units.unitsTaken(code, item);
  const fields = unit ? undefined : fieldsFor(demand, unitsTaken);
  // Working out the passes is counted too: on long subaisles of many items it costs as much as the search.
  const setup = { work: 0 };
  const passes = floor.candidates.map((byBlock) => byBlock.map((places, b) => subaislePasses(problem, places, b, unit, setup)));
  const heldFrom: number[][] = Array.from({ length: floor.aisles + 2 }, () => new Array<number>(demand.length).fill(0));
  let lastRequired = 0;
  for (let a = floor.aisles; a >= 1; a--) {
    heldFrom[a] = [...heldFrom[a + 1]!];
    for (const places of floor.candidates[a - 1]!) {
      for (const place of places) {
        for (const { item, units } of problem.stock[place]!) heldFrom[a]![item]! += units;
        if (problem.required?.[place]) lastRequired = Math.max(lastRequired, a);
      }
      setup.work += places.length;
    }
  }
  return { problem, unit, total, full, book, unitsTaken, fields, radix, passes, heldFrom, lastRequired, work: setup.work };
}

/**
 * The shortest tour covering every demand if one is shorter than the tour to beat: a partial tour
 * whose bound exceeds `limit` is dropped (the caller knows how close to the tour to beat a bound
 * may come and still hide a shorter one). Within `budget` steps (a pass tried, and one more per
 * item it adds where more than one unit is wanted; working out the passes is counted apart);
 * `prices` are the Lagrangian prices (multipliers) and `toGo` the prize-collecting tour's
 * completion bounds at them. `work` says how many steps it took. With a `beam`, only that many
 * labels go on past each aisle (those of least bound): a quick search for a short walk that proves
 * nothing. `tracked` completion bounds (at the same prices for what is still wanted), each over
 * its own few items, bound a label too, by the units it has taken of those items: the largest
 * bound prunes.
 */
/** How far a covering tour's search goes: see shortestCoveringTour. */
export interface CoveringSearch {
  /** Tours whose bound reaches it are pruned. */
  limit: number;
  /** Steps of work at most. */
  budget: number;
  beam?: number;
  tracked?: readonly TrackedValuesToGo[];
}

export function shortestCoveringTour(
  prepared: PreparedCovering,
  prices: Float64Array,
  toGo: readonly (readonly number[])[],
  { limit, budget, beam = Infinity, tracked = [] }: CoveringSearch,
): CoveringOutcome & { work: number } {
  const { problem, unit, total, full, book, unitsTaken, fields, radix, passes, heldFrom, lastRequired } = prepared;
  const { floor, demand } = problem;
  const blocks = floor.crossYs.length - 1;
  const space = spaceFor(floor.crossYs.length);
  /**
   * The farthest aisle after `aisle` a tour that has taken `code` must still reach (for what it
   * lacks, a required place, or the depot); Infinity when what is left there cannot cover the rest.
   */
  const farthestAisleNeeded = (code: number, aisle: number): number => {
    let farthest = Math.max(aisle, lastRequired, floor.depotAisle);
    for (let item = 0; item < demand.length; item++) {
      const missing = demand[item]! - unitsTaken(code, item);
      if (missing === 0) continue;
      if (heldFrom[aisle + 1]![item]! < missing) return Infinity;
      while (heldFrom[aisle + 1]![item]! - heldFrom[farthest + 1]![item]! < missing) farthest++;
    }
    return farthest;
  };
  // By aisle and block: the most the prices of what that block and the aisle's blocks behind it hold can take off the bound.
  const gainFrom = passes.map((byBlock) => {
    const most = [0];
    for (let b = byBlock.length - 1; b >= 0; b--) {
      const all = byBlock[b]!.find((pass) => pass.shape === ONCE)!;
      let gained = most[0]!;
      if (unit) for (let bits = all.mask; bits !== 0; bits &= bits - 1) gained += Math.max(0, prices[31 - Math.clz32(bits & -bits)]!);
      else for (const { item, units } of all.adds) gained += Math.max(0, prices[item]!) * units;
      most.unshift(gained);
    }
    return most;
  });
  const combinationCount = SHAPE_COUNT ** blocks;
  // More states than this and label keys would no longer be exact.
  const mostStates = Math.floor(EXACT_KEYS / (combinationCount * total));
  const shapesByKey = Array.from({ length: combinationCount }, (_, key) => Array.from({ length: blocks }, (_, b) => Math.floor(key / SHAPE_COUNT ** b) % SHAPE_COUNT));
  const allWanted = demand.reduce((sum, want, item) => sum + prices[item]! * want, 0);
  let labels: Label[] = [{ state: EMPTY, code: 0, wanted: allWanted, length: 0, previous: undefined, taken: 0, bound: 0 }];
  let work = 0;
  let labelsTaken = 0;
  let narrowed = false;
  const partialAt = new NumberIndex();
  const reachedAt = new NumberIndex();
  const partials = [new PartialLabels(), new PartialLabels()];
  for (let aisle = 1; aisle <= floor.aisles; aisle++) {
    // The tour may close in any aisle from the depot's on: the units taken say whether it may, and a required place ahead has no pass that leaves it out.
    const kind = aisleKind(aisle, floor.depotAisle, floor.depotAisle);
    const lastAisle = aisle === floor.aisles;
    const rest = toGo[aisle]!;
    const trackedRests = tracked.map((table) => table.byBoundary[aisle]!);
    const trackedCodes = tracked.map(() => 0);
    // The least any state after this aisle can still cost: a bound before the state is known.
    let least = Infinity;
    for (const value of rest) if (value !== undefined && value < least) least = value;
    // Passes block by block, as parallel columns; partial labels that agree on all but length keep the shortest.
    let partial = partials[0]!;
    let next = partials[1]!;
    partial.clear();
    labels.forEach((label, i) => partial.set(partial.add(), i, 0, label.code, label.wanted, label.length, 0));
    for (let b = 0; b < blocks; b++) {
      const ways = passes[aisle - 1]![b]!;
      partialAt.clear();
      next.clear();
      const { from, keys, codes, wants, lengths, taken } = partial;
      const gainHere = gainFrom[aisle - 1]![b]!;
      const gainBehind = gainFrom[aisle - 1]![b + 1]!;
      // Place values worked out once per block, not per pass tried.
      const shapePlace = SHAPE_COUNT ** b;
      const passPlace = PASS_PACK ** b;
      for (let e = 0; e < partial.count; e++) {
        // Taking up a partial label costs steps of its own, whether or not a pass gets under the bound.
        work += LABEL_COST;
        if (work > budget) return { found: false, proven: false, work };
        const stateKeys = labels[from[e]!]!.state * combinationCount;
        // Passes come shortest first: once even all this block and those behind it offer cannot bring a pass under the bound, no longer one can.
        const leastLeft = least + Math.max(0, wants[e]! - gainHere);
        for (let w = 0; w < ways.length; w++) {
          const pass = ways[w]!;
          const length = lengths[e]! + pass.length;
          // A pass costs one step where the digits are bits, one per item it adds otherwise (and a copy of the digits where they are in a book).
          work += unit ? 1 : 1 + pass.adds.length + (book ? demand.length >> 2 : 0);
          if (length + leastLeft > limit) break;
          let code = codes[e]!;
          let wanted = wants[e]!;
          if (unit) {
            // One unit wanted of each item: the digits are bits.
            for (let gained = pass.mask & ~code; gained !== 0; gained &= gained - 1) wanted -= prices[31 - Math.clz32(gained & -gained)]!;
            code |= pass.mask;
          } else {
            // Digits in a book are changed in its scratch copy, numbered below once the pass may be kept.
            if (book) book.open(code);
            for (const { item, units } of pass.adds) {
              const had = book ? book.taken(item) : unitsTaken(code, item);
              const now = Math.min(demand[item]!, had + units);
              if (book) book.raise(item, now);
              else code += (now - had) * radix[item]!;
              wanted -= (now - had) * prices[item]!;
            }
          }
          // The aisle's blocks behind this one may still add what is wanted, at most what they hold.
          if (length + least + Math.max(0, wanted - gainBehind) > limit) continue;
          if (book) {
            code = book.close();
            if (book.count > total) return { found: false, proven: false, work };
          }
          const key = keys[e]! + pass.shape * shapePlace;
          const id = (stateKeys + key) * total + code;
          const known = partialAt.get(id);
          if (known >= 0 && next.lengths[known]! <= length) continue;
          const index = known >= 0 ? known : next.add();
          if (known < 0) partialAt.set(id, index);
          next.set(index, from[e]!, key, code, wanted, length, taken[e]! + w * passPlace);
        }
      }
      [partial, next] = [next, partial];
    }
    const { from, keys, codes, wants, lengths, taken } = partial;
    const reached: Label[] = [];
    reachedAt.clear();
    for (let e = 0; e < partial.count; e++) {
      const label = labels[from[e]!]!;
      // Worked out for the first transition the prices do not rule out: most labels have none.
      let crossing = -1;
      for (let t = 0; t < tracked.length; t++) {
        const { items, radix: placeValue } = tracked[t]!;
        let trackedCode = 0;
        for (let j = 0; j < items.length; j++) trackedCode += unitsTaken(codes[e]!, items[j]!) * placeValue[j]!;
        trackedCodes[t] = trackedCode;
        work += items.length >> 2;
      }
      const transitions = space.transitionsFrom(label.state, shapesByKey[keys[e]!]!, keys[e]!, kind);
      // A transition tried costs a step too: on two blocks a label has many.
      work += transitions.length;
      // The clock read once every 1,024 labels: a label costs far less than reading it.
      if (work > budget || space.size > mostStates || ((++labelsTaken & 1023) === 0 && pastDeadline())) return { found: false, proven: false, work };
      for (const transition of transitions) {
        if (lastAisle && transition.width > 0) continue;
        const state = transition.next;
        if (state === FINISHED && codes[e] !== full) continue;
        const untrackedFuture = rest[state];
        if (untrackedFuture === undefined) continue;
        let future = untrackedFuture;
        for (let t = 0; t < tracked.length; t++) future = Math.max(future, trackedRests[t]![state * tracked[t]!.total + trackedCodes[t]!]!);
        const length = lengths[e]! + transition.width * floor.spacing;
        if (length + future + Math.max(0, wants[e]!) > limit) continue;
        if (crossing < 0) {
          const farthest = lastAisle ? aisle : farthestAisleNeeded(codes[e]!, aisle);
          work += demand.length >> 2;
          if (farthest === Infinity) break;
          // Reaching the farthest aisle still needed and coming back crosses each boundary on the way twice.
          crossing = 2 * Math.max(0, farthest - aisle - 1) * floor.spacing;
        }
        if (transition.width > 0 && length + crossing > limit) continue;
        const id = state * total + codes[e]!;
        const bound = length + future + Math.max(0, wants[e]!);
        const index = reachedAt.get(id);
        if (index < 0) {
          reachedAt.set(id, reached.length);
          reached.push({ state, code: codes[e]!, wanted: wants[e]!, length, previous: label, taken: taken[e]!, bound });
          continue;
        }
        // Not yet anyone's previous: a shorter way to the same label replaces it where it stands.
        const known = reached[index]!;
        if (known.length <= length) continue;
        known.wanted = wants[e]!;
        known.length = length;
        known.previous = label;
        known.taken = taken[e]!;
        known.bound = bound;
      }
    }
    const checked = { work: 0 };
    labels = undominatedLabels(reached, fields, checked);
    work += checked.work;
    if (labels.length > beam) {
      labels = leastOf(labels, beam, (label) => label.bound);
      narrowed = true;
    }
  }
  const best = labels.find((label) => label.state === FINISHED && label.code === full);
  if (!best) return { found: false, proven: !narrowed, work };
  const places: number[] = [];
  for (let label: Label | undefined = best, aisle = floor.aisles; label?.previous; label = label.previous, aisle--) {
    for (let b = 0; b < blocks; b++) {
      const pass = passes[aisle - 1]![b]![Math.floor(label.taken / PASS_PACK ** b) % PASS_PACK]!;
      if (pass.shape === NOTHING) continue;
      floor.candidates[aisle - 1]![b]!.forEach((place, i) => (i <= pass.front || i >= pass.back) && places.push(place));
    }
  }
  return { found: true, length: best.length, places, work };
}

/**
 * Partial labels as parallel columns: the label they go on from, the ways taken through the
 * aisle's blocks so far (as a combination's key and as pass numbers), the units taken, the price
 * of what is still wanted, the length. Typed arrays, reused from block to block and grown as
 * needed: arrays of plain numbers were made afresh for every block and changed their kind with
 * the values they held (small whole numbers, then any), which cost the search loop both time and
 * compiling again.
 */
class PartialLabels {
  count = 0;
  from = new Int32Array(64);
  keys = new Int32Array(64);
  codes = new Float64Array(64);
  wants = new Float64Array(64);
  lengths = new Float64Array(64);
  taken = new Float64Array(64);

  clear(): void {
    this.count = 0;
  }

  /** Room for one more; its index. */
  add(): number {
    if (this.count === this.from.length) {
      const length = this.count + 1;
      this.from = grownTo(this.from, length);
      this.keys = grownTo(this.keys, length);
      this.codes = grownTo(this.codes, length);
      this.wants = grownTo(this.wants, length);
      this.lengths = grownTo(this.lengths, length);
      this.taken = grownTo(this.taken, length);
    }
    return this.count++;
  }

  set(index: number, from: number, key: number, code: number, wanted: number, length: number, taken: number): void {
    this.from[index] = from;
    this.keys[index] = key;
    this.codes[index] = code;
    this.wants[index] = wanted;
    this.lengths[index] = length;
    this.taken[index] = taken;
  }
}

/**
 * The ways through one subaisle worth considering, none shorter with the same units added; each
 * passes the required places. Where one unit of each item is wanted, what a pass adds is its mask
 * alone (`adds` stays empty). Adds the steps it took to `counted`.
 */
function subaislePasses(problem: CoveringProblem, candidates: readonly number[], block: number, unit: boolean, counted: { work: number }): Pass[] {
  const { floor, stock, required } = problem;
  // Only the places that hold something or must be passed matter; the passes say where they stop as indexes into `candidates`.
  const held: number[] = [];
  for (let i = 0; i < candidates.length; i++) if (stock[candidates[i]!]!.length > 0 || required?.[candidates[i]!]) held.push(i);
  // Most subaisles hold nothing wanted when only a few items are put back: walk past, through or twice.
  if (held.length === 0) {
    const length = floor.crossYs[block + 1]! - floor.crossYs[block]!;
    return [
      { shape: NOTHING, length: 0, adds: [], mask: 0, front: -1, back: candidates.length },
      { shape: ONCE, length, adds: [], mask: 0, front: candidates.length - 1, back: candidates.length },
      { shape: TWICE, length: 2 * length, adds: [], mask: 0, front: candidates.length - 1, back: candidates.length },
    ];
  }
  counted.work += SUBAISLE_COST;
  const places = held.map((i) => candidates[i]!);
  const passes = passesThrough(problem, places, block, unit, counted);
  for (const pass of passes) {
    pass.front = pass.front < 0 ? -1 : held[pass.front]!;
    pass.back = pass.back >= places.length ? candidates.length : held[pass.back]!;
  }
  return passes;
}

/** `subaislePasses` over the places that matter, front and back as indexes into them. */
function passesThrough(problem: CoveringProblem, places: readonly number[], block: number, unit: boolean, counted: { work: number }): Pass[] {
  const { floor, stock, demand, required } = problem;
  const front = floor.crossYs[block]!;
  const back = floor.crossYs[block + 1]!;
  const n = places.length;
  const length = back - front;
  // Units added by the places before each index (from the front) and from each index on (from the back), built once.
  const addUnits = (units: Map<number, number>, item: number, count: number) => units.set(item, Math.min(demand[item]!, (units.get(item) ?? 0) + count));
  const add = (units: Map<number, number>, place: number) => {
    for (const { item, units: count } of stock[place]!) addUnits(units, item, count);
    return units;
  };
  const before: Map<number, number>[] = [new Map()];
  for (let i = 0; i < n; i++) before.push(add(new Map(before[i]!), places[i]!));
  const after: Map<number, number>[] = Array.from({ length: n + 1 }, () => new Map());
  for (let j = n - 1; j >= 0; j--) after[j] = add(new Map(after[j + 1]!), places[j]!);
  const addsOf = (units: Map<number, number>) => (unit ? [] : [...units].map(([item, count]) => ({ item, units: count })));
  const maskOf = (units: Map<number, number>) => {
    let bits = 0;
    for (const item of units.keys()) if (item < 30) bits |= 1 << item;
    return bits;
  };
  const frontMasks = before.map(maskOf);
  const backMasks = after.map(maskOf);
  const everything = addsOf(before[n]!);
  const passes: Pass[] = [
    { shape: ONCE, length, adds: everything, mask: frontMasks[n]!, front: n - 1, back: n },
    { shape: TWICE, length: 2 * length, adds: everything, mask: frontMasks[n]!, front: n - 1, back: n },
  ];
  const mustPass = places.flatMap((place, i) => (required?.[place] ? [i] : []));
  if (mustPass.length === 0) passes.push({ shape: NOTHING, length: 0, adds: [], mask: 0, front: -1, back: n });
  const y = (i: number) => floor.ys[places[i]!]!;
  // Places worth reaching from the front: those that add a unit not yet had from the places before, and the required ones.
  const same = (a: Map<number, number>, b: Map<number, number>) => a.size === b.size && [...a].every(([item, count]) => b.get(item) === count);
  const fronts: number[] = [];
  for (let i = 0; i < n; i++) if (required?.[places[i]!] || !same(before[i + 1]!, before[i]!)) fronts.push(i);
  const backs: number[] = [];
  for (let j = n - 1; j >= 0; j--) if (required?.[places[j]!] || !same(after[j]!, after[j + 1]!)) backs.push(j);
  // A required place left out between the front part and the back part.
  const skips = (i: number, j: number) => mustPass.some((r) => r > i && r < j);
  for (const i of fronts) if (!skips(i, n)) passes.push({ shape: FROM_FRONT, length: 2 * (y(i) - front), adds: addsOf(before[i + 1]!), mask: frontMasks[i + 1]!, front: i, back: n });
  for (const j of backs) if (!skips(-1, j)) passes.push({ shape: FROM_BACK, length: 2 * (back - y(j)), adds: addsOf(after[j]!), mask: backMasks[j]!, front: -1, back: j });
  for (const i of fronts) {
    for (const j of backs) {
      if (j <= i || skips(i, j)) continue;
      const walk = 2 * (y(i) - front) + 2 * (back - y(j));
      if (walk >= 2 * length) continue;
      const mask = frontMasks[i + 1]! | backMasks[j]!;
      if (unit) {
        passes.push({ shape: BOTH_ENDS, length: walk, adds: [], mask, front: i, back: j });
        continue;
      }
      const units = new Map(before[i + 1]!);
      for (const [item, count] of after[j]!) addUnits(units, item, count);
      passes.push({ shape: BOTH_ENDS, length: walk, adds: addsOf(units), mask, front: i, back: j });
    }
  }
  // Building a pass costs a step per item it adds; running sums and masks a step per place.
  counted.work += n + passes.reduce((sum, pass) => sum + 1 + pass.adds.length, 0);
  return undominatedPasses(passes, unit, demand.length <= 30, counted);
}

/**
 * Dominance: leaves out the labels that one of the few shortest kept of their state dominates: no
 * longer, and at least as many units of every item taken. Where one unit of each is wanted the
 * code's bits say it; otherwise the units are packed into `fields` first. Checking against all
 * would cost more than it saves; four checks count as a step.
 */
function undominatedLabels(labels: readonly Label[], fields: Fields | undefined, counted: { work: number }): Label[] {
  const words = fields?.guards.length ?? 0;
  const packed = fields ? new Int32Array(labels.length * words) : undefined;
  if (fields) labels.forEach((label, index) => pack(fields, label.code, packed!, index * words));
  counted.work += labels.length * (2 + ((fields?.word.length ?? 0) >> 2));
  const order = labels.map((_, index) => index).sort((a, b) => labels[a]!.length - labels[b]!.length);
  const dominance: Dominance = {
    groupOf: (index) => labels[index]!.state,
    dominates: (kept, index) => (packed ? holdsAtLeast(fields!.guards, packed, kept * words, index * words) : (labels[kept]!.code & labels[index]!.code) === labels[index]!.code),
    mostChecks: DOMINANCE_CHECKS_PER_COVERING_LABEL,
    checksPerStep: 4,
  };
  return undominated(order, dominance, counted).flatMap((kept) => kept.map((index) => labels[index]!));
}

/**
 * Units taken of each item as bit fields in 31-bit words, each field one bit wider than its
 * demand needs: with that top bit set in one label's fields, subtracting another's clears it
 * exactly where the other holds more, so one subtraction compares every field of a word.
 */
interface Fields {
  taken: (code: number, item: number) => number;
  /** By item: the word its field is in, and where in it. */
  word: number[];
  shift: number[];
  /** By word: the top bit of each of its fields. */
  guards: number[];
}

function fieldsFor(demand: readonly number[], taken: Fields['taken']): Fields {
  const fields: Fields = { taken, word: [], shift: [], guards: [0] };
  let used = 0;
  for (const want of demand) {
    const width = 32 - Math.clz32(want) + 1;
    if (used + width > 31) {
      fields.guards.push(0);
      used = 0;
    }
    fields.word.push(fields.guards.length - 1);
    fields.shift.push(used);
    fields.guards[fields.guards.length - 1]! |= 1 << (used + width - 1);
    used += width;
  }
  return fields;
}

function pack(fields: Fields, code: number, into: Int32Array, at: number): void {
  const { taken, word, shift } = fields;
  for (let item = 0; item < word.length; item++) into[at + word[item]!]! |= taken(code, item) << shift[item]!;
}

/** True when the units packed at `a` are at least those at `b`, field by field. */
function holdsAtLeast(guards: readonly number[], packed: Int32Array, a: number, b: number): boolean {
  for (let w = 0; w < guards.length; w++) {
    if ((((packed[a + w]! | guards[w]!) - packed[b + w]!) & guards[w]!) !== guards[w]) return false;
  }
  return true;
}

/**
 * Dominance among passes: leaves out each pass another of the same shape dominates, no longer and
 * adding at least as many units of every item (by masks where one unit of each is wanted). Adds
 * its comparisons to `counted`.
 */
function undominatedPasses(passes: Pass[], unit: boolean, masked: boolean, counted: { work: number }): Pass[] {
  // Masks say which items a pass adds wherever every item has a bit: a pass that lacks one cannot cover.
  const covers = unit
    ? (a: Pass, b: Pass) => (a.mask & b.mask) === b.mask
    : (a: Pass, b: Pass) => (!masked || (a.mask & b.mask) === b.mask) && b.adds.every(({ item, units }) => (a.adds.find((entry) => entry.item === item)?.units ?? 0) >= units);
  const size = (pass: Pass) => (unit ? bitCount(pass.mask) : pass.adds.length);
  const sorted = [...passes].sort((a, b) => a.length - b.length || size(b) - size(a));
  const dominance: Dominance = { groupOf: (p) => sorted[p]!.shape, dominates: (kept, p) => covers(sorted[kept]!, sorted[p]!), mostChecks: Infinity, checksPerStep: 1 };
  // Kept shortest first, whatever their shape: the covering program stops at the first pass too long.
  return undominated(sorted.map((_, p) => p), dominance, counted).flat().sort((a, b) => a - b).map((p) => sorted[p]!);
}

function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits; rest !== 0; rest &= rest - 1) count++;
  return count;
}
