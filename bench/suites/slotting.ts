import { availableParallelism } from 'node:os';
import { planCarts, type PoolOrder } from '../../src/floor/plan/cart-plan';
import type { Layout, Place } from '../../src/floor/plan/layout';
import { mulberry32 } from '../../src/floor/plan/random';
import { replay, slottingSteps, walkPlannedCarts, type SlottingOrder, type SlottingProblem } from '../../src/floor/plan/slotting';
import type { Measurement } from '../harness';

/*
 * Slotting advice on a generated history: 5,000 products stored at random on a two-block floor
 * (25 aisles of 100 positions, a middle cross aisle, two locations per position: one each side),
 * 20,000 orders of 1 to 8 lines where a fifth of the products draw four fifths of the lines, in
 * carts of 8 orders. Every placement is judged as the proposal judges it: the orders planned into
 * carts again for it, each cart walked by its exact route. The proposal is compared with random
 * storage (where it starts) and with class-based storage computed here: three classes by picks
 * (the busiest products drawing 80% of the lines, the next 15%, the rest), class A in the places
 * nearest the depot by walking distance, then B, then C, random within a class (the classic ABC
 * rule). Then the check of the figure: 2,000 new orders of the same demand, planned by the plan of
 * carts itself (`planCarts`, pools of 500 as POST /waves plans them), walked over today's placement
 * and the proposal's: the saving they show against the saving the proposal reported.
 */
const PRODUCTS = 5_000;
const ORDERS = 20_000;
const NEW_ORDERS = 2_000;
const CART = { maxOrders: 8, maxItems: 64 };
/** Orders `planCarts` plans at a time for the check: the pool POST /waves plans. */
const PLANNED_POOL = 500;
const LAYOUT: Layout = { aisles: 25, positionsPerAisle: 100, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 13, crossAisles: [{ afterPosition: 50, width: 2 }] };

interface History {
  problem: SlottingProblem;
  /** Lines of each product over the history. */
  lines: number[];
  /** More orders of the same demand, for the check. */
  next: SlottingOrder[];
}

function history(): History {
  const random = mulberry32(20_261_124);
  const places: Place[] = [];
  for (let aisle = 1; aisle <= LAYOUT.aisles; aisle++) for (let position = 1; position <= LAYOUT.positionsPerAisle; position++) places.push({ aisle, position });
  // Two locations at each place, products shuffled over them.
  const units = places.flatMap((_, place) => [place, place]);
  for (let i = units.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [units[i], units[j]] = [units[j]!, units[i]!];
  }
  const products = Array.from({ length: PRODUCTS }, (_, index) => ({ id: `P${index}`, at: units[index]! }));
  // 20% of products (the first fifth of a shuffled order) draw 80% of the lines.
  const order = products.map((_, index) => index);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const fast = order.slice(0, PRODUCTS / 5);
  const slow = order.slice(PRODUCTS / 5);
  const lines = new Array<number>(PRODUCTS).fill(0);
  const draw = (count: number) => {
    const drawn: SlottingOrder[] = [];
    for (let o = 0; o < count; o++) {
      const size = 1 + Math.floor(random() * 8);
      const chosen = new Set<number>();
      while (chosen.size < size) {
        const pool = random() < 0.8 ? fast : slow;
        chosen.add(pool[Math.floor(random() * pool.length)]!);
      }
      drawn.push({ units: chosen.size, fixed: [], products: [...chosen] });
    }
    return drawn;
  };
  const orders = draw(ORDERS);
  for (const drawn of orders) for (const product of drawn.products) lines[product]! += 1;
  return { problem: { layout: LAYOUT, places, products, orders, cart: CART, maxMoves: PRODUCTS }, lines, next: draw(NEW_ORDERS) };
}

/** Class-based storage: A (80% of the lines), B (the next 15%), C (the rest), each in the nearest places left, random within. */
function abcStorage({ problem, lines }: History): number[] {
  const random = mulberry32(7);
  const depotX = (LAYOUT.depotAisle - 1) * LAYOUT.aisleSpacing;
  const distance = (place: number) => Math.abs((problem.places[place]!.aisle - 1) * LAYOUT.aisleSpacing - depotX) + problem.places[place]!.position;
  const units = problem.products.map((product) => product.at).sort((a, b) => distance(a) - distance(b));
  const byLines = problem.products.map((_, index) => index).sort((a, b) => lines[b]! - lines[a]!);
  const total = lines.reduce((sum, n) => sum + n, 0);
  const at = new Array<number>(problem.products.length);
  let start = 0;
  let cumulative = 0;
  for (const share of [0.8, 0.95, 1.01]) {
    let end = start;
    while (end < byLines.length && (cumulative + lines[byLines[end]!]! <= share * total || end === start)) cumulative += lines[byLines[end++]!]!;
    if (share > 1) end = byLines.length;
    const members = byLines.slice(start, end);
    const classUnits = units.slice(start, end);
    for (let i = classUnits.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [classUnits[i], classUnits[j]] = [classUnits[j]!, classUnits[i]!];
    }
    members.forEach((product, i) => (at[product] = classUnits[i]!));
    start = end;
  }
  return at;
}

/** The new orders over a placement, planned by `planCarts` in pools of PLANNED_POOL: their carts' walks added up. */
function plannedWalk(problem: SlottingProblem, orders: readonly SlottingOrder[], at: readonly number[]): number {
  let walking = 0;
  for (let first = 0; first < orders.length; first += PLANNED_POOL) {
    const pool: PoolOrder[] = orders.slice(first, first + PLANNED_POOL).map((order, index) => ({
      id: `N${first + index}`,
      units: order.units,
      urgency: 0,
      places: order.products.map((product) => problem.places[at[product]!]!),
    }));
    walking += planCarts(problem.layout, pool, problem.cart).distance;
  }
  return walking;
}

export default async function slotting(): Promise<Measurement[]> {
  const built = history();
  const { problem } = built;
  const today = problem.products.map((product) => product.at);
  const replayStarted = performance.now();
  const walkingRandom = replay(problem, today);
  const replaySeconds = (performance.now() - replayStarted) / 1000;
  const abc = abcStorage(built);
  const walkingAbc = replay(problem, abc);
  // The proposal as the service works it out: step by step, each step timed (what a route queued behind it waits at most).
  const started = performance.now();
  const steps = slottingSteps(problem);
  let longestStep = 0;
  let next = steps.next();
  while (!next.done) {
    const stepStarted = performance.now();
    const walk = walkPlannedCarts(next.value.layout, next.value.orders, next.value.limits);
    longestStep = Math.max(longestStep, performance.now() - stepStarted);
    next = steps.next(walk);
  }
  const proposal = next.value;
  const seconds = (performance.now() - started) / 1000;
  const savingPercent = (100 * (proposal.walkingBefore - proposal.walkingAfter)) / proposal.walkingBefore;
  console.log(`  ${problem.orders.length} orders in carts of ${CART.maxOrders}; random storage ${walkingRandom.toFixed(0)}, ABC ${walkingAbc.toFixed(0)}, proposal ${proposal.walkingAfter.toFixed(0)} (${proposal.moves.length} moves, saving ${savingPercent.toFixed(1)}%), ${seconds.toFixed(1)} s on ${availableParallelism()} cores, longest step ${longestStep.toFixed(0)} ms`);
  for (const { weight, walking } of proposal.zonings) console.log(`  zoning weight ${weight}: ${walking.toFixed(0)} (${(walking / walkingRandom).toFixed(3)} of random, ${(walking / walkingAbc).toFixed(3)} of ABC)`);
  for (const point of proposal.savingByMoves) console.log(`  ${point.moves} moves: ${point.walking.toFixed(0)} (saving ${((100 * (proposal.walkingBefore - point.walking)) / proposal.walkingBefore).toFixed(1)}%)`);
  // The check: new orders, planned by the plan of carts for each placement.
  const after = [...today];
  for (const move of proposal.moves) after[move.product] = move.to;
  const checkStarted = performance.now();
  const [newToday, newAfter, newAbc] = [today, after, abc].map((at) => plannedWalk(problem, built.next, at)) as [number, number, number];
  console.log(`  ${NEW_ORDERS} new orders planned by planCarts: today ${newToday.toFixed(0)}, proposal ${newAfter.toFixed(0)} (${(newAfter / newToday).toFixed(3)}), ABC ${newAbc.toFixed(0)} (proposal ${(newAfter / newAbc).toFixed(3)} of it); ${((performance.now() - checkStarted) / 1000).toFixed(1)} s`);
  return [
    { name: 'walking of the history after the proposal (baseline: random storage)', unit: 'length', service: proposal.walkingAfter, baseline: walkingRandom, higherIsBetter: false, target: 'at most 0.75× baseline' },
    { name: 'walking of the history after the proposal (baseline: 3-class ABC storage)', unit: 'length', service: proposal.walkingAfter, baseline: walkingAbc, higherIsBetter: false, target: 'at most 0.95× baseline' },
    { name: 'new orders planned by planCarts, walk after the proposal (baseline: today)', unit: 'length', service: newAfter, baseline: newToday, higherIsBetter: false },
    { name: "new orders' walk after the proposal as a share of today's (baseline: the share the proposal reported)", unit: 'ratio', service: newAfter / newToday, baseline: proposal.walkingAfter / proposal.walkingBefore, higherIsBetter: false, target: 'within 0.03 of baseline' },
    { name: 'time to propose for the history (baseline: one replay of it)', unit: 's', service: seconds, baseline: replaySeconds, higherIsBetter: false, target: 'under 60 s' },
    { name: 'longest step of the proposal on a planner thread (baseline: the planner deadline, 2 s)', unit: 'ms', service: longestStep, baseline: 2_000, higherIsBetter: false, target: 'under 200 ms' },
  ];
}
