import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMBEDDED_BUFFERS_MB } from '../../src/config';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { freePort } from '../../test/helpers/ports';
import type { Measurement } from '../harness';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Each time is the median of this many runs (one run moves with the machine's load). */
const RUNS = 3;
/** Time left to the process after start, so that RSS is read settled. */
const SETTLE_MS = 3_000;

/**
 * How fast the embedded default starts, as an operator runs it (`node bin/pickport.js`, which
 * `npm start` runs): until GET /health answers, on a fresh data directory and on one it has used
 * before, next to the engine alone (a Node process that only opens PGlite there with the service's
 * settings and runs SELECT 1) creating and reopening it; `pickport --help` next to a bare `node -e 0`.
 * The same service started from its sources through tsx (how it ran before the build) is measured
 * too, for its restart and idle RSS. Builds dist/ first, so that it measures the sources as they are.
 */
export default async function start(): Promise<Measurement[]> {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const engineDir = mkdtempSync(join(tmpdir(), 'pickport-engine-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'pickport-start-'));
  try {
    const engineCreate = await engineAlone(engineDir);
    const engineReopen = medianOf(await repeat(() => engineAlone(engineDir)));

    const first = await startService(BUILT, dataDir);
    await stop(first.child);
    const restart = medianOf(
      await repeat(async () => {
        const started = await startService(BUILT, dataDir);
        await stop(started.child);
        return started;
      }),
    );
    const built = await startService(BUILT, dataDir);
    const builtRss = await settledRss(built.child);
    await stop(built.child);

    const fromSources = await startService(SOURCES, dataDir);
    const sourcesRss = await settledRss(fromSources.child);
    await stop(fromSources.child);

    const help = median(await repeat(() => timed([join(ROOT, 'bin/pickport.js'), '--help'])));
    const helpFromSources = median(await repeat(() => timed([...SOURCES, '--help'])));
    const bareNode = median(await repeat(() => timed(['-e', '0'])));

    const s = { unit: 's', higherIsBetter: false };
    return [
      { ...s, name: 'first start on an empty data directory, until /health answers; baseline: the engine alone creating one', service: first.seconds, baseline: engineCreate.seconds, target: '≤ 1.5× baseline' },
      { ...s, name: 'the same, CPU time (its child creating the directory included)', service: first.cpu, baseline: engineCreate.cpu },
      { ...s, name: 'restart on the same data directory, until /health answers; baseline: the engine alone reopening it', service: restart.seconds, baseline: engineReopen.seconds, target: '≤ baseline + 1.5 s' },
      { ...s, name: 'the same, CPU time', service: restart.cpu, baseline: engineReopen.cpu },
      { ...s, name: 'the same restart, the sources run through tsx (before the build); baseline: the engine alone reopening', service: fromSources.seconds, baseline: engineReopen.seconds },
      { ...s, name: 'the same, CPU time', service: fromSources.cpu, baseline: engineReopen.cpu },
      { ...s, name: '`pickport --help`; baseline: `node -e 0`', service: help, baseline: bareNode, target: '≤ 0.4 s' },
      { ...s, name: '`pickport --help`, the sources run through tsx; baseline: `node -e 0`', service: helpFromSources, baseline: bareNode },
      { unit: 'MB', higherIsBetter: false, name: `RSS idle ${SETTLE_MS / 1000} s after a restart; baseline: the same from the sources through tsx`, service: builtRss, baseline: sourcesRss },
    ];
  } finally {
    rmSync(engineDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Node's arguments running `pickport` from the built code (dist/), and from the sources through tsx. */
const BUILT = [join(ROOT, 'bin/pickport.js')];
const SOURCES = ['--import', 'tsx', '--input-type=module', '-e', `await (await import(${JSON.stringify(join(ROOT, 'src/main.ts'))})).main(['node', 'pickport', ...process.argv.slice(1)]);`, '--'];

async function repeat<T>(run: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < RUNS; i++) results.push(await run());
  return results;
}

/** The run of median wall-clock time. */
function medianOf<T extends { seconds: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)]!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Seconds from spawning `node ...args` to its exit. */
async function timed(args: string[]): Promise<number> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return (performance.now() - startedAt) / 1000;
}

/** Time and CPU from spawning a process that opens (or creates) PGlite in `dir` as the service does, until its SELECT 1 has answered. */
async function engineAlone(dir: string): Promise<Started> {
  const script = `
    const { PGlite } = await import('@electric-sql/pglite');
    const settings = ['-c', 'shared_buffers=${EMBEDDED_BUFFERS_MB}MB'];
    const db = await PGlite.create(process.argv[1], { startParams: [...PGlite.defaultStartParams, ...settings], initDbStartParams: settings });
    await db.query('SELECT 1');
    console.log('ready');
    await db.close();`;
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => String(chunk).includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the engine exited with ${code} before answering`)));
  });
  const started = { seconds: (performance.now() - startedAt) / 1000, cpu: cpuSeconds(child.pid!) };
  await new Promise((resolve) => child.once('exit', resolve));
  return started;
}

/** Wall-clock seconds until a process answered, and the CPU seconds it (and its children) had used by then. */
interface Started {
  seconds: number;
  cpu: number;
}

/**
 * CPU seconds (user and system) used so far by a process and its children that have exited
 * (/proc/<pid>/stat, in clock ticks of 1/100 s). Wall-clock time on a shared machine grows with
 * the others' load; this much less.
 */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // utime, stime, cutime, cstime are fields 14 to 17; the split starts at field 3.
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
}

/** `pickport serve` with no database settings on `dataDir`; resolves once /health answers. */
async function startService(args: string[], dataDir: string): Promise<Started & { child: ChildProcess }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PICKPORT_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...args, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the service exited with ${code} before answering`))));
  const answers = (async () => {
    while (!(await fetch(`http://127.0.0.1:${port}/api/v1/public/health`).then((r) => r.ok, () => false))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await Promise.race([answers, exited]);
  return { child, seconds: (performance.now() - startedAt) / 1000, cpu: cpuSeconds(child.pid!) };
}

async function settledRss(child: ChildProcess): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
