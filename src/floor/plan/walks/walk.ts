import { aisleX, backY, positionY, type Layout, type Place } from '../layout';

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
  /** y of the back cross aisle. */
  back: number;
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
    back: backY(layout),
    spacing: layout.aisleSpacing,
    spots,
    pickAisles,
    x: (aisle) => aisleX(layout, aisle),
  };
}

/** A policy's walk: its length, the polyline it follows (depot to depot) and the places in the order first reached. */
export interface Walk {
  distance: number;
  path: Point[];
  visits: Place[];
}

/**
 * Records a walk move by move, refusing any move off the walkable lines: along one aisle, or
 * along a cross aisle between two aisles. The distance is the sum of the moves, so a policy
 * cannot report a length other than that of the walk it describes.
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

  goTo(aisle: number, y: number): void {
    const here = this.here;
    if (here.aisle === aisle && here.y === y) return;
    if (here.aisle !== aisle && (here.y !== y || (y !== 0 && y !== this.floor.back))) {
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

  /** Back along the front cross aisle to the depot. */
  finish(): Walk {
    this.goTo(this.floor.depotAisle, 0);
    return { distance: this.distance, path: this.path, visits: this.visits };
  }
}
