import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { freePort } from '../../test/helpers/ports';
import { benchTenant, load, type Measurement } from '../harness';

const WRITE_SECONDS = 10;
/** Time left to the process after start and after the writes, so that RSS is read settled. */
const SETTLE_MS = 3_000;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Memory of the embedded default, as an operator sees it: the resident set (RSS) of `npm start`
 * with no database settings, on a fresh data directory right after start, after WRITE_SECONDS of
 * POST /products at 8 connections, and after a restart on the same directory. The baseline is
 * the engine alone (PGlite opened with the service's settings on the same directory, after one
 * `SELECT 1`): what the service adds on top of it. Linux only (reads /proc).
 * The first start's peak counts the child process that creates the data directory (pglite-create.ts).
 */
export default async function memory(): Promise<Measurement[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pickport-memory-'));
  try {
    const first = await startService(dataDir);
    let idle: Rss, written: Rss, writes: number;
    try {
      idle = await settledRss(first.process);
      const tenant = await benchTenant(first.url);
      let n = 0;
      const result = await load({
        url: `${first.url}/api/v1/public/products`,
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: () => {
          n += 1;
          return JSON.stringify({ externalId: `MEM-${n}`, sku: `MEM-${n}`, name: `Product ${n}`, stock: n % 50 });
        },
        connections: 8,
        durationSeconds: WRITE_SECONDS,
      });
      if (result.non2xx > 0) console.warn(`warning: ${result.non2xx} writes failed`);
      writes = n;
      written = await settledRss(first.process);
    } finally {
      await stop(first.process);
    }
    const restarted = await startService(dataDir);
    let again: Rss;
    try {
      again = await settledRss(restarted.process);
    } finally {
      await stop(restarted.process);
    }
    const engine = await engineAloneRss(dataDir);
    const mb = { unit: 'MB', higherIsBetter: false, baseline: engine };
    return [
      { ...mb, name: 'RSS idle after the first start (fresh data directory); baseline: the engine alone', service: idle.rss, target: '< 400 MB' },
      { ...mb, name: 'first start: peak RSS of the service and the child creating its data directory together (sampled)', service: first.startPeak },
      { ...mb, name: `RSS after ${WRITE_SECONDS} s of POST /products at 8 connections (${writes} products)`, service: written.rss, target: '< 500 MB' },
      { ...mb, name: 'peak RSS of the service process over start and writes', service: written.peak, target: '< 500 MB' },
      { ...mb, name: 'RSS idle after a restart on the same data directory', service: again.rss, target: '< 400 MB' },
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Rss {
  /** Resident set now (VmRSS), MB. */
  rss: number;
  /** Highest resident set so far (VmHWM), MB. */
  peak: number;
}

function rssOf(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  // A process that has exited but is not yet reaped has no memory lines: 0.
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

async function settledRss(child: ChildProcess): Promise<Rss> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return rssOf(child.pid!);
}

/** `npm start` as an operator runs it, without database settings, on `dataDir`. */
async function startService(dataDir: string): Promise<{ process: ChildProcess; url: string; startPeak: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PICKPORT_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  Object.assign(env, { ADMIN_TOKEN, LOG_LEVEL: 'warn' });
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['bin/pickport.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the service exited with ${code} before answering`))));
  const url = `http://127.0.0.1:${port}`;
  let startPeak = 0;
  const answers = (async () => {
    for (;;) {
      startPeak = Math.max(startPeak, treeRss(child.pid!));
      const ok = await fetch(`${url}/api/v1/public/health`).then((r) => r.ok, () => false);
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  await Promise.race([answers, exited]);
  return { process: child, url, startPeak: Math.max(startPeak, rssOf(child.pid!).peak) };
}

/**
 * RSS (MB) of a process and its children together, now: on a first start, the service and the
 * child creating its data directory. Sampled, so the peak it yields is a lower bound.
 */
function treeRss(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    return rssOf(pid).rss + children.reduce((sum, child) => sum + treeRss(child), 0);
  } catch {
    return 0; // it exited meanwhile
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** RSS (MB) of a process that only opens the embedded database on `dataDir` as the service does and runs SELECT 1. */
async function engineAloneRss(dataDir: string): Promise<number> {
  const script = `
    const { openDatabase, pingDatabase } = await import(${JSON.stringify(join(ROOT, 'src/db/index.ts'))});
    const database = await openDatabase({ dataDir: process.argv[1] });
    await pingDatabase(database.db);
    await new Promise((resolve) => setTimeout(resolve, ${SETTLE_MS}));
    console.log(process.memoryUsage().rss);
    process.exit(0);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], { cwd: ROOT });
  return Number(stdout.trim()) / 1048576;
}
