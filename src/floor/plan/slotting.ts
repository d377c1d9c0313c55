import { aisleX, positionY, type Layout, type Place } from './layout';
import { shortestRouteLength } from './walks';

/*
 * Slotting: which products to move where so that the waves of a period, replayed with the same
 * orders on the same carts, walk least. Each movable product stands at one place and the moves
 * only exchange products between the places they hold today, so no place ends up holding more
 * products than it does now.
 *
 * The products are ranked by how many of the period's waves pick them, and given the places in
 * the order of a layout of zones: nearest the depot first, with the aisle weighing more or less
 * against the depth (one weight fills the nearest places by walking distance, like class-based
 * storage with a class per product; a large one fills whole aisles nearest the depot first,
 * within-aisle storage). Each zoning is scored by replaying every wave over it with exact
 * routes, and the best is proposed, unless it does not shorten the walk: then nothing is.
 */

/** A product that may move: where it stands now, and whether the history's waves pick it. */
export interface MovableProduct {
  id: string;
  /** Index into `places`. */
  at: number;
}

export interface SlottingProblem {
  layout: Layout;
  /** Distinct places products stand at (several products may share one). */
  places: readonly Place[];
  products: readonly MovableProduct[];
  /**
   * The waves of the period: for each, the places of what it picked from products that cannot
   * move (fixed), and the movable products it picked (by index into `products`).
   */
  waves: readonly { fixed: readonly Place[]; products: readonly number[] }[];
  /** The most products that may move; the busiest first when there are more. */
  maxMoves: number;
}

export interface SlottingMove {
  /** Index into `products`. */
  product: number;
  from: number;
  to: number;
  /** Waves of the period that picked the product. */
  picks: number;
}

export interface SlottingProposal {
  /** By how much the product nears the depot times its picks, most first. */
  moves: SlottingMove[];
  /** The period's waves walked with exact routes over today's places and over the proposal's. */
  walkingBefore: number;
  walkingAfter: number;
}

/**
 * Weights of the aisle's distance against the depth of a place, tried in turn: 1 ranks by walking
 * distance from the depot; the large ones fill aisle after aisle.
 */
const AISLE_WEIGHTS = [0.5, 1, 2, 4, 16, 1_000];

/** Waves replayed between two pauses of a proposal worked out in steps. */
const WAVES_PER_STEP = 50;

/** A pause of a proposal worked out in steps: after each zoning replayed, its walk. */
export interface SlottingStep {
  zoningsReplayed: number;
  zonings: number;
  /** The walk of the zoning just replayed; undefined at a pause within a replay. */
  walking?: number;
}

/** The proposal, worked out at once; `progress` hears of each zoning replayed. */
export function proposeSlotting(problem: SlottingProblem, progress?: (step: Required<SlottingStep>) => void): SlottingProposal {
  const steps = slottingSteps(problem);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (next.value.walking !== undefined) progress?.(next.value as Required<SlottingStep>);
  }
}

/**
 * The proposal, worked out in steps of a few waves replayed each: a service runs one step at a
 * time and lets other work run in between, so that a month of waves does not hold it up.
 */
export function* slottingSteps(problem: SlottingProblem): Generator<SlottingStep, SlottingProposal> {
  const { layout, places, products, waves } = problem;
  const picks = new Array<number>(products.length).fill(0);
  for (const wave of waves) for (const product of new Set(wave.products)) picks[product]! += 1;
  const current = products.map((product) => product.at);
  const zonings = AISLE_WEIGHTS.length;
  const walkingBefore = yield* replaySteps(problem, current, { zoningsReplayed: 0, zonings });
  // The busiest products first; a product no wave picked keeps its place unless one must be freed.
  const busiest = products.map((_, index) => index).sort((a, b) => picks[b]! - picks[a]! || a - b);
  const depotX = aisleX(layout, layout.depotAisle);
  let best: { at: number[]; walking: number } = { at: current, walking: walkingBefore };
  for (const [tried, weight] of AISLE_WEIGHTS.entries()) {
    const rank = (place: number) => weight * Math.abs(aisleX(layout, places[place]!.aisle) - depotX) + positionY(layout, places[place]!.position);
    const at = towards(current, busiest, picks, rank, problem.maxMoves);
    const walking = yield* replaySteps(problem, at, { zoningsReplayed: tried, zonings });
    if (walking < best.walking - 1e-9) best = { at, walking };
    yield { zoningsReplayed: tried + 1, zonings, walking };
  }
  const nearness = (place: number) => Math.abs(aisleX(layout, places[place]!.aisle) - depotX) + positionY(layout, places[place]!.position);
  const nearer = (move: SlottingMove) => move.picks * (nearness(move.from) - nearness(move.to));
  const moves = products
    .map((product, index) => ({ product: index, from: product.at, to: best.at[index]!, picks: picks[index]! }))
    .filter((move) => move.from !== move.to)
    .sort((a, b) => nearer(b) - nearer(a) || b.picks - a.picks || a.product - b.product);
  return { moves, walkingBefore, walkingAfter: best.walking };
}

/**
 * The products' places after moving the busiest towards the places `rank` puts first: each
 * product, busiest first, takes the best place still free of the places the movable products
 * hold, by exchanging places with the product there, while at most `maxMoves` products stand
 * elsewhere than they do now.
 */
function towards(current: readonly number[], busiest: readonly number[], picks: readonly number[], rank: (place: number) => number, maxMoves: number): number[] {
  // One unit per product standing at a place: the units, best first.
  const units = current.map((place, product) => ({ place, product })).sort((a, b) => rank(a.place) - rank(b.place) || a.place - b.place || a.product - b.product);
  const at = [...current];
  /** Who stands at each unit now, and at which unit each product stands. */
  const holder = units.map((unit) => unit.product);
  const unitOf = new Array<number>(current.length);
  holder.forEach((product, unit) => (unitOf[product] = unit));
  let moved = 0;
  const movedNow = (product: number, place: number) => (place !== current[product] ? 1 : 0);
  for (let next = 0; next < busiest.length; next++) {
    const product = busiest[next]!;
    if (picks[product] === 0) break;
    const target = next;
    const other = holder[target]!;
    if (other === product) continue;
    const from = unitOf[product]!;
    const change = movedNow(product, units[target]!.place) + movedNow(other, units[from]!.place) - movedNow(product, at[product]!) - movedNow(other, at[other]!);
    if (moved + change > maxMoves) break;
    moved += change;
    [holder[target], holder[from]] = [product, other];
    [unitOf[product], unitOf[other]] = [target, from];
    at[product] = units[target]!.place;
    at[other] = units[from]!.place;
  }
  return at;
}

/** The walk of every wave, exact, with the movable products at `at`. */
export function replay(problem: SlottingProblem, at: readonly number[]): number {
  const steps = replaySteps(problem, at, { zoningsReplayed: 0, zonings: 0 });
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** `replay`, pausing every few waves with `pause`. */
function* replaySteps(problem: SlottingProblem, at: readonly number[], pause: SlottingStep): Generator<SlottingStep, number> {
  let walking = 0;
  for (const [index, wave] of problem.waves.entries()) {
    const stops = [...wave.fixed, ...wave.products.map((product) => problem.places[at[product]!]!)];
    if (stops.length > 0) walking += shortestRouteLength(problem.layout, stops);
    if ((index + 1) % WAVES_PER_STEP === 0) yield pause;
  }
  return walking;
}
