import { WalkBuilder, type Floor, type Spot, type Walk } from './walk';

/*
 * The classic routing heuristics (definitions as collected by De Koster, Le-Duc & Roodbergen,
 * "Design and control of warehouse order picking: a literature review", EJOR 182, 2007). They were
 * defined with the depot at the left end of the front cross aisle; here the depot may stand at any
 * aisle, and the picker first walks along the front cross aisle to whichever end aisle with picks
 * (leftmost or rightmost) is nearer to the depot, the leftmost on a tie, and sweeps to the other.
 */

/** Aisles with picks in sweeping order, starting at the end nearer to the depot. */
function sweep(floor: Floor): number[] {
  const aisles = floor.pickAisles;
  const depot = floor.x(floor.depotAisle);
  const toLeft = Math.abs(depot - floor.x(aisles[0]!));
  const toRight = Math.abs(floor.x(aisles[aisles.length - 1]!) - depot);
  return toRight < toLeft ? [...aisles].reverse() : aisles;
}

/** Into the aisle from the cross aisle the picker stands on, to the farthest of `spots` and back out. */
function returnThrough(builder: WalkBuilder, aisle: number, spots: readonly Spot[]): void {
  const side = builder.here.y;
  builder.goTo(aisle, side);
  for (const spot of side === 0 ? spots : [...spots].reverse()) builder.visit(aisle, spot);
  builder.goTo(aisle, side);
}

/** Through the whole aisle from the cross aisle the picker stands on to the other one. */
function traverse(builder: WalkBuilder, floor: Floor, aisle: number): void {
  const fromFront = builder.here.y === 0;
  builder.goTo(aisle, builder.here.y);
  const spots = floor.spots[aisle - 1]!;
  for (const spot of fromFront ? spots : [...spots].reverse()) builder.visit(aisle, spot);
  builder.goTo(aisle, fromFront ? floor.back : 0);
}

/**
 * S-shape (traversal): every aisle with picks is walked through entirely, aisles without picks
 * are skipped; when the number of aisles with picks is odd, the picker enters the last one from
 * the front, goes to its farthest pick and returns.
 */
export function sShapeWalk(floor: Floor): Walk {
  const builder = new WalkBuilder(floor);
  if (floor.pickAisles.length === 0) return builder.finish();
  const order = sweep(floor);
  order.forEach((aisle, index) => {
    const last = index === order.length - 1;
    if (last && order.length % 2 === 1) returnThrough(builder, aisle, floor.spots[aisle - 1]!);
    else traverse(builder, floor, aisle);
  });
  return builder.finish();
}

/** Return: every aisle with picks is entered and left from the front cross aisle, up to its farthest pick and back. */
export function returnWalk(floor: Floor): Walk {
  const builder = new WalkBuilder(floor);
  for (const aisle of floor.pickAisles.length > 0 ? sweep(floor) : []) returnThrough(builder, aisle, floor.spots[aisle - 1]!);
  return builder.finish();
}

/**
 * The loop shared by midpoint and largest gap: the first and last aisles with picks are walked
 * through entirely; every aisle between is entered from the back cross aisle for the spots
 * `fromBack` gives it (walking along the back from the first aisle to the last) and from the
 * front for the rest (passed on the front cross aisle between the depot and either end). With one
 * aisle with picks, it is entered from the front up to its farthest pick.
 */
function loopWalk(floor: Floor, split: (spots: readonly Spot[]) => { front: Spot[]; back: Spot[] }): Walk {
  const builder = new WalkBuilder(floor);
  if (floor.pickAisles.length === 0) return builder.finish();
  const order = sweep(floor);
  const first = order[0]!;
  const last = order[order.length - 1]!;
  if (order.length === 1) {
    returnThrough(builder, first, floor.spots[first - 1]!);
    return builder.finish();
  }
  const inner = order.slice(1, -1).map((aisle) => ({ aisle, ...split(floor.spots[aisle - 1]!) }));
  const depot = floor.depotAisle;
  const onTheWayOut = (aisle: number) => (aisle - depot) * (aisle - first) <= 0;
  const frontVisits = (aisles: typeof inner) => aisles.forEach(({ aisle, front }) => front.length > 0 && returnThrough(builder, aisle, front));
  // Out from the depot to the first aisle, nearest the depot first.
  frontVisits(inner.filter(({ aisle }) => onTheWayOut(aisle)).sort((a, b) => Math.abs(a.aisle - depot) - Math.abs(b.aisle - depot)));
  traverse(builder, floor, first);
  for (const { aisle, back } of inner) if (back.length > 0) returnThrough(builder, aisle, back);
  traverse(builder, floor, last);
  // Back from the last aisle towards the depot.
  frontVisits(inner.filter(({ aisle }) => !onTheWayOut(aisle)).reverse());
  return builder.finish();
}

/**
 * Midpoint (Hall 1993): the spots in the front half of an aisle (at most half way to the back
 * cross aisle) are picked from the front, the others from the back.
 */
export function midpointWalk(floor: Floor): Walk {
  return loopWalk(floor, (spots) => ({
    front: spots.filter((spot) => spot.y <= floor.back / 2),
    back: spots.filter((spot) => spot.y > floor.back / 2),
  }));
}

/**
 * Largest gap (Hall 1993): in each aisle the picker leaves out the largest gap between
 * neighbouring stops, or between a cross aisle and the stop nearest it, picking what lies in
 * front of it from the front and the rest from the back. Of equal gaps the one nearest the front is
 * left out.
 */
export function largestGapWalk(floor: Floor): Walk {
  return loopWalk(floor, (spots) => {
    const ys = [0, ...spots.map((spot) => spot.y), floor.back];
    let gap = 0;
    for (let i = 1; i < ys.length - 1; i++) if (ys[i + 1]! - ys[i]! > ys[gap + 1]! - ys[gap]!) gap = i;
    return { front: spots.slice(0, gap), back: spots.slice(gap) };
  });
}

/**
 * Combined (Roodbergen & de Koster 2001): every aisle with picks is visited exactly once, in
 * sweeping order; each one is either walked through or entered and left from the same cross
 * aisle, whichever a dynamic program over the aisles finds shorter for the whole walk. The last
 * one is left at the front.
 */
export function combinedWalk(floor: Floor): Walk {
  const builder = new WalkBuilder(floor);
  if (floor.pickAisles.length === 0) return builder.finish();
  const order = sweep(floor);
  // best[i][side]: shortest walking inside aisles 0..i of `order` ending at that side (0 front, 1 back), with the choice made.
  const best: { cost: number; through: boolean }[][] = [];
  order.forEach((aisle, i) => {
    const spots = floor.spots[aisle - 1]!;
    const reachFront = 2 * spots[spots.length - 1]!.y;
    const reachBack = 2 * (floor.back - spots[0]!.y);
    const before = i === 0 ? [0, Infinity] : best[i - 1]!.map((choice) => choice.cost);
    const option = (stay: number, cross: number) => (stay <= cross ? { cost: stay, through: false } : { cost: cross, through: true });
    best.push([option(before[0]! + reachFront, before[1]! + floor.back), option(before[1]! + reachBack, before[0]! + floor.back)]);
  });
  const choices: boolean[] = [];
  for (let i = order.length - 1, side = 0; i >= 0; i--) {
    const { through } = best[i]![side]!;
    choices.unshift(through);
    if (through) side = 1 - side;
  }
  order.forEach((aisle, i) => {
    if (choices[i]) traverse(builder, floor, aisle);
    else returnThrough(builder, aisle, floor.spots[aisle - 1]!);
  });
  return builder.finish();
}
