import { combinedWalk, largestGapWalk, midpointWalk, returnWalk, sShapeWalk } from './heuristics';
import { spotsByBlock, WalkBuilder, type Floor, type Spot, type Walk } from './walk';

/*
 * The exact shortest tour: Ratliff & Rosenthal's dynamic program over aisles (Operations Research
 * 31(3), 1983), extended to middle cross aisles as Roodbergen & de Koster do for one ("Routing
 * order pickers in a warehouse with a middle aisle", EJOR 133, 2001) and Pansart, Catusse &
 * Cambazard for several ("Exact algorithms for the order picking problem", C&OR 100, 2018). A tour
 * is a connected multigraph of the aisle graph, every vertex of even degree, that holds the depot
 * and every pick; no edge of a shortest one is used more than twice. The corners are where aisle j
 * meets each cross aisle; a subaisle is the part of an aisle between two neighbouring cross aisles.
 * Going left to right, a partial tour (aisles 1..j and the cross-aisle edges from j to j+1) is
 * summed up by its frontier: the multiplicity (0, 1 or 2) of each cross-aisle edge to aisle j+1 and
 * which of them are already connected. On one block these are Ratliff & Rosenthal's seven classes.
 * Within a subaisle only six patterns can belong to a shortest tour: nothing, one traversal, two
 * traversals, in and out from the front, in and out from the back, and in and out from both ends
 * leaving out the largest gap between two picks. The states grow exponentially with the number of
 * cross aisles only, so the work is linear in the number of aisles for a given number of blocks.
 */

/** How a subaisle's own edges meet its front and back corners, and whether they join the two. */
interface Shape {
  front: number;
  back: number;
  joinsEnds: boolean;
}
const SHAPES: Shape[] = [
  { front: 0, back: 0, joinsEnds: false }, // nothing
  { front: 1, back: 1, joinsEnds: true }, // one traversal
  { front: 2, back: 2, joinsEnds: true }, // two traversals
  { front: 2, back: 0, joinsEnds: false }, // in and out from the front
  { front: 0, back: 2, joinsEnds: false }, // in and out from the back
  { front: 2, back: 2, joinsEnds: false }, // in and out from both ends, the largest gap left out
];
export const [NOTHING, ONCE, TWICE, FROM_FRONT, FROM_BACK, BOTH_ENDS] = [0, 1, 2, 3, 4, 5];
export const SHAPE_COUNT = SHAPES.length;

/** One of a subaisle's possible patterns: its shape, its length, and the segment it leaves out (if any). */
interface SubaislePattern {
  shape: number;
  cost: number;
  /** Segment i runs from point i to point i + 1 of (front corner, spots..., back corner). */
  leftOut?: number;
}

function patterns(spots: readonly Spot[], front: number, back: number): SubaislePattern[] {
  const length = back - front;
  const result: SubaislePattern[] = [
    { shape: ONCE, cost: length },
    { shape: TWICE, cost: 2 * length },
  ];
  if (spots.length === 0) {
    result.push({ shape: NOTHING, cost: 0 });
    return result;
  }
  result.push({ shape: FROM_FRONT, cost: 2 * (spots[spots.length - 1]!.y - front), leftOut: spots.length });
  result.push({ shape: FROM_BACK, cost: 2 * (back - spots[0]!.y), leftOut: 0 });
  if (spots.length >= 2) {
    let gap = 1;
    for (let i = 2; i < spots.length; i++) {
      if (spots[i]!.y - spots[i - 1]!.y > spots[gap]!.y - spots[gap - 1]!.y) gap = i;
    }
    result.push({ shape: BOTH_ENDS, cost: 2 * (length - (spots[gap]!.y - spots[gap - 1]!.y)), leftOut: gap });
  }
  return result;
}

/** Multiplicity of each of a subaisle's segments under a pattern. */
function segmentTimes(pattern: SubaislePattern, segmentCount: number): number[] {
  const times = pattern.shape === NOTHING ? 0 : pattern.shape === ONCE ? 1 : 2;
  return Array.from({ length: segmentCount }, (_, i) => (i === pattern.leftOut ? 0 : times));
}

export const EMPTY = 0;
export const FINISHED = 1;

/** The cross-aisle edges to the next aisle: multiplicity per cross aisle, front first, and a component label per edge used. */
interface Frontier {
  times: number[];
  labels: number[];
}

export interface Transition {
  /** Multiplicity of each cross-aisle edge to the next aisle. */
  times: number[];
  width: number;
  next: number;
}

/** The transitions out of a state for one aisle, and their next states and widths as typed arrays: what the inner loops read. */
export interface Moves {
  list: Transition[];
  next: Int32Array;
  width: Int32Array;
}

/**
 * The frontiers of floors with a given number of cross aisles, numbered as they are met, and the
 * transitions out of each, worked out once for each (state, subaisle shapes, aisle kind) and
 * then only looked up.
 */
export class StateSpace {
  private readonly frontiers: (Frontier | undefined)[] = [undefined, undefined];
  private readonly ids = new Map<string, number>();
  /** By state, then `key * 4 + kind`; sparse. */
  private readonly transitions: (Moves | undefined)[][];

  constructor(private readonly crossAisles: number) {
    this.transitions = [this.noMoves(), this.noMoves()];
  }

  /** A state's table of transitions, none worked out yet: filled to its length, so that it stays an array and not a dictionary. */
  private noMoves(): (Moves | undefined)[] {
    return new Array<Moves | undefined>(4 * SHAPE_COUNT ** (this.crossAisles - 1)).fill(undefined);
  }

  /** `shapes` by subaisle, front first; `key` numbers them; `kind` is 1 for the depot's aisle plus 2 when nothing is required right of it. */
  transitionsFrom(state: number, shapes: readonly number[], key: number, kind: number): Transition[] {
    return this.movesFrom(state, shapes, key, kind).list;
  }

  /** States numbered so far: every state a transition worked out leads to is below. A field, not a getter: the collecting tour reads it for every transition table it looks up. */
  size = FINISHED + 1;

  /** `transitionsFrom` with the next states and widths as typed arrays. */
  movesFrom(state: number, shapes: readonly number[], key: number, kind: number): Moves {
    const cache = this.transitions[state]!;
    let moves = cache[key * 4 + kind];
    if (!moves) {
      const list = this.work(state, shapes.map((shape) => SHAPES[shape]!), (kind & 1) === 1, (kind & 2) === 2);
      moves = { list, next: Int32Array.from(list, (transition) => transition.next), width: Int32Array.from(list, (transition) => transition.width) };
      cache[key * 4 + kind] = moves;
    }
    return moves;
  }

  private id(frontier: Frontier): number {
    const key = `${frontier.times.join('')}/${frontier.labels.join(',')}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.frontiers.length;
      this.ids.set(key, id);
      this.frontiers.push(frontier);
      this.size = this.frontiers.length;
      this.transitions.push(this.noMoves());
    }
    return id;
  }

  private work(state: number, shapes: readonly Shape[], isDepotAisle: boolean, nothingRequiredAfter: boolean): Transition[] {
    const m = this.crossAisles;
    const none = new Array<number>(m).fill(0);
    if (state === FINISHED) {
      const idle = shapes.every((shape) => shape.front + shape.back === 0) && !isDepotAisle;
      return idle ? [{ times: none, width: 0, next: FINISHED }] : [];
    }
    const left = this.frontiers[state] ?? { times: none, labels: none };
    // Union-find: nodes 0..m-1 are the left edges' components, m..2m-1 this aisle's corners.
    const parent = Array.from({ length: 2 * m }, (_, i) => i);
    const find = (n: number): number => (parent[n] === n ? n : find(parent[n]!));
    const union = (a: number, b: number) => {
      parent[find(a)] = find(b);
    };
    const degree = left.times.map((times, c) => times + (c > 0 ? shapes[c - 1]!.back : 0) + (c < m - 1 ? shapes[c]!.front : 0));
    left.times.forEach((times, c) => times > 0 && union(left.labels[c]!, m + c));
    shapes.forEach((shape, s) => shape.joinsEnds && union(m + s, m + s + 1));
    const root = Array.from({ length: m }, (_, c) => find(m + c));
    const result: Transition[] = [];
    // Each right edge keeps its corner's degree even: 1 after an odd degree, 0 or 2 after an even one.
    for (let combo = 0; combo < 1 << m; combo++) {
      const times: number[] = degree.map((d, c) => (d % 2 === 1 ? 1 : (combo >> c) & 1 ? 2 : 0));
      if (degree.some((d, c) => d % 2 === 1 && (combo >> c) & 1)) continue;
      const total = degree.map((d, c) => d + times[c]!);
      if (isDepotAisle && total[0] === 0) continue;
      if (total.every((d) => d === 0)) {
        if (state === EMPTY) result.push({ times, width: 0, next: EMPTY });
        continue;
      }
      const present = new Set(root.filter((_, c) => total[c]! > 0));
      const goingOn = new Set(root.filter((_, c) => times[c]! > 0));
      const width = times.reduce((sum, t) => sum + t, 0);
      if (goingOn.size === 0) {
        if (present.size === 1 && nothingRequiredAfter) result.push({ times, width, next: FINISHED });
        continue;
      }
      // A component that does not reach the next aisle could never be joined to the rest.
      if ([...present].some((r) => !goingOn.has(r))) continue;
      const label = new Map<number, number>();
      const labels = root.map((r, c) => (times[c]! > 0 ? (label.get(r) ?? label.set(r, label.size).get(r)!) : 0));
      result.push({ times, width, next: this.id({ times, labels }) });
    }
    return result;
  }
}

/** Least costs by state, Infinity for a state not reached: room for `size` states. */
export function unreached(size: number): Float64Array {
  return new Float64Array(size).fill(Infinity);
}

/** `costs` with room for `size` states, the new ones not reached. */
export function withRoom(costs: Float64Array, size: number): Float64Array {
  if (size <= costs.length) return costs;
  const grown = unreached(Math.max(size, 2 * costs.length));
  grown.set(costs);
  return grown;
}

const SPACES = new Map<number, StateSpace>();
export const spaceFor = (crossAisles: number) => SPACES.get(crossAisles) ?? SPACES.set(crossAisles, new StateSpace(crossAisles)).get(crossAisles)!;

/**
 * Floors with up to this many cross aisles (front and back included: two middle ones) are solved
 * by the dynamic program; its states and subaisle combinations grow too fast beyond.
 */
export const MAX_DP_CROSS_AISLES = 4;
/**
 * Transitions the dynamic program may look at on floors of three blocks before it gives up (what
 * it takes is in docs/benchmarks.md); on one or two blocks it always finishes, its work linear in
 * the number of aisles. A count, not a clock, so that a route is the same on every run.
 */
const DP_WORK = 3_000_000;
/** Up to this many distinct places, Held–Karp over the places settles any floor (12² × 2¹² steps). */
const MAX_HELD_KARP_PLACES = 12;

/** A combination of one pattern per subaisle of an aisle. */
interface Option {
  /** Pattern index by subaisle. */
  choice: number[];
  shapes: number[];
  /** Numbers the shapes, for looking transitions up. */
  key: number;
  cost: number;
}

/** How the dynamic program reached each state after an aisle, by state: the state before, the option taken and the edges to the next aisle. */
interface Steps {
  previous: number[];
  option: Option[];
  transition: Transition[];
}

interface Solution {
  distance: number;
  /** By aisle, then subaisle: the patterns open to it. */
  aislePatterns: SubaislePattern[][][];
  steps: Steps[];
}

function combinations(options: readonly SubaislePattern[][]): Option[] {
  let result: Option[] = [{ choice: [], shapes: [], key: 0, cost: 0 }];
  options.forEach((subaisle, s) => {
    result = result.flatMap((partial) =>
      subaisle.map((pattern, p) => ({
        choice: [...partial.choice, p],
        shapes: [...partial.shapes, pattern.shape],
        key: partial.key + pattern.shape * 6 ** s,
        cost: partial.cost + pattern.cost,
      })),
    );
  });
  return result;
}

/**
 * The states a run of the dynamic program reached after each aisle and their least costs: a run
 * on the same floor whose spots are the same up to some aisle, and whose aisles are of the same
 * kind up to there, reaches the same states at the same costs, and may resume from them.
 */
export interface Trail {
  lastRequired: number;
  /** By aisle - 1: the states reached after it, and their costs (sparse by state). */
  states: number[][];
  costs: number[][];
}

/**
 * The dynamic program, or undefined when the floor has too many cross aisles or the work exceeds
 * its allowance; `withSteps` keeps what rebuilding the tour needs. On one or two blocks, `resume`
 * starts it at aisle `from` with the states of a trail (its spots the same before that aisle) and
 * `trail` is filled with this run's.
 */
function solve(floor: Floor, withSteps: boolean, resume?: { trail: Trail; from: number }, trail?: Trail): Solution | undefined {
  const m = floor.crossYs.length;
  if (m > MAX_DP_CROSS_AISLES) return undefined;
  const space = spaceFor(m);
  const lastRequired = Math.max(floor.depotAisle, floor.pickAisles[floor.pickAisles.length - 1] ?? 0);
  // Up to where the two runs' aisles are of the same kind: those at or right of the last required aisle differ when it moved.
  const from = resume && m <= 3 ? Math.min(resume.from, resume.trail.lastRequired === lastRequired ? Infinity : Math.min(lastRequired, resume.trail.lastRequired)) : 1;
  const patternsOf = (blocks: Spot[][]) => blocks.map((spots, s) => patterns(spots, floor.crossYs[s]!, floor.crossYs[s + 1]!));
  // Aisles without spots share their patterns and combinations.
  const empty = patternsOf(floor.crossYs.slice(1).map(() => []));
  const emptyOptions = combinations(empty);
  const aislePatterns = floor.spots.map((spots, i) => (spots.length === 0 ? empty : patternsOf(spotsByBlock(floor, i + 1))));
  const bound = m > 3 ? pruning(floor, aislePatterns) : undefined;
  // Sparse by state number: the states reached and their least costs.
  let states = from > 1 ? resume!.trail.states[from - 2]! : [EMPTY];
  let costs: number[] = from > 1 ? resume!.trail.costs[from - 2]! : [0];
  if (trail) {
    trail.lastRequired = lastRequired;
    trail.states = from > 1 ? resume!.trail.states.slice(0, from - 1) : [];
    trail.costs = from > 1 ? resume!.trail.costs.slice(0, from - 1) : [];
  }
  const steps: Steps[] = [];
  let work = 0;
  const spacing = floor.spacing;
  for (let aisle = from; aisle <= floor.aisles; aisle++) {
    const reached: number[] = [];
    const next: number[] = [];
    const step: Steps = { previous: [], option: [], transition: [] };
    const lastAisle = aisle === floor.aisles;
    const kind = (aisle === floor.depotAisle ? 1 : 0) + (aisle >= lastRequired ? 2 : 0);
    const options = floor.spots[aisle - 1]!.length === 0 ? emptyOptions : combinations(aislePatterns[aisle - 1]!);
    for (const state of states) {
      const before = costs[state]!;
      if (bound && before + bound.still(aisle, state) > bound.longest) continue;
      for (const option of options) {
        const moves = space.movesFrom(state, option.shapes, option.key, kind);
        const count = moves.next.length;
        work += count + 1;
        const base = before + option.cost;
        for (let t = 0; t < count; t++) {
          const width = moves.width[t]!;
          if (lastAisle && width > 0) continue;
          const after = moves.next[t]!;
          const total = base + width * spacing;
          const known = next[after];
          if (known === undefined) reached.push(after);
          else if (total >= known) continue;
          next[after] = total;
          if (!withSteps) continue;
          step.previous[after] = state;
          step.option[after] = option;
          step.transition[after] = moves.list[t]!;
        }
      }
      if (m > 3 && work > DP_WORK) return undefined;
    }
    steps.push(step);
    states = reached;
    costs = next;
    trail?.states.push(reached);
    trail?.costs.push(next);
  }
  return { distance: costs[FINISHED]!, aislePatterns, steps };
}

/**
 * For three blocks, where the states are many: a walk no shortest tour exceeds (the best
 * heuristic's) and, from aisle `aisle` on, what any tour still has to walk (in each subaisle with
 * picks its cheapest pattern; along the cross aisles, there and back to the last aisle it needs).
 * A partial tour whose cost and that bound exceed the walk is left out.
 */
function pruning(floor: Floor, aislePatterns: SubaislePattern[][][]) {
  // A little above, so that sums in another order never leave out the shortest tour.
  const longest = Math.min(...HEURISTICS.map((walk) => walk(floor).distance)) * (1 + 1e-9) + 1e-9;
  const inAisles = new Float64Array(floor.aisles + 2);
  for (let aisle = floor.aisles; aisle >= 1; aisle--) {
    const least = aislePatterns[aisle - 1]!.reduce((sum, options) => sum + Math.min(...options.map((pattern) => (pattern.shape === NOTHING ? 0 : pattern.cost))), 0);
    inAisles[aisle] = inAisles[aisle + 1]! + (floor.spots[aisle - 1]!.length > 0 ? least : 0);
  }
  const first = Math.min(floor.depotAisle, floor.pickAisles[0]!);
  const last = Math.max(floor.depotAisle, floor.pickAisles[floor.pickAisles.length - 1]!);
  const across = (from: number) => 2 * Math.max(0, floor.x(last) - floor.x(from));
  return {
    longest,
    /** Before `aisle` (the edges into it already counted): a tour not yet begun still spans first..last, one begun aisle..last. */
    still: (aisle: number, state: number) => inAisles[aisle]! + across(state === EMPTY ? first : aisle),
  };
}

const HEURISTICS = [sShapeWalk, returnWalk, midpointWalk, largestGapWalk, combinedWalk];
/** Passes of the improvement step over the best heuristic's order of stops, and the pairs of stops it may look at in all. */
const IMPROVEMENT_PASSES = 8;
const IMPROVEMENT_PAIRS = 500_000;

/** Length of the shortest tour (or of the best walk found), without building it. */
export function optimalDistance(floor: Floor): number {
  if (floor.pickAisles.length === 0) return 0;
  return solve(floor, false)?.distance ?? heldKarp(floor)?.distance ?? improvedOrder(floor).distance;
}

/**
 * `optimalDistance` resumed from `trail` (a run on the same floor whose spots were the same in
 * every aisle before `firstChanged`) where it can; the run's own trail is returned for the next
 * (none where the dynamic program does not settle the floor, or no place is to be visited).
 */
export function resumedDistance(floor: Floor, previous: Trail | undefined, firstChanged: number): { distance: number; trail: Trail | undefined } {
  if (floor.pickAisles.length === 0 || floor.crossYs.length > 3) return { distance: optimalDistance(floor), trail: undefined };
  const trail: Trail = { lastRequired: 0, states: [], costs: [] };
  const solution = solve(floor, false, previous && { trail: previous, from: firstChanged }, trail)!;
  return { distance: solution.distance, trail };
}

/**
 * The shortest tour by the dynamic program, else by Held–Karp when the places are few, else (not
 * exact) the best heuristic's order of stops improved by 2-opt, each leg a shortest walk.
 */
export function optimalWalk(floor: Floor): Walk {
  if (floor.pickAisles.length === 0) return new WalkBuilder(floor).finish(true);
  const solution = solve(floor, true);
  if (solution) return tourWalk(floor, solution);
  const tour = heldKarp(floor);
  return tour ? sequenceWalk(floor, tour.order, true) : sequenceWalk(floor, improvedOrder(floor).order, false);
}

/**
 * The best heuristic walk's stops, reordered by 2-opt (reversing a stretch of the order while that
 * shortens the tour) with shortest legs between them: never longer than that walk.
 */
function improvedOrder(floor: Floor): { distance: number; order: Stop[] } {
  const best = HEURISTICS.map((walk) => walk(floor)).reduce((a, b) => (b.distance < a.distance ? b : a));
  const spotOf = new Map(floor.spots.flatMap((spots, i) => spots.map((spot) => [`${i + 1}:${spot.position}`, spot] as const)));
  const order = best.visits.map(({ aisle, position }) => ({ aisle, spot: spotOf.get(`${aisle}:${position}`)! }));
  const depot = { aisle: floor.depotAisle, y: 0 };
  const point = (i: number) => (i < 0 || i >= order.length ? depot : { aisle: order[i]!.aisle, y: order[i]!.spot.y });
  const leg = (i: number, j: number) => between(floor, point(i), point(j));
  let pairs = IMPROVEMENT_PAIRS;
  for (let pass = 0, improving = true; improving && pass < IMPROVEMENT_PASSES; pass++) {
    improving = false;
    for (let i = 0; i < order.length - 1 && (pairs -= order.length - i) >= 0; i++) {
      for (let j = i + 1; j < order.length; j++) {
        if (leg(i - 1, j) + leg(i, j + 1) < leg(i - 1, i) + leg(j, j + 1) - 1e-9) {
          order.splice(i, j - i + 1, ...order.slice(i, j + 1).reverse());
          improving = true;
        }
      }
    }
  }
  const distance = order.reduce((sum, _, i) => sum + leg(i - 1, i), leg(order.length - 1, order.length));
  return { distance, order };
}

interface Stop {
  aisle: number;
  spot: Spot;
}

/** The cross aisle a shortest walk between two points of different aisles takes: the one of least detour. */
function crossYBetween(floor: Floor, a: number, b: number): number {
  return floor.crossYs.reduce((best, y) => (Math.abs(a - y) + Math.abs(b - y) < Math.abs(a - best) + Math.abs(b - best) ? y : best));
}

/** Shortest walk between two points of the aisle graph. */
function between(floor: Floor, a: { aisle: number; y: number }, b: { aisle: number; y: number }): number {
  if (a.aisle === b.aisle) return Math.abs(a.y - b.y);
  const y = crossYBetween(floor, a.y, b.y);
  return Math.abs(floor.x(a.aisle) - floor.x(b.aisle)) + Math.abs(a.y - y) + Math.abs(b.y - y);
}

/** Held–Karp over the distinct places (the depot fixed first): the shortest order to visit them, or undefined when they are too many. */
function heldKarp(floor: Floor): { distance: number; order: Stop[] } | undefined {
  const stops = floor.spots.flatMap((spots, i) => spots.map((spot) => ({ aisle: i + 1, spot })));
  const n = stops.length;
  if (n > MAX_HELD_KARP_PLACES) return undefined;
  const point = (i: number) => (i === n ? { aisle: floor.depotAisle, y: 0 } : { aisle: stops[i]!.aisle, y: stops[i]!.spot.y });
  const distance = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => between(floor, point(i), point(j))));
  // best[set * n + last]: shortest walk from the depot through `set`, ending at `last`.
  const best = new Float64Array((1 << n) * n).fill(Infinity);
  const from = new Int8Array((1 << n) * n).fill(-1);
  for (let i = 0; i < n; i++) best[(1 << i) * n + i] = distance[n]![i]!;
  for (let set = 1; set < 1 << n; set++) {
    for (let last = 0; last < n; last++) {
      const here = best[set * n + last]!;
      if (here === Infinity) continue;
      for (let next = 0; next < n; next++) {
        if (set & (1 << next)) continue;
        const at = (set | (1 << next)) * n + next;
        if (here + distance[last]![next]! < best[at]!) {
          best[at] = here + distance[last]![next]!;
          from[at] = last;
        }
      }
    }
  }
  const all = (1 << n) - 1;
  let last = 0;
  for (let i = 1; i < n; i++) if (best[all * n + i]! + distance[i]![n]! < best[all * n + last]! + distance[last]![n]!) last = i;
  const order: Stop[] = [];
  for (let set = all, at = last; at >= 0; ) {
    order.unshift(stops[at]!);
    const previous = from[set * n + at]!;
    set &= ~(1 << at);
    at = previous;
  }
  return { distance: best[all * n + last]! + distance[last]![n]!, order };
}

/** The walk through the stops in order, each leg a shortest one. */
function sequenceWalk(floor: Floor, order: readonly Stop[], exact: boolean): Walk {
  const builder = new WalkBuilder(floor);
  for (const { aisle, spot } of order) {
    const here = builder.here;
    if (here.aisle !== aisle) {
      const y = crossYBetween(floor, here.y, spot.y);
      builder.goTo(here.aisle, y);
      builder.goTo(aisle, y);
    }
    builder.visit(aisle, spot);
  }
  builder.goTo(builder.here.aisle, 0);
  return builder.finish(exact);
}

/** Builds the chosen multigraph, then walks an Euler tour of it from the depot (Hierholzer's algorithm). */
function tourWalk(floor: Floor, { aislePatterns, steps }: Solution): Walk {
  // Vertices, aisle by aisle: each corner, front to back, with the spots of the subaisle behind it in between.
  const vertices: { aisle: number; spot?: Spot; y: number }[] = [];
  const corners: number[][] = [];
  const subaisleSpots: Spot[][][] = [];
  for (let aisle = 1; aisle <= floor.aisles; aisle++) {
    const blocks = spotsByBlock(floor, aisle);
    subaisleSpots.push(blocks);
    corners.push(
      floor.crossYs.map((y, c) => {
        const corner = vertices.length;
        vertices.push({ aisle, y });
        for (const spot of blocks[c] ?? []) vertices.push({ aisle, spot, y: spot.y });
        return corner;
      }),
    );
  }
  const edges: [number, number][] = [];
  const addEdge = (u: number, v: number, times: number) => {
    for (let t = 0; t < times; t++) edges.push([u, v]);
  };
  let state = FINISHED;
  for (let aisle = floor.aisles; aisle >= 1; aisle--) {
    const step = steps[aisle - 1]!;
    const aisleCorners = corners[aisle - 1]!;
    step.option[state]!.choice.forEach((pattern, s) => {
      const start = aisleCorners[s]!;
      const points = subaisleSpots[aisle - 1]![s]!.length + 2;
      segmentTimes(aislePatterns[aisle - 1]![s]![pattern]!, points - 1).forEach((times, i) => addEdge(start + i, start + i + 1, times));
    });
    step.transition[state]!.times.forEach((times, c) => times > 0 && addEdge(aisleCorners[c]!, corners[aisle]![c]!, times));
    state = step.previous[state]!;
  }

  const builder = new WalkBuilder(floor);
  const incident: number[][] = vertices.map(() => []);
  edges.forEach(([u, v], e) => {
    incident[u]!.push(e);
    incident[v]!.push(e);
  });
  const used = new Uint8Array(edges.length);
  const cursor = new Int32Array(vertices.length);
  const stack = [corners[floor.depotAisle - 1]![0]!];
  const circuit: number[] = [];
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    const around = incident[v]!;
    while (cursor[v]! < around.length && used[around[cursor[v]!]!]) cursor[v]!++;
    if (cursor[v]! === around.length) {
      circuit.push(stack.pop()!);
      continue;
    }
    const e = around[cursor[v]!]!;
    used[e] = 1;
    const [a, b] = edges[e]!;
    stack.push(a === v ? b : a);
  }
  for (const index of circuit) {
    const vertex = vertices[index]!;
    if (vertex.spot) builder.visit(vertex.aisle, vertex.spot);
    else builder.goTo(vertex.aisle, vertex.y);
  }
  return builder.finish(true);
}
