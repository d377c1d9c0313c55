import { aisleX, backY, isOnLayout, middleCrossAisleYs, positionY, type Layout, type Place, type Policy } from './layout';
import { combinedWalk, largestGapWalk, midpointWalk, returnWalk, sShapeWalk } from './walks/heuristics';
import { optimalDistance, optimalWalk, resumedDistance, type Trail } from './walks/optimal';
import { floorOf, type Floor, type Point, type Spot, type Walk } from './walks/walk';

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

/**
 * Whether the optimal walk through given places is quick to work out on the layout: on one or two
 * blocks its dynamic program is linear in the aisles; on more it is a search.
 */
export function optimalIsQuick(layout: Layout): boolean {
  return (layout.crossAisles?.length ?? 0) <= 1;
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

/** Recent runs a `SubsetRoutes` may resume from (the least recently resumed from is dropped first). */
const TRAILS_KEPT = 4;

/**
 * `shortestRouteLength` through subsets of one list of places, for a search that measures many
 * that differ in a few aisles: each place's spot is worked out once, and the dynamic program runs
 * only the aisles where the subset differs from a recent run, taking that run's states from the
 * left of them and its costs of finishing from the right.
 */
export class SubsetRoutes {
  /** By place: its spot, and the first place of the list at the same aisle and position. */
  private readonly spots: Spot[];
  private readonly first: Int32Array;
  private readonly stamps: Int32Array;
  private stamp = 0;
  private readonly crossYs: number[];
  private readonly x: (aisle: number) => number;
  /** The places of recent runs by aisle - 1 (front to back), most recent last, and their trails. */
  private recent: { byAisle: number[][]; trail: Trail }[] = [];

  constructor(
    private readonly layout: Layout,
    private readonly places: readonly Place[],
  ) {
    this.spots = places.map((place) => ({ position: place.position, y: positionY(layout, place.position) }));
    const firstAt = new Map<string, number>();
    this.first = Int32Array.from(places, (place, index) => firstAt.get(placeKey(place)) ?? firstAt.set(placeKey(place), index).get(placeKey(place))!);
    this.stamps = new Int32Array(places.length);
    this.crossYs = [0, ...middleCrossAisleYs(layout), backY(layout)];
    this.x = (aisle) => aisleX(layout, aisle);
  }

  /** The length of the `optimal` route through the places of these indexes. */
  length(indexes: readonly number[]): number {
    const { layout, places, spots } = this;
    const byAisle: number[][] = Array.from({ length: layout.aisles }, () => []);
    this.stamp++;
    for (const index of indexes) {
      const place = places[index]!;
      if (!isOnLayout(layout, place)) throw new RangeError(`aisle ${place.aisle}, position ${place.position} is not on the layout`);
      const first = this.first[index]!;
      if (this.stamps[first] === this.stamp) continue;
      this.stamps[first] = this.stamp;
      byAisle[place.aisle - 1]!.push(first);
    }
    const pickAisles: number[] = [];
    byAisle.forEach((here, i) => {
      if (here.length === 0) return;
      here.sort((a, b) => spots[a]!.y - spots[b]!.y || a - b);
      pickAisles.push(i + 1);
    });
    const floor: Floor = {
      aisles: layout.aisles,
      depotAisle: layout.depotAisle,
      crossYs: this.crossYs,
      spacing: layout.aisleSpacing,
      spots: byAisle.map((here) => here.map((index) => spots[index]!)),
      pickAisles,
      x: this.x,
    };
    // The recent run that leaves the fewest aisles to run: those between where it agrees from the left and from the right.
    let resumed: (typeof this.recent)[number] | undefined;
    let [firstChanged, lastChanged] = [1, layout.aisles];
    for (const run of this.recent) {
      let first = 1;
      while (first <= layout.aisles && sameList(run.byAisle[first - 1]!, byAisle[first - 1]!)) first++;
      let last = layout.aisles;
      while (last >= first && sameList(run.byAisle[last - 1]!, byAisle[last - 1]!)) last--;
      if (last - first <= lastChanged - firstChanged) [resumed, firstChanged, lastChanged] = [run, first, last];
    }
    const { distance, trail } = resumedDistance(floor, resumed?.trail, firstChanged, lastChanged);
    // The run resumed from stays among the recent ones: a search measures many neighbours of one walk.
    if (resumed) this.recent = [...this.recent.filter((run) => run !== resumed), resumed];
    if (trail) this.recent = [...this.recent.slice(1 - TRAILS_KEPT), { byAisle, trail }];
    return distance;
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
