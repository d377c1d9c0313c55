import { chooseWave, type WaveCandidate } from '../../src/floor/plan/batching';
import { POLICIES, type Layout, type Place, type Policy } from '../../src/floor/plan/layout';
import { routePicks } from '../../src/floor/plan/walks';
import { routeItems } from '../../src/floor/plan/items';
import { sprpInstances, twoBlockInstances, type SprpInstance } from '../../test/helpers/sprp';
import { mulberry32 } from '../../src/floor/plan/random';
import { cpuTimed, percentile, type Measurement } from '../harness';
import { fefoItemNeeds, LOT_MIN_SHELF_LIFE_DAYS, withLots } from '../lots';

const between = (next: () => number, min: number, max: number) => min + Math.floor(next() * (max - min + 1));
const placeOn = (layout: Layout, next: () => number): Place => ({
  aisle: between(next, 1, layout.aisles),
  position: between(next, 1, layout.positionsPerAisle),
});
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Median milliseconds of `fn` over `runs` calls (after as many to warm up). */
function medianMs(runs: number, fn: (run: number) => unknown): number {
  for (let run = 0; run < runs; run++) fn(run);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    fn(run);
    times.push(performance.now() - start);
  }
  return median(times);
}

const CLASSIC: Omit<Layout, 'depotAisle'> = { aisles: 10, positionsPerAisle: 30, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1 };
const HEURISTICS = POLICIES.filter((policy) => policy !== 'optimal');

/** 1. Mean length of each heuristic above optimal on the classic layout, random depot aisle, 500 instances per pick count. */
function routeQuality(): Measurement[] {
  const next = mulberry32(1);
  const rows: string[] = [];
  const measurements: Measurement[] = [];
  for (const count of [3, 7, 15, 30]) {
    const totals = new Map<Policy, number>(POLICIES.map((policy) => [policy, 0]));
    for (let instance = 0; instance < 500; instance++) {
      const layout: Layout = { ...CLASSIC, depotAisle: between(next, 1, CLASSIC.aisles) };
      const picks = Array.from({ length: count }, () => placeOn(layout, next));
      for (const policy of POLICIES) totals.set(policy, totals.get(policy)! + routePicks(layout, picks, policy).distance);
    }
    const optimal = totals.get('optimal')! / 500;
    rows.push(`| ${count} | ${optimal.toFixed(1)} | ${HEURISTICS.map((policy) => `${((totals.get(policy)! / 500 / optimal - 1) * 100).toFixed(1)}%`).join(' | ')} |`);
    measurements.push({ name: `mean route, ${count} picks, optimal vs s-shape`, unit: 'length', service: optimal, baseline: totals.get('s-shape')! / 500, higherIsBetter: false });
  }
  console.log('\n  Route quality, classic layout (10 aisles x 30 positions, random depot aisle), 500 instances each: mean length above optimal');
  console.log(`  | picks | optimal (mean) | ${HEURISTICS.join(' | ')} |\n  |---|---|${HEURISTICS.map(() => '---|').join('')}`);
  for (const row of rows) console.log(`  ${row}`);
  return measurements;
}

/** 2. Time of one optimal route through 200 picks, against S-shape on the same picks; and its growth with aisles. */
function routingTime(): Measurement[] {
  const timeOf = (aisles: number, policy: Policy) => {
    const layout: Layout = { ...CLASSIC, aisles, depotAisle: 1 };
    const next = mulberry32(aisles);
    const instances = Array.from({ length: 50 }, () => Array.from({ length: 200 }, () => placeOn(layout, next)));
    return medianMs(200, (run) => routePicks(layout, instances[run % instances.length]!, policy));
  };
  const growth = [25, 50, 100, 200, 400, 800].map((aisles) => ({ aisles, optimal: timeOf(aisles, 'optimal'), sShape: timeOf(aisles, 's-shape') }));
  console.log('\n  Routing time, 200 picks, median of 200 routes');
  console.log('  | aisles | optimal (ms) | µs per aisle added since the row above | s-shape (ms) |\n  |---|---|---|---|');
  growth.forEach(({ aisles, optimal, sShape }, i) => {
    const above = growth[i - 1];
    const perAisle = above ? (((optimal - above.optimal) / (aisles - above.aisles)) * 1000).toFixed(2) : '';
    console.log(`  | ${aisles} | ${optimal.toFixed(3)} | ${perAisle} | ${sShape.toFixed(3)} |`);
  });
  const at100 = growth.find((row) => row.aisles === 100)!;
  const at800 = growth.find((row) => row.aisles === 800)!;
  return [
    { name: 'optimal route, 100 aisles x 200 picks, vs s-shape', unit: 'ms', service: at100.optimal, baseline: at100.sShape, higherIsBetter: false, target: 'under 5 ms' },
    {
      name: 'optimal route, 800 aisles vs 100 aisles (200 picks)',
      unit: 'ms',
      service: at800.optimal,
      baseline: at100.optimal,
      higherIsBetter: false,
      target: 'linear: at most 8x',
    },
  ];
}

/** 3. Travel per order over a stream of 1,000 orders of 1 to 5 lines: single orders, first-come waves of 8, chosen waves of 8. */
function travelPerOrder(): Measurement[] {
  const layout: Layout = { aisles: 10, positionsPerAisle: 45, aisleSpacing: 5, positionSpacing: 1, crossAisleOffset: 1.5, depotAisle: 1 };
  const next = mulberry32(3);
  const orders: WaveCandidate[] = Array.from({ length: 1_000 }, (_, i) => {
    const places = Array.from({ length: between(next, 1, 5) }, () => placeOn(layout, next));
    return { id: `order-${i}`, units: places.length, places };
  });
  const limits = { maxOrders: 8, maxItems: 40 };
  const perOrder = (waves: WaveCandidate[][], policy: Policy) =>
    waves.reduce((sum, wave) => sum + routePicks(layout, wave.flatMap((order) => order.places), policy).distance, 0) / orders.length;
  /** Waves chosen from the oldest `pool` pending orders (all of one priority: oldest first) until none is left. */
  const chosenWaves = (pool: number) => {
    let pending = orders;
    const waves: WaveCandidate[][] = [];
    while (pending.length > 0) {
      const ids = new Set(chooseWave(layout, pending.slice(0, pool), limits));
      waves.push(pending.filter((order) => ids.has(order.id)));
      pending = pending.filter((order) => !ids.has(order.id));
    }
    return waves;
  };
  const singles = orders.map((order) => [order]);
  const firstCome = Array.from({ length: orders.length / 8 }, (_, i) => orders.slice(i * 8, i * 8 + 8));
  const sShape = perOrder(singles, 's-shape');
  const rows = [
    { name: 'one at a time, s-shape', distance: sShape },
    { name: 'one at a time, optimal', distance: perOrder(singles, 'optimal') },
    { name: 'waves of 8 first come first served, optimal', distance: perOrder(firstCome, 'optimal') },
    { name: 'waves of 8 chosen from 500 pending, optimal', distance: perOrder(chosenWaves(500), 'optimal') },
    { name: 'waves of 8 chosen from 50 pending, optimal', distance: perOrder(chosenWaves(50), 'optimal') },
  ];
  console.log('\n  Travel per order, 1,000 orders of 1-5 lines, 10 aisles x 45 positions (spacing 5/1, offset 1.5, depot aisle 1)');
  console.log('  | how | distance per order | of the s-shape baseline |\n  |---|---|---|');
  for (const row of rows) console.log(`  | ${row.name} | ${row.distance.toFixed(1)} | ${((row.distance / sShape) * 100).toFixed(1)}% |`);
  const [, singleOptimal, firstComeOptimal, chosen500] = rows;
  const candidates = orders.slice(0, 500);
  return [
    { name: 'travel per order, single orders: optimal vs s-shape', unit: 'length', service: singleOptimal!.distance, baseline: sShape, higherIsBetter: false },
    { name: 'travel per order, first-come waves of 8 vs single s-shape', unit: 'length', service: firstComeOptimal!.distance, baseline: sShape, higherIsBetter: false },
    {
      name: 'travel per order, chosen waves of 8 vs single s-shape',
      unit: 'length',
      service: chosen500!.distance,
      baseline: sShape,
      higherIsBetter: false,
      target: 'at most 0.35x',
    },
    {
      name: 'travel per order, chosen waves vs first-come waves',
      unit: 'length',
      service: chosen500!.distance,
      baseline: firstComeOptimal!.distance,
      higherIsBetter: false,
      target: 'below 1x',
    },
    {
      name: 'chooseWave on 500 candidates vs routing the first 8 once',
      unit: 'ms',
      service: medianMs(20, () => chooseWave(layout, candidates, limits)),
      baseline: medianMs(20, () => routePicks(layout, candidates.slice(0, 8).flatMap((order) => order.places), 'optimal')),
      higherIsBetter: false,
      target: 'a small part of 100 ms',
    },
  ];
}

/**
 * 4. Heßler & Irnich's 240 two-block instances (5-50 aisles, 30-180 positions, a middle cross aisle,
 * 3-30 picks): optimal's time per route in-process, p50 and p99 over 10 rounds after one to warm
 * up, against S-shape's; and how many published optima it reproduces, proven exact.
 */
function twoBlockRoutes(): Measurement[] {
  const instances = twoBlockInstances();
  const times = (policy: Policy) => {
    const result: number[] = [];
    for (let round = 0; round < 11; round++) {
      for (const { layout, picks } of instances) {
        const start = performance.now();
        routePicks(layout, picks, policy);
        if (round > 0) result.push(performance.now() - start);
      }
    }
    return result.sort((a, b) => a - b);
  };
  const [optimal, sShape] = [times('optimal'), times('s-shape')];
  const reproduced = instances.filter(({ layout, picks, optimum }) => {
    const route = routePicks(layout, picks, 'optimal');
    return route.exact && Math.abs(route.distance - optimum) <= 1e-6 * optimum;
  }).length;
  console.log(`\n  Two blocks, Heßler & Irnich's ${instances.length} instances: ${reproduced} published optima reproduced, exact`);
  console.log(`  | policy | p50 (ms) | p99 (ms) |\n  |---|---|---|`);
  console.log(`  | optimal | ${percentile(optimal, 0.5).toFixed(3)} | ${percentile(optimal, 0.99).toFixed(3)} |`);
  console.log(`  | s-shape | ${percentile(sShape, 0.5).toFixed(3)} | ${percentile(sShape, 0.99).toFixed(3)} |`);
  return [
    { name: 'optimal route, two blocks (240 published instances), p50', unit: 'ms', service: percentile(optimal, 0.5), baseline: percentile(sShape, 0.5), higherIsBetter: false },
    { name: 'optimal route, two blocks (240 published instances), p99', unit: 'ms', service: percentile(optimal, 0.99), baseline: percentile(sShape, 0.99), higherIsBetter: false, target: 'under 5 ms' },
  ];
}

/**
 * 6. Routes for items over scattered slots on Heßler & Irnich's instances (seeds 0–4 of every
 * class, one and two blocks), in-process: how many published optima `optimal` reproduces with
 * exact: true, whether any result is below an optimum (a bug), the mean gap of the rest, and the
 * CPU time per route, by class. Against the nearest-slots choice walked by S-shape.
 * SPRP_EVERY=n takes every nth instance of each floor only (4 gives the 270 per floor
 * docs/benchmarks.md compares variants on).
 */
function scatteredRoutes(): Measurement[] {
  const measurements: Measurement[] = [];
  const every = Number(process.env.SPRP_EVERY ?? 1);
  for (const blocks of [1, 2] as const) {
    const instances = sprpInstances(blocks)
      .filter(({ storage }) => storage !== 'unit_F1')
      .filter((_, index) => index % every === 0);
    const results = instances.map((instance) => {
      const { value: route, ms } = cpuTimed(() => routeItems(instance.layout, instance.needs, 'optimal'));
      const { value: nearest, ms: nearestMs } = cpuTimed(() => routeItems(instance.layout, instance.needs, 's-shape').distance);
      return { instance, route, ms, nearest, nearestMs };
    });
    const byClass = new Map<string, typeof results>();
    for (const result of results) {
      const key = classOf(result.instance);
      byClass.set(key, [...(byClass.get(key) ?? []), result]);
    }
    console.log(`\n  Scattered storage, ${blocks} block${blocks === 1 ? '' : 's'}: ${instances.length} instances, optimal`);
    console.log('  | class (storage, aisles x cells, articles) | exact and equal | below an optimum | mean gap of the rest | CPU p50 (ms) | CPU p99 (ms) |\n  |---|---|---|---|---|---|');
    for (const [key, group] of [...byClass].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) console.log(`  | ${key} | ${summary(group).join(' | ')} |`);
    const [reproduced, below, gap, p50, p99] = summary(results);
    console.log(`  | all | ${reproduced} | ${below} | ${gap} | ${p50} | ${p99} |`);
    const times = results.map(({ ms }) => ms).sort((a, b) => a - b);
    const nearestTimes = results.map(({ nearestMs }) => nearestMs).sort((a, b) => a - b);
    const share = results.filter(({ route, instance }) => route.exact && close(route.distance, instance.optimum)).length / results.length;
    const nearestMean = results.reduce((sum, { nearest }) => sum + nearest, 0) / results.length;
    const optimalMean = results.reduce((sum, { route }) => sum + route.distance, 0) / results.length;
    measurements.push(
      { name: `scattered storage, ${blocks} block(s): published optima reproduced with exact`, unit: '%', service: share * 100, baseline: 100, higherIsBetter: true, target: 'at least 99%' },
      { name: `scattered storage, ${blocks} block(s): mean route vs nearest slots by S-shape`, unit: 'length', service: optimalMean, baseline: nearestMean, higherIsBetter: false },
      { name: `scattered storage, ${blocks} block(s): route p50 (baseline: nearest slots by S-shape)`, unit: 'ms', service: percentileOf(times, 0.5), baseline: percentileOf(nearestTimes, 0.5), higherIsBetter: false, target: 'under 20 ms' },
      { name: `scattered storage, ${blocks} block(s): route p99 (baseline: nearest slots by S-shape)`, unit: 'ms', service: percentileOf(times, 0.99), baseline: percentileOf(nearestTimes, 0.99), higherIsBetter: false, target: 'under 1 s' },
      ...scatteredRoutesWithLots(blocks, results),
    );
  }
  return measurements;
}

/** Every how many of a floor's scattered instances are routed again with lots. */
const LOT_EVERY = 4;

/**
 * 7. The same routes under first expiry, first out: every LOT_EVERY-th instance with a lot and an
 * expiry date at each slot (bench/lots.ts, seeded by the instance's name, so both floors get the
 * same lots), its order taken as a route for items takes it (fefoItemNeeds), beside the same
 * instances without lots from this run: the share proven exact and CPU p50 and p99. First expiry,
 * first out only narrows the slots a line may take, so it should not make routes slower to prove.
 */
function scatteredRoutesWithLots(blocks: 1 | 2, results: readonly { instance: SprpInstance; route: { exact: boolean }; ms: number }[]): Measurement[] {
  const without = results.filter((_, index) => index % LOT_EVERY === 0);
  const lotted = without.map(({ instance }) => {
    const needs = fefoItemNeeds(withLots(instance.needs, seedOf(instance.name)));
    const { value: route, ms } = cpuTimed(() => routeItems(instance.layout, needs, 'optimal'));
    return { route, ms, slots: needs.reduce((sum, need) => sum + need.slots.length, 0) };
  });
  const proven = (group: readonly { route: { exact: boolean } }[]) => group.filter(({ route }) => route.exact).length / group.length;
  const timesOf = (group: readonly { ms: number }[]) => group.map(({ ms }) => ms).sort((a, b) => a - b);
  const slotsOf = (instance: SprpInstance) => instance.needs.reduce((sum, need) => sum + need.slots.length, 0);
  const rows = [
    { name: 'without lots', share: proven(without), times: timesOf(without), slots: without.reduce((sum, { instance }) => sum + slotsOf(instance), 0) },
    { name: `with lots (FEFO, ${LOT_MIN_SHELF_LIFE_DAYS} days' shelf life)`, share: proven(lotted), times: timesOf(lotted), slots: lotted.reduce((sum, { slots }) => sum + slots, 0) },
  ];
  console.log(`\n  Scattered storage under FEFO, ${blocks} block${blocks === 1 ? '' : 's'}: every ${LOT_EVERY}th instance (${without.length}), optimal`);
  console.log('  | lots | proven exact | slots a route may take from (mean) | CPU p50 (ms) | CPU p99 (ms) | CPU in all (s) |\n  |---|---|---|---|---|---|');
  for (const row of rows) {
    const total = row.times.reduce((sum, ms) => sum + ms, 0) / 1000;
    console.log(`  | ${row.name} | ${(row.share * 100).toFixed(1)}% | ${(row.slots / without.length).toFixed(1)} | ${percentileOf(row.times, 0.5).toFixed(1)} | ${percentileOf(row.times, 0.99).toFixed(1)} | ${total.toFixed(1)} |`);
  }
  // Instance by instance: FEFO changes the problem, so a few routes may take longer than without lots.
  const slower = lotted.filter(({ ms }, i) => ms > 2 * without[i]!.ms && ms > without[i]!.ms + 10).length;
  const lost = lotted.filter(({ route }, i) => without[i]!.route.exact && !route.exact).length;
  const gained = lotted.filter(({ route }, i) => !without[i]!.route.exact && route.exact).length;
  console.log(`  with lots, instance by instance: ${slower} over twice as slow (and 10 ms more), ${lost} proven only without lots, ${gained} only with`);
  const [plain, fefo] = rows as [(typeof rows)[number], (typeof rows)[number]];
  return [
    { name: `scattered storage under FEFO, ${blocks} block(s): proven exact (baseline: without lots)`, unit: '%', service: fefo.share * 100, baseline: plain.share * 100, higherIsBetter: true, target: 'at least the baseline' },
    { name: `scattered storage under FEFO, ${blocks} block(s): route p50 (baseline: without lots)`, unit: 'ms', service: percentileOf(fefo.times, 0.5), baseline: percentileOf(plain.times, 0.5), higherIsBetter: false, target: 'at most the baseline' },
    { name: `scattered storage under FEFO, ${blocks} block(s): route p99 (baseline: without lots)`, unit: 'ms', service: percentileOf(fefo.times, 0.99), baseline: percentileOf(plain.times, 0.99), higherIsBetter: false, target: 'at most the baseline' },
  ];
}

/** A seed from an instance's name (FNV-1a). */
function seedOf(name: string): number {
  let hash = 0x811c9dc5;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, b);
const percentileOf = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** `varying_F5 m25 x C60, 15 articles`. */
function classOf({ name, storage }: SprpInstance): string {
  const [, aisles, cells, articles] = /_m(\d+)_C(\d+)_a(\d+)_/.exec(name)!;
  return `${storage} m${aisles} x C${cells}, ${articles} articles`;
}

/** Reproduced with exact (of all), below an optimum, mean gap of the rest, p50 and p99 ms. */
function summary(group: readonly { instance: SprpInstance; route: { distance: number; exact: boolean }; ms: number }[]): string[] {
  const reproduced = group.filter(({ route, instance }) => route.exact && close(route.distance, instance.optimum)).length;
  const below = group.filter(({ route, instance }) => route.distance < instance.optimum - 1e-6).length;
  const rest = group.filter(({ route, instance }) => !(route.exact && close(route.distance, instance.optimum)));
  const gap = rest.length === 0 ? '–' : `${((rest.reduce((sum, { route, instance }) => sum + route.distance / instance.optimum - 1, 0) / rest.length) * 100).toFixed(2)}%`;
  const times = group.map(({ ms }) => ms).sort((a, b) => a - b);
  return [`${reproduced} of ${group.length}`, `${below}`, gap, percentileOf(times, 0.5).toFixed(1), percentileOf(times, 0.99).toFixed(1)];
}

/** Routing and batching: pure computation, no database. */
export default async function floor(): Promise<Measurement[]> {
  return [...routeQuality(), ...routingTime(), ...travelPerOrder(), ...twoBlockRoutes(), ...scatteredRoutes()];
}
