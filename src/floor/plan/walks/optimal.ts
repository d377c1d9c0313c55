import { combinedWalk, largestGapWalk, midpointWalk, returnWalk, sShapeWalk } from './heuristics';
import { spotsByBlock, WalkBuilder, type Floor, type Spot, type Walk } from './walk';
import { aisleKind, grownTo } from './labels';

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

  /**
   * The moves out of `state` worked out so far, by `key * 4 + kind`: read once per state, a
   * table the inner loops look moves up in before asking `movesFrom` (which fills it in place).
   */
  movesTable(state: number): readonly (Moves | undefined)[] {
    return this.transitions[state]!;
  }

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

/** The patterns open to each subaisle of an aisle whose spots are `blocks` (front block first). */
function patternsByBlock(floor: Floor, blocks: readonly (readonly Spot[])[]): SubaislePattern[][] {
  return blocks.map((spots, s) => patterns(spots, floor.crossYs[s]!, floor.crossYs[s + 1]!));
}

/** The patterns of an aisle without spots, the same for every such aisle. */
const emptyPatterns = (floor: Floor) => patternsByBlock(floor, floor.crossYs.slice(1).map(() => []));

function combinations(options: readonly SubaislePattern[][]): Option[] {
  let result: Option[] = [{ choice: [], shapes: [], key: 0, cost: 0 }];
  for (let s = 0; s < options.length; s++) {
    const subaisle = options[s]!;
    const place = SHAPE_COUNT ** s;
    const grown: Option[] = [];
    for (const partial of result) {
      for (let p = 0; p < subaisle.length; p++) {
        const pattern = subaisle[p]!;
        grown.push({ choice: [...partial.choice, p], shapes: [...partial.shapes, pattern.shape], key: partial.key + pattern.shape * place, cost: partial.cost + pattern.cost });
      }
    }
    result = grown;
  }
  return result;
}

/**
 * The dynamic program, or undefined when the floor has too many cross aisles or the work exceeds
 * its allowance; `withSteps` keeps what rebuilding the tour needs.
 */
function solve(floor: Floor, withSteps: boolean): Solution | undefined {
  const m = floor.crossYs.length;
  if (m > MAX_DP_CROSS_AISLES) return undefined;
  const space = spaceFor(m);
  const lastRequired = lastRequiredAisle(floor);
  // Aisles without spots share their patterns and combinations.
  const empty = emptyPatterns(floor);
  const emptyOptions = combinations(empty);
  const aislePatterns = floor.spots.map((spots, i) => (spots.length === 0 ? empty : patternsByBlock(floor, spotsByBlock(floor, i + 1))));
  const bound = m > 3 ? pruning(floor, aislePatterns) : undefined;
  let reached: Reached = { states: [EMPTY], costs: unreached(space.size) };
  reached.costs[EMPTY] = 0;
  const steps: Steps[] = [];
  let work = 0;
  for (let aisle = 1; aisle <= floor.aisles; aisle++) {
    const step: Steps | undefined = withSteps ? { previous: [], option: [], transition: [] } : undefined;
    const options = floor.spots[aisle - 1]!.length === 0 ? emptyOptions : combinations(aislePatterns[aisle - 1]!);
    const skip = bound && ((state: number, cost: number) => cost + bound.still(aisle, state) > bound.longest);
    const after = aisleStep(space, floor, aisle, aisleKind(aisle, floor.depotAisle, lastRequired), options, reached, step, skip);
    work += after.work;
    if (m > 3 && work > DP_WORK) return undefined;
    if (step) steps.push(step);
    reached = after;
  }
  return { distance: reached.costs[FINISHED]!, aislePatterns, steps };
}

/** The states a partial tour can be in after an aisle, and the least cost of each (dense by state number: the states are few). */
interface Reached {
  states: number[];
  costs: Float64Array;
}

const lastRequiredAisle = (floor: Floor) => Math.max(floor.depotAisle, floor.pickAisles[floor.pickAisles.length - 1] ?? 0);
/** 1 for the depot's aisle, plus 2 when nothing is required right of it. */

/**
 * One aisle of the dynamic program: the states reached after `aisle` from those reached before
 * it, by each combination of patterns in `options`; `step` keeps how each was reached, and
 * states that `skip` says cannot lead to a shortest tour are not gone on from.
 */
function aisleStep(
  space: StateSpace,
  floor: Floor,
  aisle: number,
  kind: number,
  options: readonly Option[],
  before: Reached,
  step?: Steps,
  skip?: (state: number, cost: number) => boolean,
): Reached & { work: number } {
  const states: number[] = [];
  let costs = unreached(space.size);
  const lastAisle = aisle === floor.aisles;
  const spacing = floor.spacing;
  let work = 0;
  for (const state of before.states) {
    const cost = before.costs[state]!;
    if (skip?.(state, cost)) continue;
    const table = space.movesTable(state);
    for (const option of options) {
      const moves = table[option.key * 4 + kind] ?? space.movesFrom(state, option.shapes, option.key, kind);
      // Working the moves out may have numbered new states.
      costs = grownTo(costs, space.size, Infinity);
      const { next, width } = moves;
      const count = next.length;
      work += count + 1;
      const base = cost + option.cost;
      for (let t = 0; t < count; t++) {
        if (lastAisle && width[t]! > 0) continue;
        const after = next[t]!;
        const total = base + width[t]! * spacing;
        const known = costs[after]!;
        if (known === Infinity) states.push(after);
        else if (total >= known) continue;
        costs[after] = total;
        if (!step) continue;
        step.previous[after] = state;
        step.option[after] = option;
        step.transition[after] = moves.list[t]!;
      }
    }
  }
  return { states, costs, work };
}

/** A cost of finishing not worked out yet: no cost is negative. */
const NOT_ASKED = -1;

/**
 * The dynamic program over one floor of one or two blocks, worked out lazily both ways for the
 * floors measured after it that differ from it in a few aisles: forward, the states reached after
 * each aisle (from the left, as far as asked); backward, the least cost of finishing from a
 * state after an aisle (state by state, as asked). A floor that agrees with it on the aisles
 * before `from` and after `to` takes its forward states before `from` and its costs of finishing
 * after `to`, and runs only the aisles between. Aisles are of the same kind where their spots
 * agree, except before the last required aisle when it moved: the forward states are taken only
 * up to there.
 */
export class Trail {
  private readonly space: StateSpace;
  readonly lastRequired: number;
  /** By number of aisles done (0 to `forward.length - 1`): the states reached. */
  private readonly forward: Reached[];
  /** By number of aisles done: the least cost of finishing from each state, NOT_ASKED where not yet asked; shared with the trails that agree on the aisles after. */
  private readonly toGo: ({ costs: Float64Array } | undefined)[];
  /** By aisle - 1: its combinations of patterns, once worked out. */
  private readonly options: (Option[] | undefined)[];
  private readonly emptyOptions: Option[];

  constructor(
    private readonly floor: Floor,
    previous?: { trail: Trail; from: number; to: number },
  ) {
    const { aisles, crossYs } = floor;
    this.space = spaceFor(crossYs.length);
    this.lastRequired = lastRequiredAisle(floor);
    this.emptyOptions = combinations(emptyPatterns(floor));
    const agrees = (aisle: number) => previous !== undefined && (aisle < previous.from || aisle > previous.to);
    this.options = Array.from({ length: aisles }, (_, i) => (agrees(i + 1) ? previous!.trail.options[i] : undefined));
    this.toGo = Array.from({ length: aisles + 1 }, (_, done) => (previous && done >= previous.to ? previous.trail.toGoAfter(done) : undefined));
    const start: Reached = { states: [EMPTY], costs: unreached(this.space.size) };
    start.costs[EMPTY] = 0;
    this.forward = previous ? previous.trail.forwardUpTo(previous.from - 1).slice(0, previous.from) : [start];
  }

  /** The length of the shortest tour, running the aisles whose states are not known yet and finishing from where the costs of finishing are. */
  distance(to: number): number {
    const reached = this.forwardUpTo(to)[to]!;
    let least = Infinity;
    for (const state of reached.states) least = Math.min(least, reached.costs[state]! + this.finishing(to, state));
    return least;
  }

  /** The forward states up to `done` aisles, run from the last known. */
  private forwardUpTo(done: number): Reached[] {
    for (let aisle = this.forward.length; aisle <= done; aisle++) {
      this.forward.push(aisleStep(this.space, this.floor, aisle, aisleKind(aisle, this.floor.depotAisle, this.lastRequired), this.optionsOf(aisle), this.forward[aisle - 1]!));
    }
    return this.forward;
  }

  private toGoAfter(done: number): { costs: Float64Array } {
    return (this.toGo[done] ??= { costs: new Float64Array(this.space.size).fill(NOT_ASKED) });
  }

  /** The least cost of finishing the tour from `state` after `done` aisles. */
  private finishing(done: number, state: number): number {
    const { floor, space } = this;
    if (done === floor.aisles) return state === FINISHED ? 0 : Infinity;
    const memo = this.toGoAfter(done);
    if (state >= memo.costs.length) memo.costs = grownTo(memo.costs, state + 1, NOT_ASKED);
    const known = memo.costs[state]!;
    if (known !== NOT_ASKED) return known;
    const aisle = done + 1;
    const kind = aisleKind(aisle, floor.depotAisle, this.lastRequired);
    const lastAisle = aisle === floor.aisles;
    let least = Infinity;
    for (const option of this.optionsOf(aisle)) {
      const { next, width } = space.movesFrom(state, option.shapes, option.key, kind);
      for (let t = 0; t < next.length; t++) {
        if (lastAisle && width[t]! > 0) continue;
        least = Math.min(least, option.cost + width[t]! * floor.spacing + this.finishing(aisle, next[t]!));
      }
    }
    memo.costs[state] = least;
    return least;
  }

  private optionsOf(aisle: number): Option[] {
    const { floor } = this;
    if (floor.spots[aisle - 1]!.length === 0) return this.emptyOptions;
    return (this.options[aisle - 1] ??= combinations(patternsByBlock(floor, spotsByBlock(floor, aisle))));
  }
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
 * `optimalDistance` resumed from `previous` (a trail of a floor whose spots are the same in every
 * aisle before `firstChanged` and after `lastChanged`) where it can; the run's own trail is
 * returned for the next (none where the dynamic program does not settle the floor, or no place is
 * to be visited).
 */
export function resumedDistance(floor: Floor, previous: Trail | undefined, firstChanged: number, lastChanged: number): { distance: number; trail: Trail | undefined } {
  if (floor.pickAisles.length === 0 || floor.crossYs.length > 3) return { distance: optimalDistance(floor), trail: undefined };
  // The aisles before the last required one are of another kind where it moved.
  const lastRequired = lastRequiredAisle(floor);
  const from = !previous ? 1 : previous.lastRequired === lastRequired ? firstChanged : Math.min(firstChanged, lastRequired, previous.lastRequired);
  const to = previous ? Math.max(lastChanged, from - 1) : floor.aisles;
  const trail = new Trail(floor, previous && { trail: previous, from, to });
  return { distance: trail.distance(to), trail };
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
