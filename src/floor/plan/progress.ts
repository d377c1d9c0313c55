import { aisleX, positionY, type Layout, type Place } from './layout';
import { floorOf, WalkBuilder, type Floor, type Point } from './walks/walk';

/** A stop of a wave on the floor, and whether every line of it has a pick recorded. */
export interface StopState extends Place {
  done: boolean;
}

export interface Progress {
  stopsDone: number;
  stopsTotal: number;
  /** From the last done stop (the depot before the first) through the stops not done, in walking order, back to the depot. */
  distanceLeft: number;
}

/** The cross aisle a walk between heights `fromY` and `toY` of two aisles takes: the one of least detour. */
function crossingY(floor: Floor, fromY: number, toY: number): number {
  const detour = (y: number) => Math.abs(fromY - y) + Math.abs(toY - y);
  return floor.crossYs.reduce((best, y) => (detour(y) < detour(best) ? y : best));
}

/** The shortest walk between two points of the aisle graph: along the aisle, or over the cross aisle of least detour. */
function walkTo(walk: WalkBuilder, floor: Floor, to: Point): void {
  const here = walk.here;
  if (here.aisle !== to.aisle) {
    const crossY = crossingY(floor, here.y, to.y);
    walk.goTo(here.aisle, crossY);
    walk.goTo(to.aisle, crossY);
  }
  walk.goTo(to.aisle, to.y);
}

/** The length of the shortest walk between two points of the aisle graph (the one walkTo walks). */
export function walkLength(floor: Floor, from: Point, to: Point): number {
  if (from.aisle === to.aisle) return Math.abs(from.y - to.y);
  const crossY = crossingY(floor, from.y, to.y);
  return Math.abs(from.y - crossY) + Math.abs(floor.x(to.aisle) - floor.x(from.aisle)) + Math.abs(to.y - crossY);
}

/**
 * The shortest walk from one place to another along aisles and cross aisles (the depot for
 * `undefined`), on a floor made once: for measuring many legs of one layout.
 */
export function legsOf(layout: Layout): (from: Place | undefined, to: Place | undefined) => number {
  const floor = floorOf(layout, []);
  const point = (place: Place | undefined): Point => (place ? { aisle: place.aisle, y: positionY(layout, place.position) } : { aisle: layout.depotAisle, y: 0 });
  return (from, to) => walkLength(floor, point(from), point(to));
}

/** The walk from `start` through `places` in the order given, back to the depot, along aisles and cross aisles. */
export function walkThrough(layout: Layout, places: readonly Place[], start?: Place) {
  const floor = floorOf(layout, []);
  const point = (place: Place): Point => ({ aisle: place.aisle, y: positionY(layout, place.position) });
  const walk = new WalkBuilder(floor, start && point(start));
  for (const place of places) walkTo(walk, floor, point(place));
  walkTo(walk, floor, { aisle: layout.depotAisle, y: 0 });
  return walk.finish();
}

/** A wave's progress: stops done, and the walk left in its walking order. */
export function waveProgress(layout: Layout, stops: readonly StopState[]): Progress {
  const lastDone = stops.findLastIndex((stop) => stop.done);
  const left = stops.filter((stop) => !stop.done);
  return {
    stopsDone: stops.length - left.length,
    stopsTotal: stops.length,
    distanceLeft: stops.length === 0 ? 0 : walkThrough(layout, left, lastDone >= 0 ? stops[lastDone] : undefined).distance,
  };
}

/** A wave's route drawn on the plan: the depot, each stop in walking order, the depot, as x/y corners. */
export function routePolyline(layout: Layout, stops: readonly Place[]): { x: number; y: number }[] {
  return walkThrough(layout, stops).path.map((point) => ({ x: aisleX(layout, point.aisle), y: point.y }));
}
