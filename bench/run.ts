import { availableParallelism } from 'node:os';
import type { Measurement } from './harness';

/**
 * `npm run bench [-- name...]`: runs each suite of bench/suites (or those named) and prints every
 * figure next to its baseline from the same run. Figures go into docs/benchmarks.md by hand.
 */
const suites: Record<string, () => Promise<{ default: () => Promise<Measurement[]> }>> = {
  core: () => import('./suites/core'),
  catalog: () => import('./suites/catalog'),
  limits: () => import('./suites/limits'),
  orders: () => import('./suites/orders'),
  waiting: () => import('./suites/waiting'),
  webhooks: () => import('./suites/webhooks'),
  floor: () => import('./suites/floor'),
  mip: () => import('./suites/mip'),
  waves: () => import('./suites/waves'),
  slotting: () => import('./suites/slotting'),
  insight: () => import('./suites/insight'),
  retention: () => import('./suites/retention'),
  sequential: () => import('./suites/sequential'),
  'fresh-import': () => import('./suites/fresh-import'),
  memory: () => import('./suites/memory'),
  start: () => import('./suites/start'),
  planning: () => import('./suites/planning'),
  shift: () => import('./suites/shift'),
};

const wanted = process.argv.slice(2);
/** Run only when named: a measure of a choice made (a MIP solver against our search), not of the service. */
const onlyWhenNamed = new Set(['mip']);
const selected = wanted.length > 0 ? wanted : Object.keys(suites).filter((name) => !onlyWhenNamed.has(name));
const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)';
console.log(`Pickport benchmarks: ${availableParallelism()} cores, Node ${process.version}, database ${database}, Redis ${process.env.REDIS_URL ? 'on' : 'off'}\n`);

const rows: string[] = [];
for (const name of selected) {
  const suite = suites[name];
  if (!suite) {
    console.error(`Unknown suite ${name}; known: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  console.log(`running ${name}…`);
  for (const m of await (await suite()).default()) {
    const ratio = m.service / m.baseline;
    const ratioText = m.higherIsBetter ? `${(ratio * 100).toFixed(0)}% of baseline` : `${ratio.toFixed(2)}× baseline`;
    const row = `| ${name} | ${m.name} | ${format(m.service)} ${m.unit} | ${format(m.baseline)} ${m.unit} | ${ratioText} | ${m.target ?? ''} |`;
    console.log(row);
    rows.push(row);
  }
}
console.log('\n| suite | measure | service | baseline | ratio | target |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));
process.exit(0);

function format(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
}
