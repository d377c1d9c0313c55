import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aisleX, backY, layoutProblem, middleCrossAisleYs, POLICIES, positionY, type Layout, type Place } from '../../../src/floor/plan/layout';
import { routePicks, routeWalk, shortestRouteLength, SubsetRoutes, type RouteWalk } from '../../../src/floor/plan/walks';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

const HEURISTICS = POLICIES.filter((policy) => policy !== 'optimal');

interface Pick extends Place {
  id: number;
}

const classic: Layout = { aisles: 10, positionsPerAisle: 30, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };

function close(actual: number, expected: number): boolean {
  return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
}

/** y of every cross aisle: the front one (0), the middle ones, the back one. */
const crossYsOf = (layout: Layout) => [0, ...middleCrossAisleYs(layout), backY(layout)];

/** Shortest walk between two points of the aisle graph (y = 0 is the front cross aisle): along the aisle, or over one cross aisle. */
function between(layout: Layout, a: { aisle: number; y: number }, b: { aisle: number; y: number }): number {
  if (a.aisle === b.aisle) return Math.abs(a.y - b.y);
  const detour = Math.min(...crossYsOf(layout).map((y) => Math.abs(a.y - y) + Math.abs(b.y - y)));
  return Math.abs(aisleX(layout, a.aisle) - aisleX(layout, b.aisle)) + detour;
}

const depotOf = (layout: Layout) => ({ aisle: layout.depotAisle, y: 0 });
const pointOf = (layout: Layout, place: Place) => ({ aisle: place.aisle, y: positionY(layout, place.position) });

/** Held–Karp: the exact shortest tour from the depot through every distinct place. */
function heldKarp(layout: Layout, places: readonly Place[]): number {
  const points = distinctPlaces(places).map((place) => pointOf(layout, place));
  const n = points.length;
  if (n === 0) return 0;
  const depot = depotOf(layout);
  const best: number[][] = Array.from({ length: 1 << n }, () => new Array<number>(n).fill(Infinity));
  points.forEach((point, i) => (best[1 << i]![i] = between(layout, depot, point)));
  for (let set = 1; set < 1 << n; set++) {
    for (let last = 0; last < n; last++) {
      const here = best[set]![last]!;
      if (!(set & (1 << last)) || here === Infinity) continue;
      for (let next = 0; next < n; next++) {
        if (set & (1 << next)) continue;
        const extended = set | (1 << next);
        best[extended]![next] = Math.min(best[extended]![next]!, here + between(layout, points[last]!, points[next]!));
      }
    }
  }
  return Math.min(...points.map((point, i) => best[(1 << n) - 1]![i]! + between(layout, point, depot)));
}

function distinctPlaces(places: readonly Place[]): Place[] {
  const seen = new Map<string, Place>();
  for (const place of places) seen.set(`${place.aisle}:${place.position}`, place);
  return [...seen.values()];
}

/** Shortest walk from the depot through the stops in the order given and back. */
function sequenceLength(layout: Layout, stops: readonly Place[]): number {
  const points = [depotOf(layout), ...stops.map((stop) => pointOf(layout, stop)), depotOf(layout)];
  return points.slice(1).reduce((sum, point, i) => sum + between(layout, points[i]!, point), 0);
}

/**
 * What every policy's answer must be, whatever the instance:
 * - stops hold every given pick exactly once, picks of one place next to each other in the order given;
 * - the walk starts and ends at the depot and each of its legs runs along one aisle or along a
 *   cross aisle (front, middle or back), inside the floor;
 * - `distance` is the length of that walk;
 * - the walk reaches the stops in the order given (each stop lies on the walk after the previous one).
 */
function expectSoundWalk(layout: Layout, picks: readonly Pick[], route: RouteWalk<Pick>): void {
  expect([...route.stops].sort((a, b) => a.id - b.id)).toEqual([...picks].sort((a, b) => a.id - b.id));
  expect(new Set(route.stops).size).toBe(picks.length);
  route.stops.forEach((stop, i) => {
    const samePlaceBefore = route.stops.slice(0, i).filter((other) => other.aisle === stop.aisle && other.position === stop.position);
    if (samePlaceBefore.length === 0) return;
    expect(samePlaceBefore[samePlaceBefore.length - 1]).toBe(route.stops[i - 1]);
    expect(samePlaceBefore.every((other) => picks.indexOf(other) < picks.indexOf(stop))).toBe(true);
  });

  const back = backY(layout);
  const { path } = route;
  expect(path[0]).toEqual(depotOf(layout));
  expect(path[path.length - 1]).toEqual(depotOf(layout));
  let length = 0;
  for (let i = 1; i < path.length; i++) {
    const [from, to] = [path[i - 1]!, path[i]!];
    for (const point of [from, to]) {
      expect(point.y).toBeGreaterThanOrEqual(0);
      expect(point.y).toBeLessThanOrEqual(back);
    }
    if (from.aisle !== to.aisle) {
      expect(to.y).toBe(from.y);
      expect(crossYsOf(layout)).toContain(from.y);
    }
    length += Math.abs(aisleX(layout, to.aisle) - aisleX(layout, from.aisle)) + Math.abs(to.y - from.y);
  }
  expect(close(route.distance, length), `distance ${route.distance}, walk ${length}`).toBe(true);

  // Each stop on the walk at or after the previous stop: leg index and fraction along it. A walk
  // that never leaves the depot (every pick stands there) is one leg of no length.
  const legs = path.length === 1 ? [[path[0]!, path[0]!]] : path.slice(1).map((to, i) => [path[i]!, to]);
  let leg = 0;
  let along = 0;
  for (const stop of route.stops) {
    const { aisle, y } = pointOf(layout, stop);
    for (; leg < legs.length; leg++, along = 0) {
      const [from, to] = legs[leg]!;
      const fraction = onLeg(layout, from!, to!, aisle, y);
      if (fraction !== undefined && fraction >= along) {
        along = fraction;
        break;
      }
    }
    expect(leg, `stop at aisle ${aisle}, position ${stop.position} not reached in order`).toBeLessThan(legs.length);
  }
}

/** Where (0..1) the point lies along a leg of the walk, or undefined when it is not on it. */
function onLeg(layout: Layout, from: { aisle: number; y: number }, to: { aisle: number; y: number }, aisle: number, y: number): number | undefined {
  const [x, x0, x1] = [aisleX(layout, aisle), aisleX(layout, from.aisle), aisleX(layout, to.aisle)];
  const within = (v: number, a: number, b: number) => v >= Math.min(a, b) && v <= Math.max(a, b);
  const fraction = (v: number, a: number, b: number) => (a === b ? 0 : (v - a) / (b - a));
  if (from.aisle === to.aisle) return aisle === from.aisle && within(y, from.y, to.y) ? fraction(y, from.y, to.y) : undefined;
  return y === from.y && within(x, x0, x1) ? fraction(x, x0, x1) : undefined;
}

const smallLayout = layoutArbitrary({ aisles: 7, positions: { min: 1, max: 8 } });

/** A layout and up to `max` picks on it (places may repeat), each pick with its own id. */
function instance(max: number): fc.Arbitrary<{ layout: Layout; picks: Pick[] }> {
  return smallLayout.chain((layout) =>
    fc
      .array(placeArbitrary(layout), { maxLength: max })
      .map((places) => ({ layout, picks: places.map((place, id) => ({ ...place, id })) })),
  );
}

describe('optimal routes (property)', () => {
  it('are as short as Held–Karp over the pick points, for any depot aisle', () => {
    fc.assert(
      fc.property(instance(8), ({ layout, picks }) => {
        const exact = heldKarp(layout, picks);
        const route = routePicks(layout, picks, 'optimal');
        expect(close(route.distance, exact), `optimal ${route.distance}, Held–Karp ${exact}`).toBe(true);
        expect(close(shortestRouteLength(layout, picks), exact)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('walk exactly the shortest walk through their own stops', () => {
    fc.assert(
      fc.property(instance(12), ({ layout, picks }) => {
        const route = routePicks(layout, picks, 'optimal');
        expect(close(sequenceLength(layout, route.stops), route.distance)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('every policy (property)', () => {
  it('walks along aisles and cross aisles, depot to depot, reaching its stops in order, and its distance is that walk', () => {
    fc.assert(
      fc.property(instance(14), fc.constantFrom(...POLICIES), ({ layout, picks }, policy) => {
        expectSoundWalk(layout, picks, routeWalk(layout, picks, policy));
      }),
      { numRuns: 3000 },
    );
  });

  it('is never shorter than optimal', () => {
    fc.assert(
      fc.property(instance(14), ({ layout, picks }) => {
        const optimal = routePicks(layout, picks, 'optimal').distance;
        for (const policy of HEURISTICS) {
          expect(routePicks(layout, picks, policy).distance).toBeGreaterThanOrEqual(optimal - 1e-9);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

/** A small floor with `min` to `max` middle cross aisles (as many as fit), and up to `maxPicks` picks on it (places may repeat). */
function blockInstance(maxPicks: number, { min, max } = { min: 1, max: 4 }, minPicks = 0): fc.Arbitrary<{ layout: Layout; picks: Pick[] }> {
  const layouts = smallLayout
    .filter((layout) => layout.positionsPerAisle > min)
    .chain((layout) =>
      fc
        .uniqueArray(fc.integer({ min: 1, max: layout.positionsPerAisle - 1 }), { minLength: min, maxLength: Math.min(max, layout.positionsPerAisle - 1) })
        .chain((afters) => fc.tuple(...afters.map((afterPosition) => fc.constantFrom(0.5, 1, 2).map((width) => ({ afterPosition, width })))))
        .map((crossAisles): Layout => ({ ...layout, crossAisles })),
    );
  return layouts.chain((layout) =>
    fc
      .array(placeArbitrary(layout), { minLength: minPicks, maxLength: maxPicks })
      .map((places) => ({ layout, picks: places.map((place, id) => ({ ...place, id })) })),
  );
}

describe('routes on floors with middle cross aisles (property)', () => {
  it('optimal is exact and as short as Held–Karp over the pick points', () => {
    fc.assert(
      fc.property(blockInstance(8), ({ layout, picks }) => {
        const exact = heldKarp(layout, picks);
        const route = routePicks(layout, picks, 'optimal');
        expect(route.exact).toBe(true);
        expect(close(route.distance, exact), `optimal ${route.distance}, Held–Karp ${exact}`).toBe(true);
        expect(close(shortestRouteLength(layout, picks), exact)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('no heuristic is exact or shorter than optimal, and combined is never longer than s-shape', () => {
    fc.assert(
      fc.property(blockInstance(14), ({ layout, picks }) => {
        const optimal = routePicks(layout, picks, 'optimal').distance;
        for (const policy of HEURISTICS) {
          const route = routePicks(layout, picks, policy);
          expect(route.exact).toBe(false);
          expect(route.distance).toBeGreaterThanOrEqual(optimal - 1e-9);
        }
        expect(routePicks(layout, picks, 'combined').distance).toBeLessThanOrEqual(routePicks(layout, picks, 's-shape').distance + 1e-9);
      }),
      { numRuns: 1000 },
    );
  });

  it('beyond what the exact methods settle (five or more middle cross aisles, over 12 places), optimal is not exact but no heuristic is shorter', () => {
    fc.assert(
      fc.property(blockInstance(30, { min: 5, max: 7 }, 20), ({ layout, picks }) => {
        const route = routeWalk(layout, picks, 'optimal');
        expectSoundWalk(layout, picks, route);
        expect(close(shortestRouteLength(layout, picks), route.distance)).toBe(true);
        if (new Set(picks.map((pick) => `${pick.aisle}:${pick.position}`)).size <= 12) return;
        expect(route.exact).toBe(false);
        for (const policy of HEURISTICS) expect(routePicks(layout, picks, policy).distance).toBeGreaterThanOrEqual(route.distance - 1e-9);
      }),
      { numRuns: 300 },
    );
  });

  it('every policy walks only along aisles and cross aisles, depot to depot, reaching its stops in order', () => {
    fc.assert(
      fc.property(blockInstance(14), fc.constantFrom(...POLICIES), ({ layout, picks }, policy) => {
        expectSoundWalk(layout, picks, routeWalk(layout, picks, policy));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('exact walks through subsets of one list of places (property)', () => {
  it('are as long as the optimal route through each subset, measured one after another (places repeated included)', () => {
    const subsetsOf = (layout: Layout) =>
      fc.array(placeArbitrary(layout), { minLength: 1, maxLength: 12 }).chain((places) =>
        fc.record({ places: fc.constant(places), subsets: fc.array(fc.array(fc.integer({ min: 0, max: places.length - 1 }), { maxLength: 10 }), { minLength: 1, maxLength: 12 }) }),
      );
    const list = layoutArbitrary({ aisles: 6, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) => subsetsOf(layout).map((rest) => ({ layout, ...rest })));
    fc.assert(
      fc.property(list, ({ layout, places, subsets }) => {
        const routes = new SubsetRoutes(layout, places);
        for (const subset of subsets) expect(routes.length(subset)).toBe(shortestRouteLength(layout, subset.map((index) => places[index]!)));
      }),
      { numRuns: 300 },
    );
  });

  it('are as long as the optimal route through each subset when each differs from the one before by a place added, dropped or swapped (as a search measures them)', () => {
    const edit = fc.record({ kind: fc.constantFrom('add', 'drop', 'swap'), at: fc.nat(), place: fc.nat() });
    const walk = layoutArbitrary({ aisles: 12, positions: { min: 2, max: 10 }, middleCrossAisles: true }).chain((layout) =>
      fc.record({ layout: fc.constant(layout), places: fc.array(placeArbitrary(layout), { minLength: 2, maxLength: 24 }), edits: fc.array(edit, { minLength: 1, maxLength: 40 }) }),
    );
    fc.assert(
      fc.property(walk, ({ layout, places, edits }) => {
        const routes = new SubsetRoutes(layout, places);
        let subset = places.map((_, index) => index).filter((index) => index % 2 === 0);
        for (const { kind, at, place } of edits) {
          const index = place % places.length;
          if (kind === 'add') subset = [...subset, index];
          else if (subset.length > 0) subset = kind === 'drop' ? subset.filter((_, i) => i !== at % subset.length) : subset.map((kept, i) => (i === at % subset.length ? index : kept));
          expect(routes.length(subset)).toBe(shortestRouteLength(layout, subset.map((kept) => places[kept]!)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('routes of the simplest pick lists', () => {
  const layout: Layout = { ...classic, depotAisle: 4 };

  it.each(POLICIES)('%s: no picks is no walk', (policy) => {
    expect(routePicks(layout, [], policy)).toEqual({ distance: 0, exact: policy === 'optimal', stops: [] });
  });

  it.each(POLICIES)('%s: one pick is there and back along the front and up the aisle', (policy) => {
    const pick = { aisle: 7, position: 12, id: 1 };
    // 3 aisles of 3 along the front, 1 + 11 up the aisle, each way.
    expect(routePicks(layout, [pick], policy)).toEqual({ distance: 2 * 9 + 2 * 12, exact: policy === 'optimal', stops: [pick] });
  });

  it.each(POLICIES)('%s: picks all in one aisle are walked up to the farthest and back, front to back', (policy) => {
    const picks = [
      { aisle: 2, position: 20, id: 1 },
      { aisle: 2, position: 3, id: 2 },
      { aisle: 2, position: 9, id: 3 },
    ];
    const route = routeWalk(layout, picks, policy);
    expect(route.distance).toBe(2 * 6 + 2 * 20);
    expect(route.stops.map((stop) => stop.id)).toEqual([2, 3, 1]);
    expectSoundWalk(layout, picks, route);
  });

  it.each(POLICIES)("%s: picks in the depot's own aisle need no walk along the front", (policy) => {
    const picks = [
      { aisle: 4, position: 5, id: 1 },
      { aisle: 4, position: 1, id: 2 },
    ];
    expect(routePicks(layout, picks, policy)).toEqual({ distance: 2 * 5, exact: policy === 'optimal', stops: [picks[1], picks[0]] });
  });

  it.each(POLICIES)('%s: picks at one place are stopped at together, in the order given', (policy) => {
    const picks = [
      { aisle: 5, position: 2, id: 1 },
      { aisle: 8, position: 7, id: 2 },
      { aisle: 5, position: 2, id: 3 },
      { aisle: 8, position: 7, id: 4 },
      { aisle: 5, position: 2, id: 5 },
    ];
    const ids = routePicks(layout, picks, policy).stops.map((stop) => stop.id);
    expect([
      [1, 3, 5, 2, 4],
      [2, 4, 1, 3, 5],
    ]).toContainEqual(ids);
  });

  it('refuses a pick off the layout', () => {
    expect(() => routePicks(layout, [{ aisle: 11, position: 1 }], 'optimal')).toThrow(RangeError);
    expect(() => routePicks(layout, [{ aisle: 1, position: 31 }], 's-shape')).toThrow(RangeError);
  });
});

describe('hand-worked routes through three aisles', () => {
  // 4 aisles 3 apart, 10 positions; the back cross aisle is at y = 2 * 1 + 9 = 11.
  const layout: Layout = { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
  const picks = [
    { aisle: 4, position: 5, id: 1 },
    { aisle: 1, position: 7, id: 2 },
    { aisle: 2, position: 8, id: 3 },
  ];

  it('s-shape: through aisle 1, back along the rear, down aisle 2, in and out of aisle 4 (three aisles: the last one is a return)', () => {
    const route = routeWalk(layout, picks, 's-shape');
    // up aisle 1: 11; back cross aisle to 2: 3; down aisle 2: 11; front to 4: 6; up to position 5 and back: 2 * 5; home: 9.
    expect(route.distance).toBe(11 + 3 + 11 + 6 + 10 + 9);
    expect(route.stops.map((stop) => stop.id)).toEqual([2, 3, 1]);
  });

  it('s-shape starts at the pick aisle nearer the depot: from a depot at aisle 4 it sweeps right to left', () => {
    const route = routeWalk({ ...layout, depotAisle: 4 }, picks, 's-shape');
    // up aisle 4: 11; rear to 2: 6; down aisle 2: 11; front to 1: 3; up to position 7 and back: 2 * 7; home: 9.
    expect(route.distance).toBe(11 + 6 + 11 + 3 + 14 + 9);
    expect(route.stops.map((stop) => stop.id)).toEqual([1, 3, 2]);
  });

  it('optimal: a loop through aisles 1 and 4 over the rear, aisle 2 entered from the back', () => {
    const route = routeWalk(layout, picks, 'optimal');
    // up aisle 1: 11; rear to 4: 9; down aisle 4: 11; front home: 9; aisle 2 from the rear to position 8 and back: 2 * (11 - 8).
    expect(route.distance).toBe(11 + 9 + 11 + 9 + 6);
    // The loop may run either way round.
    expect([[2, 3, 1], [1, 3, 2]]).toContainEqual(route.stops.map((stop) => stop.id));
    expectSoundWalk(layout, picks, route);
  });
});

describe('hand-worked routes through four aisles', () => {
  // 4 aisles 3 apart, 10 positions; the back cross aisle is at y = 11, half way is 5.5.
  const layout: Layout = { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };
  // y = position here: aisle 1 at 2; aisle 2 at 2 and 9; aisle 3 at 4 and 7; aisle 4 at 4.
  const picks = [
    { aisle: 3, position: 7, id: 5 },
    { aisle: 1, position: 2, id: 1 },
    { aisle: 4, position: 4, id: 6 },
    { aisle: 2, position: 9, id: 3 },
    { aisle: 3, position: 4, id: 4 },
    { aisle: 2, position: 2, id: 2 },
  ];
  const walk = (policy: (typeof POLICIES)[number], depotAisle = 1) => {
    const route = routeWalk({ ...layout, depotAisle }, picks, policy);
    return { distance: route.distance, ids: route.stops.map((stop) => stop.id) };
  };

  it('s-shape walks through all four aisles (an even number: no return at the end)', () => {
    expect(walk('s-shape')).toEqual({ distance: 4 * 11 + 2 * 9, ids: [1, 3, 2, 4, 5, 6] });
  });

  it('return goes up each aisle from the front to its farthest pick and back', () => {
    expect(walk('return')).toEqual({ distance: 2 * 2 + 2 * 9 + 2 * 7 + 2 * 4 + 2 * 9, ids: [1, 2, 3, 4, 5, 6] });
  });

  it('midpoint picks the back halves from the back cross aisle and the front halves on the way home', () => {
    // through 1: 11; back to 2: 3, to position 9 and back: 4; to 3: 3, to 7 and back: 8; to 4: 3; through 4: 11;
    // front to 3: 3, to 4 and back: 8; to 2: 3, to 2 and back: 4; home: 3.
    expect(walk('midpoint')).toEqual({ distance: 11 + 3 + 4 + 3 + 8 + 3 + 11 + 3 + 8 + 3 + 4 + 3, ids: [1, 3, 5, 6, 4, 2] });
  });

  it('midpoint with the depot between the end aisles picks on the way out what lies between', () => {
    // From aisle 3 the right end is nearer: aisle 3's front half first (8), to 4: 3; through 4: 11; back to 3: 3, its back half: 8;
    // to 2: 3, its back half: 4; to 1: 3; through 1: 11; front to 2: 3, its front half: 4; to the depot: 3.
    expect(walk('midpoint', 3)).toEqual({ distance: 8 + 3 + 11 + 3 + 8 + 3 + 4 + 3 + 11 + 3 + 4 + 3, ids: [4, 6, 5, 3, 1, 2] });
  });

  it('largest gap leaves out the gap between the front and aisle 3\'s first pick, so aisle 3 is done from the back', () => {
    // Aisle 2's largest gap is between positions 2 and 9; aisle 3's gaps are 4, 3 and 4: the front one is left out.
    expect(walk('largest-gap')).toEqual({ distance: 11 + 3 + 4 + 3 + 2 * (11 - 4) + 3 + 11 + 6 + 4 + 3, ids: [1, 3, 5, 4, 6, 2] });
  });

  it('combined returns in aisle 1, walks through aisles 2 and 3 and returns in aisle 4', () => {
    expect(walk('combined')).toEqual({ distance: 2 * 2 + 11 + 11 + 2 * 4 + 2 * 9, ids: [1, 2, 3, 5, 4, 6] });
  });

  it('combined is never longer than s-shape or return (both are among the walks it chooses from)', () => {
    fc.assert(
      fc.property(instance(14), ({ layout, picks }) => {
        const combined = routePicks(layout, picks, 'combined').distance;
        expect(combined).toBeLessThanOrEqual(routePicks(layout, picks, 's-shape').distance + 1e-9);
        expect(combined).toBeLessThanOrEqual(routePicks(layout, picks, 'return').distance + 1e-9);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('hand-worked routes on two blocks', () => {
  // 4 aisles 3 apart, 10 positions, a middle cross aisle of width 1 after position 5: positions 1-5 at
  // y 1-5, the middle cross aisle at y 6, positions 6-10 at y 7-11, the back cross aisle at y 12.
  const layout: Layout = { ...classic, aisles: 4, positionsPerAisle: 10, crossAisles: [{ afterPosition: 5, width: 1 }] };
  // Front block: aisle 1 at y 2, aisle 3 at y 3. Back block: aisle 2 at y 9, aisle 4 at y 8.
  const picks = [
    { aisle: 3, position: 3, id: 3 },
    { aisle: 1, position: 2, id: 1 },
    { aisle: 4, position: 7, id: 4 },
    { aisle: 2, position: 8, id: 2 },
  ];
  const walk = (policy: (typeof POLICIES)[number]) => {
    const route = routeWalk(layout, picks, policy);
    expectSoundWalk(layout, picks, route);
    return { distance: route.distance, exact: route.exact, ids: route.stops.map((stop) => stop.id) };
  };

  it('s-shape goes up aisle 1 to the back block, through aisles 2 and 4 there, then through aisle 3 of the front block', () => {
    // up aisle 1 past y 2 to the middle: 6; along it to 2: 3; through the back block: 6; back to 4: 6; down to the middle: 6;
    // along the middle to 3: 3; down aisle 3 through the front block: 6; home along the front: 6.
    expect(walk('s-shape')).toEqual({ distance: 6 + 3 + 6 + 6 + 6 + 3 + 6 + 6, exact: false, ids: [1, 2, 4, 3] });
  });

  it('return goes up each aisle from the front, over the middle cross aisle, and back', () => {
    expect(walk('return')).toEqual({ distance: 2 * 2 + 3 + 2 * 9 + 3 + 2 * 3 + 3 + 2 * 8 + 9, exact: false, ids: [1, 2, 3, 4] });
  });

  it('largest gap walks the back block as a loop through its two aisles and the front block down the last', () => {
    expect(walk('largest-gap')).toEqual({ distance: 42, exact: false, ids: [1, 2, 4, 3] });
  });

  it('combined enters aisles 2 and 4 from the middle cross aisle and returns', () => {
    // up aisle 1 to the middle: 6; to 2: 3; to y 9 and back: 6; to 4: 6; to y 8 and back: 4; to 3: 3; down aisle 3: 6; home: 6.
    expect(walk('combined')).toEqual({ distance: 6 + 3 + 6 + 6 + 4 + 3 + 6 + 6, exact: false, ids: [1, 2, 4, 3] });
  });

  it('optimal finds the same 40, proven', () => {
    expect(walk('optimal')).toMatchObject({ distance: 40, exact: true });
  });
});

describe('layoutProblem', () => {
  it('accepts the classic layout and names the field of a bad one', () => {
    expect(layoutProblem(classic)).toBeUndefined();
    expect(layoutProblem({ ...classic, depotAisle: 11 })?.field).toBe('depotAisle');
    expect(layoutProblem({ ...classic, depotAisle: 0 })?.field).toBe('depotAisle');
    expect(layoutProblem({ ...classic, aisles: 2.5 })?.field).toBe('aisles');
    expect(layoutProblem({ ...classic, positionsPerAisle: 0 })?.field).toBe('positionsPerAisle');
    expect(layoutProblem({ ...classic, aisleSpacing: 0 })?.field).toBe('aisleSpacing');
    expect(layoutProblem({ ...classic, positionSpacing: -1 })?.field).toBe('positionSpacing');
    expect(layoutProblem({ ...classic, crossAisleOffset: -0.5 })?.field).toBe('crossAisleOffset');
    expect(layoutProblem({ ...classic, crossAisleOffset: 0 })).toBeUndefined();
  });
});
