import { CartBound, type AislePlaces, type WaveLimits } from './batching';
import { aisleX, positionY, type Layout, type Place } from './layout';
import { shortestRouteLength } from './walks';

/*
 * Slotting: which products to move where so that the orders of a period, planned into carts again
 * for the placement they are walked over, walk least. Each movable product stands at one place
 * and the moves only exchange products between the places they hold today, so no place ends up
 * holding more products than it does now.
 *
 * The products are ranked by how many of the period's orders pick them, and given the places in
 * the order of a layout of zones: nearest the depot first, with the aisle weighing more or less
 * against the depth (one weight fills the nearest places by walking distance, like class-based
 * storage with a class per product; a large one fills whole aisles nearest the depot first,
 * within-aisle storage). Each zoning is scored by a replay: the period's orders, in the order they
 * were picked, cut into pools and planned into carts for that zoning's places, each cart walked
 * by its exact route. The best is proposed, unless it does not shorten the walk: then nothing is.
 *
 * Replaying the waves as they were made (the same orders on the same carts) favours today's
 * placement: the carts were chosen because their orders stood near each other today. Planning the
 * carts again for each placement judges every placement as the floor would work it.
 */

/** A product that may move: where it stands now. */
export interface MovableProduct {
  id: string;
  /** Index into `places`. */
  at: number;
}

/** An order of the period: its units, the places of its lines of products that cannot move, and the movable products it picked. */
export interface SlottingOrder {
  units: number;
  fixed: readonly Place[];
  /** By index into `products`. */
  products: readonly number[];
}

export interface SlottingProblem {
  layout: Layout;
  /** Distinct places products stand at (several products may share one). */
  places: readonly Place[];
  products: readonly MovableProduct[];
  /** The period's orders, in the order they were picked. */
  orders: readonly SlottingOrder[];
  /** The carts the orders are planned into for each placement. */
  cart: WaveLimits;
  /** The most products that may move; the busiest first when there are more. */
  maxMoves: number;
}

export interface SlottingMove {
  /** Index into `products`. */
  product: number;
  from: number;
  to: number;
  /** Orders of the period that picked the product. */
  picks: number;
}

/** A point of the saving by moves: the walk with at most `moves` products moved, the busiest first. */
export interface SavingPoint {
  moves: number;
  walking: number;
}

export interface SlottingProposal {
  /** By how much the product nears the depot times its picks, most first. */
  moves: SlottingMove[];
  /** The period's orders replayed (carts planned for the placement, exact routes) over today's places and over the proposal's. */
  walkingBefore: number;
  walkingAfter: number;
  /**
   * The zoning proposed limited to fewer moves, fewest first; the last point is the proposal
   * itself (`walkingAfter`). Empty when nothing moves.
   */
  savingByMoves: SavingPoint[];
  /** The walk of every zoning tried, by its aisle weight. */
  zonings: { weight: number; walking: number }[];
}

/**
 * Weights of the aisle's distance against the depth of a place, tried in turn: 1 ranks by walking
 * distance from the depot; the large ones fill aisle after aisle.
 */
const AISLE_WEIGHTS = [0.5, 1, 2, 4, 16, 1_000];

/** Shares of the proposal's moves at which the saving by moves is replayed (and at all of them). */
const CURVE_SHARES = [0.1, 0.25, 0.5, 0.75];

/**
 * Orders planned into carts together, in the order they were picked: what the plan of carts covers
 * at a time (at most 500 orders waiting), kept smaller so that one step of a replay takes tens of
 * milliseconds.
 */
export const POOL_ORDERS = 200;

/** An order as a cart plan sees it: its units and the places of its lines. */
export interface CartOrder {
  units: number;
  places: Place[];
}

/** One step of a proposal: a pool of orders to plan into carts and walk. Its answer is `walkPlannedCarts`. */
export interface CartJob {
  layout: Layout;
  orders: CartOrder[];
  limits: WaveLimits;
}

/**
 * The carts of a pool, by seed batching as the plan of carts starts (`chooseWave`): the first
 * order left seeds a cart, and while the cart has room the order that grows the cart's lower
 * bound of walking least (`CartBound`, the rank `chooseWave` and the cart search use) joins it,
 * the earlier of equal ones. The plan confirms its best few candidates by exact routes and then
 * searches further; a replay judges placements against each other, and the bound alone makes the
 * carts of thousands of orders, for every placement, in a second or two. Order indices by cart.
 */
export function cartsByBound(layout: Layout, orders: readonly CartOrder[], limits: WaveLimits): number[][] {
  const probe = new CartBound(layout);
  const aisles: AislePlaces[][] = orders.map((order) => probe.byAisle(order.places));
  const carts: number[][] = [];
  let left = orders.map((_, index) => index);
  while (left.length > 0) {
    const seed = left[0]!;
    const cart = new CartBound(layout);
    cart.add(aisles[seed]!);
    const members = [seed];
    let units = orders[seed]!.units;
    const waiting = left.slice(1);
    while (members.length < limits.maxOrders) {
      let best = -1;
      let least = Infinity;
      for (const [at, order] of waiting.entries()) {
        if (units + orders[order]!.units > limits.maxItems) continue;
        const added = cart.addedBy(aisles[order]!);
        if (added < least - 1e-9) [best, least] = [at, added];
      }
      if (best === -1) break;
      const [order] = waiting.splice(best, 1) as [number];
      members.push(order);
      units += orders[order]!.units;
      cart.add(aisles[order]!);
    }
    carts.push(members);
    left = waiting;
  }
  return carts;
}

/** A pool's carts (`cartsByBound`), each walked by its exact route: their walks added up. A planner task. */
export function walkPlannedCarts(layout: Layout, orders: readonly CartOrder[], limits: WaveLimits): number {
  let walking = 0;
  for (const cart of cartsByBound(layout, orders, limits)) {
    const places = cart.flatMap((order) => orders[order]!.places);
    if (places.length > 0) walking += shortestRouteLength(layout, places);
  }
  return walking;
}

/** The proposal, worked out at once on this thread. */
export function proposeSlotting(problem: SlottingProblem): SlottingProposal {
  const steps = slottingSteps(problem);
  let next = steps.next();
  while (!next.done) next = steps.next(walkPlannedCarts(next.value.layout, next.value.orders, next.value.limits));
  return next.value;
}

/**
 * The proposal, worked out in steps: each step a pool of orders to plan into carts over one
 * placement and walk (`CartJob`), to be answered with `walkPlannedCarts` of it. A service sends
 * each step to a planner thread and waits for it before the next, so that a proposal holds one
 * thread for one pool at a time and work queued meanwhile runs in between.
 */
export function* slottingSteps(problem: SlottingProblem): Generator<CartJob, SlottingProposal, number> {
  const { layout, places, products, orders } = problem;
  const picks = new Array<number>(products.length).fill(0);
  for (const order of orders) for (const product of new Set(order.products)) picks[product]! += 1;
  const current = products.map((product) => product.at);
  const walkingBefore = yield* replaySteps(problem, current);
  // The busiest products first; a product no order picked keeps its place unless one must be freed.
  const busiest = products.map((_, index) => index).sort((a, b) => picks[b]! - picks[a]! || a - b);
  const depotX = aisleX(layout, layout.depotAisle);
  const rankBy = (weight: number) => (place: number) => weight * Math.abs(aisleX(layout, places[place]!.aisle) - depotX) + positionY(layout, places[place]!.position);
  let best: { at: number[]; walking: number; weight: number | undefined } = { at: current, walking: walkingBefore, weight: undefined };
  const zonings: SlottingProposal['zonings'] = [];
  for (const weight of AISLE_WEIGHTS) {
    const at = towards(current, busiest, picks, rankBy(weight), problem.maxMoves);
    const walking = yield* replaySteps(problem, at);
    zonings.push({ weight, walking });
    if (walking < best.walking - 1e-9) best = { at, walking, weight };
  }
  const nearness = rankBy(1);
  const nearer = (move: SlottingMove) => move.picks * (nearness(move.from) - nearness(move.to));
  const moves = products
    .map((product, index) => ({ product: index, from: product.at, to: best.at[index]!, picks: picks[index]! }))
    .filter((move) => move.from !== move.to)
    .sort((a, b) => nearer(b) - nearer(a) || b.picks - a.picks || a.product - b.product);
  // The same zoning with fewer moves: the busiest products only, each point a placement of its own.
  const savingByMoves: SavingPoint[] = [];
  if (best.weight !== undefined) {
    const seen = new Set<number>();
    for (const share of CURVE_SHARES) {
      const at = towards(current, busiest, picks, rankBy(best.weight), Math.max(1, Math.round(share * moves.length)));
      const moved = at.filter((place, product) => place !== current[product]).length;
      if (moved === 0 || moved >= moves.length || seen.has(moved)) continue;
      seen.add(moved);
      savingByMoves.push({ moves: moved, walking: yield* replaySteps(problem, at) });
    }
    savingByMoves.push({ moves: moves.length, walking: best.walking });
  }
  return { moves, walkingBefore, walkingAfter: best.walking, savingByMoves, zonings };
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

/** The walk of the period's orders, planned into carts for the movable products at `at`, exact. */
export function replay(problem: SlottingProblem, at: readonly number[]): number {
  const steps = replaySteps(problem, at);
  let next = steps.next();
  while (!next.done) next = steps.next(walkPlannedCarts(next.value.layout, next.value.orders, next.value.limits));
  return next.value;
}

/** `replay` as steps: one pool of POOL_ORDERS orders, in the order they were picked, per step. */
function* replaySteps(problem: SlottingProblem, at: readonly number[]): Generator<CartJob, number, number> {
  const { layout, places, orders, cart } = problem;
  let walking = 0;
  for (let first = 0; first < orders.length; first += POOL_ORDERS) {
    const pool = orders.slice(first, first + POOL_ORDERS).map((order) => ({ units: order.units, places: [...order.fixed, ...order.products.map((product) => places[at[product]!]!)] }));
    walking += yield { layout, orders: pool, limits: cart };
  }
  return walking;
}
