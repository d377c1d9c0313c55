import { spotsByBlock, WalkBuilder, type Floor, type Spot, type Walk } from './walk';

/*
 * The classic routing heuristics (definitions as collected by De Koster, Le-Duc & Roodbergen,
 * "Design and control of warehouse order picking: a literature review", EJOR 182, 2007). They were
 * defined with the depot at the left end of the front cross aisle; here the depot may stand at any
 * aisle, and the picker first walks along the front cross aisle to whichever end aisle with picks
 * (leftmost or rightmost) is nearer to the depot, the leftmost on a tie, and sweeps to the other.
 *
 * On floors with middle cross aisles, s-shape, largest gap, midpoint and combined work block by
 * block (Roodbergen & de Koster, "Routing methods for warehouses with multiple cross aisles", IJPR
 * 39(9), 2001): the picker walks up that first aisle to the farthest block with picks, picking on
 * the way, does that block as on a one-block floor, then each nearer block in turn, entered from its
 * back, and leaves every block at its front. On one block this is the one-block walk itself.
 */

/** The part of the floor between two neighbouring cross aisles, with the spots still to pick there. */
interface Block {
  front: number;
  back: number;
  /** Index aisle - 1, front to back. */
  spots: Spot[][];
  /** Aisles with spots, left to right. */
  pickAisles: number[];
}

/** Aisles with picks in sweeping order, starting at the end nearer to `from`. */
function sweep(floor: Floor, pickAisles: readonly number[], from: number): number[] {
  const here = floor.x(from);
  const toLeft = Math.abs(here - floor.x(pickAisles[0]!));
  const toRight = Math.abs(floor.x(pickAisles[pickAisles.length - 1]!) - here);
  return toRight < toLeft ? [...pickAisles].reverse() : [...pickAisles];
}

/** Into the aisle from the cross aisle the picker stands on, to the farthest of `spots` and back out. */
function returnThrough(builder: WalkBuilder, aisle: number, spots: readonly Spot[]): void {
  const side = builder.here.y;
  builder.goTo(aisle, side);
  const fromFront = spots.length === 0 || side <= spots[0]!.y;
  for (const spot of fromFront ? spots : [...spots].reverse()) builder.visit(aisle, spot);
  builder.goTo(aisle, side);
}

/** Through the block's part of the aisle from the cross aisle the picker stands on to the other one. */
function traverse(builder: WalkBuilder, block: Block, aisle: number): void {
  const fromFront = builder.here.y === block.front;
  builder.goTo(aisle, builder.here.y);
  const spots = block.spots[aisle - 1]!;
  for (const spot of fromFront ? spots : [...spots].reverse()) builder.visit(aisle, spot);
  builder.goTo(aisle, fromFront ? block.back : block.front);
}

/** A one-block policy: picks a block from the cross aisle the picker stands on (its front or back), ending at its front. */
type BlockWalk = (builder: WalkBuilder, floor: Floor, block: Block) => void;

/**
 * The walk block by block. Up the first aisle (the end aisle with picks nearer to the depot) to
 * the front of the farthest block with picks, picking that aisle's spots in the nearer blocks on
 * the way (on one block the picker stays at the depot); then `walkBlock` on each block with picks from the farthest to the front one. A block
 * without picks below the farthest is crossed down the aisle the picker stands in.
 */
function blockByBlock(floor: Floor, walkBlock: BlockWalk): Walk {
  const builder = new WalkBuilder(floor);
  if (floor.pickAisles.length === 0) return builder.finish();
  const bySpot = Array.from({ length: floor.aisles }, (_, i) => spotsByBlock(floor, i + 1));
  const blocks: Block[] = floor.crossYs.slice(1).map((back, b) => {
    const spots = bySpot.map((aisleBlocks) => aisleBlocks[b]!);
    return { front: floor.crossYs[b]!, back, spots, pickAisles: [] };
  });
  const farthest = blocks.findLastIndex((block) => block.spots.some((spots) => spots.length > 0));
  if (farthest > 0) {
    const first = sweep(floor, floor.pickAisles, floor.depotAisle)[0]!;
    builder.goTo(first, 0);
    for (const block of blocks.slice(0, farthest)) {
      for (const spot of block.spots[first - 1]!) builder.visit(first, spot);
      block.spots[first - 1] = [];
    }
    builder.goTo(first, blocks[farthest]!.front);
  }
  for (const block of blocks.slice(0, farthest + 1).reverse()) {
    block.pickAisles = block.spots.flatMap((spots, i) => (spots.length > 0 ? [i + 1] : []));
    if (block.pickAisles.length > 0) walkBlock(builder, floor, block);
    else builder.goTo(builder.here.aisle, block.front);
  }
  return builder.finish();
}

/**
 * S-shape (traversal): every aisle with picks is walked through, aisles without picks are
 * skipped; when the picker would otherwise end at the back, the last aisle is entered from the
 * front, walked to its farthest pick and left the way the picker came (on one block: when the
 * number of aisles with picks is odd).
 */
const sShapeBlock: BlockWalk = (builder, floor, block) => {
  const order = sweep(floor, block.pickAisles, builder.here.aisle);
  order.forEach((aisle, index) => {
    const last = index === order.length - 1;
    if (last && builder.here.y === block.front) returnThrough(builder, aisle, block.spots[aisle - 1]!);
    else traverse(builder, block, aisle);
  });
};

export function sShapeWalk(floor: Floor): Walk {
  return blockByBlock(floor, sShapeBlock);
}

/**
 * Return: every aisle with picks is entered and left from the front cross aisle, up to its
 * farthest pick and back, straight over any middle cross aisle.
 */
export function returnWalk(floor: Floor): Walk {
  const builder = new WalkBuilder(floor);
  const order = floor.pickAisles.length > 0 ? sweep(floor, floor.pickAisles, floor.depotAisle) : [];
  for (const aisle of order) returnThrough(builder, aisle, floor.spots[aisle - 1]!);
  return builder.finish();
}

type Split = (block: Block, spots: readonly Spot[]) => { front: Spot[]; back: Spot[] };

/**
 * The loop shared by midpoint and largest gap. Entered from its front, the block is a loop: the
 * first and last aisles with picks are walked through; every aisle between is entered from the
 * back cross aisle for the spots `split` puts at the back (walking along the back from the first
 * aisle to the last) and from the front for the rest (passed on the front between the picker's
 * starting aisle and either end). With one aisle with picks, it is entered from the front up to its
 * farthest pick. Entered from its back, the picker takes the back parts on the way out along the
 * back, walks through the last aisle, and takes the front parts on the way back along the front.
 */
function loopBlock(split: Split): BlockWalk {
  return (builder, floor, block) => {
    const order = sweep(floor, block.pickAisles, builder.here.aisle);
    const first = order[0]!;
    const last = order[order.length - 1]!;
    const parts = (aisles: number[]) => aisles.map((aisle) => ({ aisle, ...split(block, block.spots[aisle - 1]!) }));
    const visitAll = (visits: { aisle: number; spots: Spot[] }[]) => visits.forEach(({ aisle, spots }) => spots.length > 0 && returnThrough(builder, aisle, spots));
    if (builder.here.y !== block.front) {
      const split = parts(order.slice(0, -1));
      visitAll(split.map(({ aisle, back }) => ({ aisle, spots: back })));
      traverse(builder, block, last);
      visitAll(split.reverse().map(({ aisle, front }) => ({ aisle, spots: front })));
      return;
    }
    if (order.length === 1) {
      returnThrough(builder, first, block.spots[first - 1]!);
      return;
    }
    const inner = parts(order.slice(1, -1));
    const start = builder.here.aisle;
    const onTheWayOut = (aisle: number) => (aisle - start) * (aisle - first) <= 0;
    const byDistance = (a: { aisle: number }, b: { aisle: number }) => Math.abs(a.aisle - start) - Math.abs(b.aisle - start);
    // Out from where the picker stands to the first aisle, nearest first.
    visitAll(inner.filter(({ aisle }) => onTheWayOut(aisle)).sort(byDistance).map(({ aisle, front }) => ({ aisle, spots: front })));
    traverse(builder, block, first);
    visitAll(inner.map(({ aisle, back }) => ({ aisle, spots: back })));
    traverse(builder, block, last);
    // Back from the last aisle towards where the picker started.
    visitAll(inner.filter(({ aisle }) => !onTheWayOut(aisle)).reverse().map(({ aisle, front }) => ({ aisle, spots: front })));
  };
}

/**
 * Midpoint (Hall 1993): the spots in the front half of a block's aisle (at most half way from its
 * front cross aisle to its back one) are picked from the front, the others from the back.
 */
export function midpointWalk(floor: Floor): Walk {
  return blockByBlock(
    floor,
    loopBlock((block, spots) => ({
      front: spots.filter((spot) => spot.y - block.front <= (block.back - block.front) / 2),
      back: spots.filter((spot) => spot.y - block.front > (block.back - block.front) / 2),
    })),
  );
}

/**
 * Largest gap (Hall 1993): in each aisle of a block the picker leaves out the largest gap between
 * neighbouring stops, or between a cross aisle and the stop nearest it, picking what lies in
 * front of it from the front and the rest from the back. Of equal gaps the one nearest the front
 * is left out.
 */
export function largestGapWalk(floor: Floor): Walk {
  return blockByBlock(
    floor,
    loopBlock((block, spots) => {
      const ys = [block.front, ...spots.map((spot) => spot.y), block.back];
      let gap = 0;
      for (let i = 1; i < ys.length - 1; i++) if (ys[i + 1]! - ys[i]! > ys[gap + 1]! - ys[gap]!) gap = i;
      return { front: spots.slice(0, gap), back: spots.slice(gap) };
    }),
  );
}

/**
 * Combined (Roodbergen & de Koster 2001): in each block, every aisle with picks is visited exactly
 * once, in sweeping order; each one is either walked through or entered and left from the cross
 * aisle the picker stands on, whichever a dynamic program over the block's aisles finds shorter
 * for the block's walk, which ends at the block's front.
 */
const combinedBlock: BlockWalk = (builder, floor, block) => {
  const order = sweep(floor, block.pickAisles, builder.here.aisle);
  const length = block.back - block.front;
  // best[i][side]: shortest walking inside aisles 0..i of `order` ending at that side (0 front, 1 back), with the choice made.
  const best: { cost: number; through: boolean }[][] = [];
  const start = builder.here.y === block.front ? [0, Infinity] : [Infinity, 0];
  order.forEach((aisle, i) => {
    const spots = block.spots[aisle - 1]!;
    const reachFront = 2 * (spots[spots.length - 1]!.y - block.front);
    const reachBack = 2 * (block.back - spots[0]!.y);
    const before = i === 0 ? start : best[i - 1]!.map((choice) => choice.cost);
    const option = (stay: number, cross: number) => (stay <= cross ? { cost: stay, through: false } : { cost: cross, through: true });
    best.push([option(before[0]! + reachFront, before[1]! + length), option(before[1]! + reachBack, before[0]! + length)]);
  });
  const choices: boolean[] = [];
  for (let i = order.length - 1, side = 0; i >= 0; i--) {
    const { through } = best[i]![side]!;
    choices.unshift(through);
    if (through) side = 1 - side;
  }
  order.forEach((aisle, i) => {
    if (choices[i]) traverse(builder, block, aisle);
    else returnThrough(builder, aisle, block.spots[aisle - 1]!);
  });
};

export function combinedWalk(floor: Floor): Walk {
  return blockByBlock(floor, combinedBlock);
}
