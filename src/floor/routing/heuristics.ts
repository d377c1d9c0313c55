import { WalkBuilder, type Floor, type Walk } from './walk';

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

/** Into the aisle from the front, up to its farthest pick and back to the front. */
function returnThrough(builder: WalkBuilder, floor: Floor, aisle: number): void {
  builder.goTo(aisle, 0);
  for (const spot of floor.spots[aisle - 1]!) builder.visit(aisle, spot);
  builder.goTo(aisle, 0);
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
    if (last && order.length % 2 === 1) returnThrough(builder, floor, aisle);
    else traverse(builder, floor, aisle);
  });
  return builder.finish();
}
