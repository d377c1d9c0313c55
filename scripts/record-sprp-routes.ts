/**
 * Records the routes `routeItems(layout, needs, 'optimal')` gives over the sample of Heßler &
 * Irnich's benchmark that test/floor/plan/sprp.test.ts runs (`sprpSample`, on one block and on
 * two), into test/fixtures/sprp-ss/routes-recorded.json: for each floor and instance its distance,
 * whether it is proven, and its walk (`walkOf`). The test holds every route to the recorded one:
 * an exact route must stay exact with the same distance and walk, an unproven one may not get longer.
 *
 *   node --import tsx scripts/record-sprp-routes.ts
 *
 * Record again only for a deliberate change to the search (src/floor/plan/scattered.ts, walks/*)
 * whose bench figures (`npm run bench`, docs/benchmarks.md) are recorded with it. The search's
 * sources must be committed: the fixture names the commit that gave it. Several minutes of CPU.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { routeItems } from '../src/floor/plan/items';
import { RECORDED_ROUTES, recordedOf, sprpSample, type RecordedRoute } from '../test/helpers/sprp-sample';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

const changed = git('status', '--porcelain', '--untracked-files=no', '--', 'src');
if (changed !== '' && !process.argv.includes('--dirty')) {
  console.error(`src/ has changes not committed; commit them first (or pass --dirty):\n${changed}`);
  process.exit(1);
}
const commit = git('rev-parse', 'HEAD') + (changed === '' ? '' : '+dirty');

const routes: Record<'1' | '2', [string, RecordedRoute][]> = { 1: [], 2: [] };
for (const blocks of [1, 2] as const) {
  const started = performance.now();
  for (const { name, layout, needs } of sprpSample(blocks)) routes[blocks].push([name, recordedOf(routeItems(layout, needs, 'optimal'))]);
  const exact = routes[blocks].filter(([, route]) => route.exact).length;
  console.log(`${blocks} block${blocks === 1 ? '' : 's'}: ${routes[blocks].length} routes, ${exact} exact, ${routes[blocks].length - exact} unproven (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

// One route a line, so that a new recording shows in a diff as the instances whose routes changed.
const floor = (entries: [string, RecordedRoute][]) => `{\n${entries.map(([name, route]) => `      ${JSON.stringify(name)}: ${JSON.stringify(route)}`).join(',\n')}\n    }`;
writeFileSync(RECORDED_ROUTES, `{\n  "commit": ${JSON.stringify(commit)},\n  "routes": {\n    "1": ${floor(routes[1])},\n    "2": ${floor(routes[2])}\n  }\n}\n`);
console.log(`wrote ${fileURLToPath(RECORDED_ROUTES)} (commit ${commit})`);
