import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aisleX, backY, positionY, type Layout, type Place } from '../../../src/floor/plan/layout';
import { routePolyline, walkThrough, waveProgress } from '../../../src/floor/plan/progress';
import { routeWalk } from '../../../src/floor/plan/walks';
import { placeArbitrary } from './arbitraries';

const layout: Layout = { aisles: 6, positionsPerAisle: 20, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 2 };

const places = fc.array(placeArbitrary(layout), { minLength: 1, maxLength: 12 });

/** Shortest walk between two places of the aisle graph, written out independently. */
function between(a: Place | 'depot', b: Place | 'depot'): number {
  const point = (p: Place | 'depot') => (p === 'depot' ? { x: aisleX(layout, layout.depotAisle), y: 0 } : { x: aisleX(layout, p.aisle), y: positionY(layout, p.position) });
  const [from, to] = [point(a), point(b)];
  if (from.x === to.x) return Math.abs(from.y - to.y);
  return Math.abs(from.x - to.x) + Math.min(from.y + to.y, 2 * backY(layout) - from.y - to.y);
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('walking through stops on a floor with middle cross aisles', () => {
  // Middle cross aisles of width 2 after positions 5 and 12 (given out of order), centre lines at y 7.5 and 16.5.
  const blocks: Layout = { ...layout, crossAisles: [{ afterPosition: 12, width: 2 }, { afterPosition: 5, width: 2 }] };
  const blockPlaces = fc.array(
    fc.record({ aisle: fc.integer({ min: 1, max: blocks.aisles }), position: fc.integer({ min: 1, max: blocks.positionsPerAisle }) }),
    { minLength: 1, maxLength: 12 },
  );

  it("equals the optimal route's length when the stops are in the optimal route's order", () => {
    fc.assert(
      fc.property(blockPlaces, (picks) => {
        const route = routeWalk(blocks, picks, 'optimal');
        expect(close(walkThrough(blocks, route.stops).distance, route.distance)).toBe(true);
      }),
    );
  });

  it('changes aisle over the cross aisle of least detour, a middle one too', () => {
    // Position 6 of aisle 1 stands at y 9 (2 + 5 + the cross aisle of width 2), position 5 of aisle 4 at y 6;
    // the cross aisle between them has its centre line at 7.5.
    const walk = walkThrough(blocks, [{ aisle: 1, position: 6 }, { aisle: 4, position: 5 }]);
    expect(walk.path).toEqual([
      { aisle: 2, y: 0 },
      { aisle: 1, y: 0 },
      { aisle: 1, y: 9 },
      { aisle: 1, y: 7.5 },
      { aisle: 4, y: 7.5 },
      { aisle: 4, y: 6 },
      { aisle: 4, y: 0 },
      { aisle: 2, y: 0 },
    ]);
    expect(walk.distance).toBe(3 + 9 + 1.5 + 9 + 1.5 + 6 + 6);
  });
});

describe('walking through stops in a given order', () => {
  it('is the sum of the shortest walks between neighbours, depot to depot', () => {
    fc.assert(
      fc.property(places, (stops) => {
        const legs = (['depot', ...stops, 'depot'] as (Place | 'depot')[]).slice(1).reduce((sum, to, i, all) => sum + between(i === 0 ? 'depot' : all[i - 1]!, to), 0);
        expect(close(walkThrough(layout, stops).distance, legs)).toBe(true);
      }),
    );
  });

  it("equals the optimal route's length when the stops are in the optimal route's order", () => {
    fc.assert(
      fc.property(places, (picks) => {
        const route = routeWalk(layout, picks, 'optimal');
        expect(close(walkThrough(layout, route.stops).distance, route.distance)).toBe(true);
      }),
    );
  });

  it('draws a polyline that starts and ends at the depot, passes every stop, and only moves along aisles or cross aisles', () => {
    fc.assert(
      fc.property(places, (stops) => {
        const path = routePolyline(layout, stops);
        const depot = { x: aisleX(layout, layout.depotAisle), y: 0 };
        expect(path[0]).toEqual(depot);
        expect(path.at(-1)).toEqual(depot);
        for (const stop of stops) expect(path).toContainEqual({ x: aisleX(layout, stop.aisle), y: positionY(layout, stop.position) });
        for (let i = 1; i < path.length; i++) {
          const [a, b] = [path[i - 1]!, path[i]!];
          const alongAisle = a.x === b.x;
          const alongCross = a.y === b.y && (a.y === 0 || a.y === backY(layout));
          expect(alongAisle || alongCross).toBe(true);
        }
      }),
    );
  });
});

describe('wave progress', () => {
  it('counts done stops; with none done the walk left is the whole walk, and it never grows as stops get done in order', () => {
    fc.assert(
      fc.property(places, (stops) => {
        const whole = walkThrough(layout, stops).distance;
        let previous = Infinity;
        for (let done = 0; done <= stops.length; done++) {
          const progress = waveProgress(layout, stops.map((stop, i) => ({ ...stop, done: i < done })));
          expect(progress.stopsDone).toBe(done);
          expect(progress.stopsTotal).toBe(stops.length);
          if (done === 0) expect(close(progress.distanceLeft, whole)).toBe(true);
          expect(progress.distanceLeft).toBeLessThanOrEqual(previous + 1e-9);
          previous = progress.distanceLeft;
        }
      }),
    );
  });

  it('measures from the last done stop: when all are done, only the walk back to the depot is left', () => {
    const stops = [
      { aisle: 1, position: 1, done: true },
      { aisle: 4, position: 10, done: true },
    ];
    // Aisle 4 is 6 from the depot's aisle 2; position 10 stands 11 up: back over the front cross aisle.
    expect(waveProgress(layout, stops)).toEqual({ stopsDone: 2, stopsTotal: 2, distanceLeft: 11 + 6 });
    expect(waveProgress(layout, [])).toEqual({ stopsDone: 0, stopsTotal: 0, distanceLeft: 0 });
  });
});
