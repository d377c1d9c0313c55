import type { ItemRoute, Location } from '../../src/floor/plan/items';
import { sprpInstances, type SprpInstance } from './sprp';

/*
 * The sample of Heßler & Irnich's benchmark the routing tests run (test/floor/plan/sprp.test.ts),
 * and the routes recorded over it (scripts/record-sprp-routes.ts writes them), so that the test
 * and the script cannot disagree on which instances, or on how a walk is written down.
 */

/** Seed 0 of the scattered-storage classes of up to 60 cells and 15 articles (the bench runs every class and seed): 108 per floor. */
export function sprpSample(blocks: 1 | 2): SprpInstance[] {
  return sprpInstances(blocks).filter(({ name, storage }) => storage !== 'unit_F1' && name.endsWith('_0.txt') && cellsAndArticles(name) <= 60 * 15);
}

function cellsAndArticles(name: string): number {
  const [, cells, articles] = /_C(\d+)_a(\d+)_/.exec(name)!;
  return Number(cells) * Number(articles) * (Number(cells) <= 60 && Number(articles) <= 15 ? 1 : Infinity);
}

/** The routes recorded over the sample, by floor (`1`, `2`) and instance name. */
export const RECORDED_ROUTES = new URL('../fixtures/sprp-ss/routes-recorded.json', import.meta.url);

export interface RecordedRoutes {
  /** The commit whose search gave these routes. */
  commit: string;
  routes: Record<'1' | '2', Record<string, RecordedRoute>>;
}

export interface RecordedRoute {
  distance: number;
  exact: boolean;
  /** The stops in walking order, each `code:article×units,…` (see `walkOf`). */
  walk: string[];
}

/** A route's stops in walking order: location code, then each pick's article and units (`3-12:7x2,11x1`). */
export function walkOf(route: ItemRoute<Location>): string[] {
  return route.stops.map(({ place, picks }) => `${place.code}:${picks.map(({ item, quantity }) => `${item.replace(/^article-/, '')}x${quantity}`).join(',')}`);
}

/** A recorded route as a fixture line. */
export function recordedOf(route: ItemRoute<Location>): RecordedRoute {
  return { distance: route.distance, exact: route.exact, walk: walkOf(route) };
}

/**
 * How a route differs from the one recorded, or null when it may stand: a route recorded exact
 * must still be exact with the same distance and walk; one recorded unproven must be no longer
 * (it may come down, or get proven).
 */
export function changeFrom(recorded: RecordedRoute | undefined, route: ItemRoute<Location>): string | null {
  if (!recorded) return 'no route recorded';
  const walk = walkOf(route);
  if (recorded.exact) {
    if (!route.exact) return `recorded exact at ${recorded.distance}, now unproven at ${route.distance}`;
    if (Math.abs(route.distance - recorded.distance) > 1e-6) return `recorded exact at ${recorded.distance}, now exact at ${route.distance}`;
    if (walk.join(' ') !== recorded.walk.join(' ')) return `exact at ${route.distance} as recorded, but walks ${walk.join(' ')} instead of ${recorded.walk.join(' ')}`;
    return null;
  }
  if (route.distance > recorded.distance + 1e-6) return `recorded unproven at ${recorded.distance}, now longer at ${route.distance} (exact ${route.exact})`;
  return null;
}
