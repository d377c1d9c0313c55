import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeItems, scatteredProblem, type ItemNeed, type Location } from '../../../src/floor/plan/items';
import type { Layout } from '../../../src/floor/plan/layout';
import { chooseScattered, SEARCH_WORK } from '../../../src/floor/plan/scattered';
import { routePicks, shortestRouteLength } from '../../../src/floor/plan/walks';
import { sprpInstances, twoBlockInstances } from '../../helpers/sprp';
import { changeFrom, RECORDED_ROUTES, sprpSample, type RecordedRoutes } from '../../helpers/sprp-sample';

describe("Heßler & Irnich's benchmark", () => {
  it('holds seeds 0–4 of every class: 1,320 instances, each with its one-block and two-block optimum', () => {
    expect(sprpInstances(1)).toHaveLength(1320);
    expect(sprpInstances(2)).toHaveLength(1320);
    expect(new Set(sprpInstances(1).map(({ storage }) => storage))).toEqual(new Set(['unit_F1', 'unit_F2', 'unit_F5', 'unit_F10', 'varying_F2', 'varying_F5', 'varying_F10']));
  });

  it('optimal reproduces every published two-block optimum of dedicated storage, proven exact', () => {
    const instances = twoBlockInstances();
    expect(instances).toHaveLength(240);
    const missed: string[] = [];
    for (const { name, layout, picks, optimum } of instances) {
      const route = routePicks(layout, picks, 'optimal');
      if (!route.exact || Math.abs(route.distance - optimum) > 1e-6 * optimum) missed.push(`${name}: ${route.distance} (exact ${route.exact}), published ${optimum}`);
    }
    expect(missed).toEqual([]);
  });

  // Seed 0 of the scattered-storage classes of up to 60 cells and 15 articles (the bench runs every class and seed).
  for (const blocks of [1, 2] as const) {
    it(`routes for items on ${blocks} block${blocks === 1 ? '' : 's'} never go below a published optimum, reproduce it when exact, come close to it when not, and keep to the routes recorded`, () => {
      const instances = sprpSample(blocks);
      expect(instances).toHaveLength(108);
      /*
       * The routes the search gave on this sample (test/fixtures/sprp-ss/routes-recorded.json, and the
       * commit that gave them): a route recorded exact must stay exact with the same distance and the
       * same walk, one recorded unproven may not get longer. Regenerate with
       * `node --import tsx scripts/record-sprp-routes.ts` only for a deliberate change to the search
       * (src/floor/plan/scattered.ts, walks/*), with its bench figures recorded in docs/benchmarks.md;
       * a restructure that is meant to give the same walks and proofs must pass without it.
       */
      const recorded = (JSON.parse(readFileSync(RECORDED_ROUTES, 'utf8')) as RecordedRoutes).routes[blocks];
      expect(Object.keys(recorded).sort()).toEqual(instances.map(({ name }) => name).sort());
      const changed: string[] = [];
      const below: string[] = [];
      const wrongExact: string[] = [];
      let exact = 0;
      let excess = 0;
      for (const { name, storage, layout, needs, optimum } of instances) {
        const route = routeItems(layout, needs, 'optimal');
        expect(route.short).toEqual([]);
        const change = changeFrom(recorded[name], route);
        if (change) changed.push(`${name}: ${change}`);
        if (route.distance < optimum - 1e-6) below.push(`${name}: ${route.distance} below ${optimum}`);
        excess += route.distance / optimum - 1;
        if (!route.exact) continue;
        exact++;
        // Some published two-block optima of varying demand are below every walk that covers the order (see PUBLISHED_BELOW_EVERY_COVER).
        if (Math.abs(route.distance - optimum) > 1e-6 && !(blocks === 2 && storage.startsWith('varying'))) wrongExact.push(`${name}: ${route.distance} exact, published ${optimum}`);
      }
      expect(changed).toEqual([]);
      expect(below).toEqual([]);
      expect(wrongExact).toEqual([]);
      expect(exact / instances.length).toBeGreaterThanOrEqual(EXACT_SHARE[blocks]);
      expect(excess / instances.length).toBeLessThanOrEqual(MEAN_EXCESS[blocks]);
    }, 600_000);
  }

  // Counted work, not time: the same on every machine. Pricing first proved 3 of the 45 two-block routes within it.
  it('routes for a few articles at about 29 cells each on 50 aisles are proven within an eighth of the allowance, on both floors', () => {
    for (const blocks of [1, 2] as const) {
      const instances = sprpInstances(blocks).filter(({ name, needs }) => /_F10_m50_C\d+_a(3|7)_/.test(name) && needs.reduce((combinations, need) => combinations * (need.quantity + 1), 1) <= 4096);
      expect(instances).toHaveLength(45);
      const unproven = instances.filter(({ layout, needs }) => !chooseScattered(scatteredProblem(layout, needs), EIGHTH_OF_THE_ALLOWANCE).exact).map(({ name }) => name);
      expect(unproven).toEqual([]);
    }
  }, 60_000);

  // The whole allowance and the searches after it: more than the default time limit on a busy machine.
  it('a walk left unproven that reaches far aisles for a few items comes down to the optimum once searched again without them', () => {
    // The moves from the best walk stopped at 562 here, reaching 19 aisles from the depot; the optimum takes everything within 6.
    const instance = sprpInstances(1).find(({ name }) => name === 'varying_F10_m50_C180_a15_2.txt')!;
    const route = routeItems(instance.layout, instance.needs, 'optimal');
    expect(route.distance).toBe(492);
    expect(instance.optimum).toBe(492);
  }, 30_000);

  // Trying every minimal cover is slow, and slower still on a busy machine: more than the default time limit.
  it('a published two-block optimum of varying demand below every walk covering the order is one Pickport proves it cannot reach', () => {
    for (const [name, walk] of PUBLISHED_BELOW_EVERY_COVER) {
      const instance = sprpInstances(2).find((candidate) => candidate.name === name)!;
      expect(instance.optimum).toBeLessThan(walk);
      expect(shortestOverEveryMinimalCover(instance.layout, instance.needs)).toBe(walk);
      const route = routeItems(instance.layout, instance.needs, 'optimal');
      expect(route).toMatchObject({ distance: walk, exact: true });
    }
  }, 120_000);
});

/** An eighth of the work a route may spend. */
const EIGHTH_OF_THE_ALLOWANCE = SEARCH_WORK / 8;

/** The share of the sample proven optimal the tests hold the search to (docs/benchmarks.md has the figures of every seed). */
const EXACT_SHARE = { 1: 0.98, 2: 0.88 };
/**
 * How far above the published optimum the walks may be on average, over the whole sample: over the
 * unproven ones alone the figure rises whenever a walk already at its optimum gets proven.
 */
const MEAN_EXCESS = { 1: 0.00005, 2: 0.025 };

/**
 * Two-block instances of varying demand whose published optimum is below the shortest walk that
 * takes every unit ordered (found by trying every minimal choice of cells: the walk given here).
 */
const PUBLISHED_BELOW_EVERY_COVER: [string, number][] = [
  ['varying_F5_m10_C30_a3_0.txt', 50],
  ['varying_F2_m5_C30_a7_0.txt', 110],
];

/** The shortest walk over every minimal choice of cells that covers each article's quantity (small instances only). */
function shortestOverEveryMinimalCover(layout: Layout, needs: readonly ItemNeed<Location>[]): number {
  const covers = needs.map((need) => {
    const slots = need.slots.filter((slot) => slot.quantity > 0);
    const found: Location[][] = [];
    const extend = (next: number, chosen: (typeof slots)[number][], held: number) => {
      if (held >= need.quantity) {
        if (chosen.every((slot) => held - slot.quantity < need.quantity)) found.push(chosen.map((slot) => slot.place));
        return;
      }
      if (next === slots.length) return;
      extend(next + 1, [...chosen, slots[next]!], held + slots[next]!.quantity);
      extend(next + 1, chosen, held);
    };
    extend(0, [], 0);
    return found;
  });
  let best = Infinity;
  const combine = (item: number, places: Location[]) => {
    if (item === covers.length) best = Math.min(best, shortestRouteLength(layout, places));
    else for (const cover of covers[item]!) combine(item + 1, [...places, ...cover]);
  };
  combine(0, []);
  return best;
}
