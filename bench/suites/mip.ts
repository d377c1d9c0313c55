import highsLoader from 'highs';
import { chooseScattered } from '../../src/floor/plan/scattered';
import { scatteredProblem } from '../../src/floor/plan/items';
import { sprpInstances } from '../../test/helpers/sprp';
import { cpuTimed, percentile, type Measurement } from '../harness';
import { scatteredMip } from '../sprp-mip';

/**
 * Our scattered-storage search against a general MIP solver, HiGHS (WebAssembly, one thread), on
 * Heßler & Irnich's one-block instances (SPRP_EVERY=n: every nth, 4 by default): the share of
 * published optima each proves, and CPU time per instance. HiGHS stops at MIP_SECONDS of wall
 * clock (1 by default), the only limit it offers that bounds its time; it runs without our walk,
 * from nothing. A result below an optimum is a bug and is printed.
 */
export default async function mip(): Promise<Measurement[]> {
  const highs = await highsLoader();
  const every = Number(process.env.SPRP_EVERY ?? 4);
  const seconds = Number(process.env.MIP_SECONDS ?? 1);
  const instances = sprpInstances(1)
    .filter(({ storage }) => storage !== 'unit_F1')
    .filter((_, index) => index % every === 0);
  const results = instances.map((instance) => {
    const problem = scatteredProblem(instance.layout, instance.needs);
    const ours = cpuTimed(() => chooseScattered(problem));
    const solver = cpuTimed(() => highs.solve(scatteredMip(problem), { time_limit: seconds, output_flag: false }));
    const solved = solver.value.Status === 'Optimal' ? solver.value.ObjectiveValue : undefined;
    if (ours.value.distance < instance.optimum - 1e-6 || (solved !== undefined && solved < instance.optimum - 1e-6)) console.log(`  below the optimum: ${instance.name}`);
    return {
      storage: instance.storage,
      ours: { proven: ours.value.exact && close(ours.value.distance, instance.optimum), ms: ours.ms },
      highs: { proven: solved !== undefined && close(solved, instance.optimum), ms: solver.ms },
    };
  });
  console.log(`\n  Scattered storage, one block: ${results.length} instances, our search against HiGHS (${seconds} s)`);
  console.log('  | storage | proven: ours | proven: HiGHS | both | CPU p50 ours / HiGHS (ms) | CPU p99 ours / HiGHS (ms) |\n  |---|---|---|---|---|---|');
  for (const storage of [...new Set(results.map((result) => result.storage)), 'all']) {
    const group = results.filter((result) => storage === 'all' || result.storage === storage);
    const count = (proven: (result: (typeof group)[number]) => boolean) => `${group.filter(proven).length} of ${group.length}`;
    const times = (side: 'ours' | 'highs') => group.map((result) => result[side].ms).sort((a, b) => a - b);
    const at = (p: number) => `${percentile(times('ours'), p).toFixed(0)} / ${percentile(times('highs'), p).toFixed(0)}`;
    console.log(`  | ${storage} | ${count((r) => r.ours.proven)} | ${count((r) => r.highs.proven)} | ${count((r) => r.ours.proven && r.highs.proven)} | ${at(0.5)} | ${at(0.99)} |`);
  }
  const share = (side: 'ours' | 'highs') => (results.filter((result) => result[side].proven).length / results.length) * 100;
  const all = (side: 'ours' | 'highs') => results.map((result) => result[side].ms).sort((a, b) => a - b);
  return [
    { name: 'scattered storage, one block: published optima proven (baseline: HiGHS)', unit: '%', service: share('ours'), baseline: share('highs'), higherIsBetter: true, target: 'at least 99%' },
    { name: 'scattered storage, one block: CPU p50 (baseline: HiGHS)', unit: 'ms', service: percentile(all('ours'), 0.5), baseline: percentile(all('highs'), 0.5), higherIsBetter: false, target: 'under 20 ms' },
    { name: 'scattered storage, one block: CPU p99 (baseline: HiGHS)', unit: 'ms', service: percentile(all('ours'), 0.99), baseline: percentile(all('highs'), 0.99), higherIsBetter: false, target: 'under 1 s' },
  ];
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, b);
