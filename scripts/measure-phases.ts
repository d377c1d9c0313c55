/**
 * Measures what each phase of the search for items at several places (`PHASES` in
 * src/floor/plan/scattered.ts) gains: routes of Heßler & Irnich's benchmark are searched with every
 * phase, then with each phase left out in turn (its share going to the phases after it), and for
 * each variant it prints the routes proven, the total walk length, the CPU seconds and the most
 * work spent as a share of the allowance. A phase after the proof only runs on routes the proof
 * leaves unproven, so those variants search only those routes again (the others are the same by
 * construction) and their CPU is over those routes.
 *
 *   node --import tsx scripts/measure-phases.ts [--sets sample,large] [--without all|none|name,...]
 *     [--share name=fraction ...] [--work units] [--json file] [--against file] [--only file]
 *
 * Sets: `sample` is the sample test/floor/plan/sprp.test.ts routes (`sprpSample`, 108 a floor);
 * `large` the F10 instances on 50 aisles with 180 cells or 30 articles, seeds 0–4 (60 a floor),
 * where most unproven walks are. `--against` compares each route with a JSON file this script
 * wrote (`--json`): walks longer and shorter, proofs lost and gained. Minutes of CPU: the
 * machine's other work changes the CPU figures, not the walks.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { scatteredProblem } from '../src/floor/plan/items';
import type { Phase } from '../src/floor/plan/phases';
import { chooseScattered, PHASES, SEARCH_WORK } from '../src/floor/plan/scattered';
import { sprpInstances, type SprpInstance } from '../test/helpers/sprp';
import { sprpSample } from '../test/helpers/sprp-sample';

interface RouteResult {
  distance: number;
  exact: boolean;
  cpu: number;
  /** Work spent as a share of the allowance. */
  spent: number;
  /** By phase name: the work it spent (share of the allowance) and its CPU seconds. */
  phases: Record<string, { work: number; cpu: number }>;
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? undefined : args[at + 1];
};
const work = Number(option('work') ?? SEARCH_WORK);
const sets = (option('sets') ?? 'sample,large').split(',');
const shares = new Map(
  args.flatMap((arg, i) => (args[i - 1] === '--share' ? [arg] : [])).map((pair) => {
    const [name, value] = pair.split('=');
    return [name!, Number(value)];
  }),
);
const phases: Phase[] = PHASES.map((phase) => ({ ...phase, share: shares.get(phase.name) ?? phase.share }));
const unknown = [...shares.keys()].filter((name) => !phases.some((phase) => phase.name === name));
if (unknown.length > 0) throw new Error(`no phase named ${unknown.join(', ')}; the phases: ${phases.map(({ name }) => name).join(', ')}`);
const withoutOption = option('without') ?? 'all';
const leftOut = withoutOption === 'all' ? phases.map(({ name }) => name) : withoutOption === 'none' ? [] : withoutOption.split(',');

/** `--only file`: the routes left unproven in a file this script wrote (to try shares on them quickly). */
const only = option('only');
const onlyKeys = only && new Set(Object.entries((JSON.parse(readFileSync(only, 'utf8')) as Record<string, Record<string, RouteResult>>).all!).flatMap(([key, result]) => (result.exact ? [] : [key])));

function instances(): { key: string; instance: SprpInstance }[] {
  const chosen: { key: string; instance: SprpInstance }[] = [];
  for (const blocks of [1, 2] as const) {
    if (sets.includes('sample')) for (const instance of sprpSample(blocks)) chosen.push({ key: `${blocks}:${instance.name}`, instance });
    if (sets.includes('large')) {
      for (const instance of sprpInstances(blocks).filter(({ name }) => /_F10_m50_(C180_a\d+|C\d+_a30)_\d\.txt$/.test(name))) chosen.push({ key: `${blocks}:${instance.name}`, instance });
    }
  }
  return onlyKeys ? chosen.filter(({ key }) => onlyKeys.has(key)) : chosen;
}

function cpuSeconds<T>(run: () => T): { value: T; cpu: number } {
  const before = process.cpuUsage();
  const value = run();
  const { user, system } = process.cpuUsage(before);
  return { value, cpu: (user + system) / 1e6 };
}

function route(instance: SprpInstance, used: readonly Phase[]): RouteResult {
  const record: RouteResult['phases'] = {};
  // Phases run again inside another (on the narrower floors) count in that one.
  let depth = 0;
  const timed = used.map(
    (phase): Phase => ({
      ...phase,
      run: (context, budget, earlier) => {
        depth++;
        const { value, cpu } = cpuSeconds(() => phase.run(context, budget, earlier));
        depth--;
        if (depth === 0) {
          const seen = (record[phase.name] ??= { work: 0, cpu: 0 });
          seen.work += budget.used / work;
          seen.cpu += cpu;
        }
        return value;
      },
    }),
  );
  const problem = scatteredProblem(instance.layout, instance.needs);
  const { value: choice, cpu } = cpuSeconds(() => chooseScattered(problem, work, timed));
  const spent = Object.values(record).reduce((sum, { work }) => sum + work, 0);
  return { distance: choice.distance, exact: choice.exact, cpu, spent, phases: record };
}

const chosen = instances();
const results: Record<string, Record<string, RouteResult>> = { all: {} };
const started = performance.now();
for (const { key, instance } of chosen) results.all![key] = route(instance, phases);
console.log(`${chosen.length} routes (${sets.join(', ')}), allowance ${work.toLocaleString('en')} work units, shares ${phases.map(({ name, share }) => `${name} ${share}`).join(', ')}; every phase: ${((performance.now() - started) / 1000).toFixed(0)} s`);
const unproven = chosen.filter(({ key }) => !results.all![key]!.exact);
for (const name of leftOut) {
  const used = phases.filter((phase) => phase.name !== name);
  const searched = name === phases[0]!.name ? chosen : unproven;
  const variant: Record<string, RouteResult> = {};
  for (const { key, instance } of searched) variant[key] = route(instance, used);
  results[`without ${name}`] = variant;
}

/** Figures of a variant: over every route (the routes not searched again as with every phase), CPU over those searched. */
function summary(variant: Record<string, RouteResult>) {
  const keys = chosen.map(({ key }) => key);
  const at = (key: string) => variant[key] ?? results.all![key]!;
  const searched = Object.keys(variant);
  return {
    proofs: keys.filter((key) => at(key).exact).length,
    length: keys.reduce((sum, key) => sum + at(key).distance, 0),
    unprovenLength: unproven.reduce((sum, { key }) => sum + at(key).distance, 0),
    cpu: searched.reduce((sum, key) => sum + variant[key]!.cpu, 0),
    unprovenCpu: unproven.reduce((sum, { key }) => sum + at(key).cpu, 0),
    mostSpent: Math.max(...searched.map((key) => variant[key]!.spent)),
    shorter: keys.filter((key) => at(key).distance < results.all![key]!.distance - 1e-6).length,
    longer: keys.filter((key) => at(key).distance > results.all![key]!.distance + 1e-6).length,
  };
}

const all = summary(results.all!);
console.log(`${unproven.length} routes unproven with every phase`);
console.log('| variant | proofs | total length | length of the unproven | walks longer / shorter than with every phase | CPU s (routes searched) | CPU s on the unproven | most work spent |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [name, variant] of Object.entries(results)) {
  const s = summary(variant);
  console.log(`| ${name} | ${s.proofs} | ${s.length} | ${s.unprovenLength} | ${s.longer} / ${s.shorter} | ${s.cpu.toFixed(1)} | ${s.unprovenCpu.toFixed(1)} | ${(s.mostSpent * 100).toFixed(1)}% |`);
}
console.log(`\nEvery phase, on the ${unproven.length} unproven routes: work (share of the allowance, mean) and CPU s by phase`);
for (const { name } of phases) {
  const work = unproven.reduce((sum, { key }) => sum + (results.all![key]!.phases[name]?.work ?? 0), 0) / Math.max(1, unproven.length);
  const cpu = unproven.reduce((sum, { key }) => sum + (results.all![key]!.phases[name]?.cpu ?? 0), 0);
  console.log(`  ${name}: ${(work * 100).toFixed(1)}%, ${cpu.toFixed(1)} s`);
}
console.log(`(with every phase: ${all.proofs} proofs, total length ${all.length})`);

const against = option('against');
if (against) {
  const before = JSON.parse(readFileSync(against, 'utf8')) as Record<string, Record<string, RouteResult>>;
  for (const [name, variant] of Object.entries(results)) {
    const earlier = before[name] ?? before.all!;
    const keys = chosen.map(({ key }) => key).filter((key) => earlier[key]);
    const at = (key: string) => variant[key] ?? results.all![key]!;
    const longer = keys.filter((key) => at(key).distance > earlier[key]!.distance + 1e-6);
    const shorter = keys.filter((key) => at(key).distance < earlier[key]!.distance - 1e-6);
    const lost = keys.filter((key) => earlier[key]!.exact && !at(key).exact);
    const gained = keys.filter((key) => !earlier[key]!.exact && at(key).exact);
    const delta = keys.reduce((sum, key) => sum + at(key).distance - earlier[key]!.distance, 0);
    console.log(`against ${against}, ${name}: ${longer.length} longer, ${shorter.length} shorter (total ${delta >= 0 ? '+' : ''}${delta}), proofs lost ${lost.length}, gained ${gained.length}`);
    if (name === `without ${phases[0]!.name}`) continue;
    for (const key of longer) console.log(`  longer: ${key} ${earlier[key]!.distance} → ${at(key).distance}`);
    for (const key of lost) console.log(`  proof lost: ${key}`);
  }
}
const json = option('json');
if (json) writeFileSync(json, JSON.stringify(results));
