import { aisleX, backY, middleCrossAisleYs, positionY, type Layout, type Place } from '../layout';

/** A distinct place to visit: its position and how far it stands from the front cross aisle. */
export interface Spot {
  position: number;
  y: number;
}

/** A point on the walkable lines: an aisle's centre line at height y (0 is the front cross aisle). */
export interface Point {
  aisle: number;
  y: number;
}

/** The places to visit, aisle by aisle, in the terms every policy works with. */
export interface Floor {
  aisles: number;
  depotAisle: number;
  /** y of every cross aisle, front to back: 0, the middle ones, the back one. Block i lies between crossYs[i] and crossYs[i + 1]. */
  crossYs: number[];
  /** Distance between neighbouring aisles. */
  spacing: number;
  /** Index aisle - 1: the distinct spots of that aisle, front to back. */
  spots: Spot[][];
  /** Aisles with at least one spot, left to right. */
  pickAisles: number[];
  x(aisle: number): number;
}

export function floorOf(layout: Layout, places: readonly Place[]): Floor {
  const spots: Spot[][] = Array.from({ length: layout.aisles }, () => []);
  for (const place of places) spots[place.aisle - 1]!.push({ position: place.position, y: positionY(layout, place.position) });
  const pickAisles: number[] = [];
  spots.forEach((aisleSpots, index) => {
    aisleSpots.sort((a, b) => a.y - b.y);
    if (aisleSpots.length > 0) pickAisles.push(index + 1);
  });
  return {
    aisles: layout.aisles,
    depotAisle: layout.depotAisle,
    crossYs: [0, ...middleCrossAisleYs(layout), backY(layout)],
    spacing: layout.aisleSpacing,
    spots,
    pickAisles,
    x: (aisle) => aisleX(layout, aisle),
  };
}

/** The spots of an aisle split by block, front block first; each block's spots front to back. */
export function spotsByBlock(floor: Floor, aisle: number): Spot[][] {
  const blocks: Spot[][] = floor.crossYs.slice(1).map(() => []);
  let block = 0;
  for (const spot of floor.spots[aisle - 1]!) {
    while (spot.y > floor.crossYs[block + 1]!) block++;
    blocks[block]!.push(spot);
  }
  return blocks;
}

/** A policy's walk: its length, the polyline it follows (depot to depot) and the places in the order first reached. */
export interface Walk {
  distance: number;
  /** Whether `distance` is proven the shortest there is. */
  exact: boolean;
  path: Point[];
  visits: Place[];
}

/**
 * Records a walk move by move, refusing any move off the walkable lines: along one aisle, or
 * along a cross aisle (front, middle or back) between two aisles. The distance is the sum of the
 * moves, so a policy cannot report a length other than that of the walk it describes.
 */
export class WalkBuilder {
  private distance = 0;
  private readonly path: Point[];
  private readonly visits: Place[] = [];
  private readonly visited = new Set<string>();

  /** From the depot, or from `start` (a picker part-way through a route). */
  constructor(
    private readonly floor: Floor,
    start: Point = { aisle: floor.depotAisle, y: 0 },
  ) {
    this.path = [start];
  }

  get here(): Point {
    return this.path[this.path.length - 1]!;
  }

  /** The length walked so far. */
  get walked(): number {
    return this.distance;
  }

  goTo(aisle: number, y: number): void {
    const here = this.here;
    if (here.aisle === aisle && here.y === y) return;
    if (here.aisle !== aisle && (here.y !== y || !this.floor.crossYs.includes(y))) {
      throw new Error(`no straight walk from aisle ${here.aisle} at ${here.y} to aisle ${aisle} at ${y}`);
    }
    this.distance += Math.abs(this.floor.x(aisle) - this.floor.x(here.aisle)) + Math.abs(y - here.y);
    this.path.push({ aisle, y });
  }

  /** Walks to a spot (along the aisle, or along the cross aisle it lies on) and records the visit. */
  visit(aisle: number, spot: Spot): void {
    this.goTo(aisle, spot.y);
    const key = `${aisle}:${spot.position}`;
    if (this.visited.has(key)) return;
    this.visited.add(key);
    this.visits.push({ aisle, position: spot.position });
  }

  /** Back along the front cross aisle to the depot; only a proven shortest walk is `exact`. */
  finish(exact = false): Walk {
    this.goTo(this.floor.depotAisle, 0);
    return { distance: this.distance, exact, path: this.path, visits: this.visits };
  }
}
