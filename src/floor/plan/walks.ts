import { isOnLayout, type Layout, type Place, type Policy } from './layout';
import { combinedWalk, largestGapWalk, midpointWalk, returnWalk, sShapeWalk } from './walks/heuristics';
import { optimalDistance, optimalWalk } from './walks/optimal';
import { floorOf, type Floor, type Point, type Walk } from './walks/walk';

export type { Point } from './walks/walk';

export interface Route<T extends Place> {
  /** Length of the walk the policy describes, depot to depot (0 for no picks). */
  distance: number;
  /** Whether `distance` is proven the shortest walk there is (only `optimal` can be). */
  exact: boolean;
  /** Every given pick once, in walking order; picks at the same place are consecutive, in the order given. */
  stops: T[];
}

/** A route with the walk itself: the corners and stops it passes, depot to depot. */
export interface RouteWalk<T extends Place> extends Route<T> {
  path: Point[];
}

const WALKS: Record<Policy, (floor: Floor) => Walk> = {
  's-shape': sShapeWalk,
  return: returnWalk,
  midpoint: midpointWalk,
  'largest-gap': largestGapWalk,
  combined: combinedWalk,
  optimal: optimalWalk,
};

export function routePicks<T extends Place>(layout: Layout, picks: readonly T[], policy: Policy): Route<T> {
  const { distance, exact, stops } = routeWalk(layout, picks, policy);
  return { distance, exact, stops };
}

/** `routePicks` with the walk's polyline, for drawing a route or checking it. */
export function routeWalk<T extends Place>(layout: Layout, picks: readonly T[], policy: Policy): RouteWalk<T> {
  const byPlace = groupByPlace(layout, picks);
  const { distance, exact, path, visits } = WALKS[policy](floorOf(layout, firstOfEach(byPlace)));
  return { distance, exact, path, stops: visits.flatMap((place) => byPlace.get(placeKey(place))!) };
}

/** The length of the `optimal` route through `places`, without building the route: for comparing many pick lists. */
export function shortestRouteLength(layout: Layout, places: readonly Place[]): number {
  return optimalDistance(floorOf(layout, firstOfEach(groupByPlace(layout, places))));
}

/** Picks by place, in the order given; refuses a place off the layout. */
function groupByPlace<T extends Place>(layout: Layout, picks: readonly T[]): Map<string, T[]> {
  const byPlace = new Map<string, T[]>();
  for (const pick of picks) {
    if (!isOnLayout(layout, pick)) throw new RangeError(`aisle ${pick.aisle}, position ${pick.position} is not on the layout`);
    const key = placeKey(pick);
    const same = byPlace.get(key);
    if (same) same.push(pick);
    else byPlace.set(key, [pick]);
  }
  return byPlace;
}

function firstOfEach<T>(groups: Map<string, T[]>): T[] {
  return [...groups.values()].map((same) => same[0]!);
}

function placeKey(place: Place): string {
  return `${place.aisle}:${place.position}`;
}
