import { availableParallelism } from 'node:os';
import type { Layout, Place } from '../../src/floor/plan/layout';
import { mulberry32 } from '../../src/floor/plan/random';
import { proposeSlotting, replay, type SlottingProblem } from '../../src/floor/plan/slotting';
import type { Measurement } from '../harness';

/*
 * Slotting advice on a generated history: 5,000 products stored at random on a two-block floor
 * (25 aisles of 100 positions, a middle cross aisle, two locations per position: one each side),
 * 20,000 orders of 1 to 8 lines where a fifth of the products draw four fifths of the lines,
 * batched as carts of 8 orders in the order they came. The proposal's walk of that history is
 * compared with random storage (where it starts) and with class-based storage computed here:
 * three classes by picks (the busiest products drawing 80% of the lines, the next 15%, the rest),
 * class A in the places nearest the depot by walking distance, then B, then C, random within a
 * class (the classic ABC rule).
 */
const PRODUCTS = 5_000;
const ORDERS = 20_000;
const CART = 8;
const LAYOUT: Layout = { aisles: 25, positionsPerAisle: 100, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 13, crossAisles: [{ afterPosition: 50, width: 2 }] };

interface History {
  problem: SlottingProblem;
  /** Lines of each product over the history. */
  lines: number[];
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
  const waves: { fixed: Place[]; products: number[] }[] = [];
  for (let first = 0; first < ORDERS; first += CART) {
    const picked: number[] = [];
    for (let o = first; o < Math.min(ORDERS, first + CART); o++) {
      const count = 1 + Math.floor(random() * 8);
      const chosen = new Set<number>();
      while (chosen.size < count) {
        const pool = random() < 0.8 ? fast : slow;
        chosen.add(pool[Math.floor(random() * pool.length)]!);
      }
      for (const product of chosen) {
        picked.push(product);
        lines[product]! += 1;
      }
    }
    waves.push({ fixed: [], products: picked });
  }
  return { problem: { layout: LAYOUT, places, products, waves, maxMoves: PRODUCTS }, lines };
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

export default async function slotting(): Promise<Measurement[]> {
  const built = history();
  const random = built.problem.products.map((product) => product.at);
  const replayStarted = performance.now();
  const walkingRandom = replay(built.problem, random);
  const replaySeconds = (performance.now() - replayStarted) / 1000;
  const walkingAbc = replay(built.problem, abcStorage(built));
  const started = performance.now();
  const proposal = proposeSlotting(built.problem, ({ zoningsReplayed, zonings, walking }) => console.log(`  slotting: zoning ${zoningsReplayed} of ${zonings} replayed, walk ${walking.toFixed(0)} (${((performance.now() - started) / 1000).toFixed(1)} s)`));
  const seconds = (performance.now() - started) / 1000;
  console.log(`  ${built.problem.waves.length} carts; random storage ${walkingRandom.toFixed(0)}, ABC ${walkingAbc.toFixed(0)}, proposal ${proposal.walkingAfter.toFixed(0)} (${proposal.moves.length} moves), ${seconds.toFixed(1)} s on ${availableParallelism()} cores`);
  return [
    { name: 'walking of the history after the proposal (baseline: random storage)', unit: 'length', service: proposal.walkingAfter, baseline: walkingRandom, higherIsBetter: false, target: 'at most 0.75× baseline' },
    { name: 'walking of the history after the proposal (baseline: 3-class ABC storage)', unit: 'length', service: proposal.walkingAfter, baseline: walkingAbc, higherIsBetter: false, target: 'at most 0.95× baseline' },
    { name: 'time to propose for the history (baseline: one replay of it)', unit: 's', service: seconds, baseline: replaySeconds, higherIsBetter: false, target: 'under 60 s' },
  ];
}
