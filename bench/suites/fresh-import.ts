import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { freePort } from '../../test/helpers/ports';
import { benchTenant, load, type LoadResult, type Measurement } from '../harness';

const SECONDS = 5;
const ROUNDS = 6;
const CONNECTIONS = 32;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The reference route, beside the project's folder (shared/benchmarks) wherever it is checked out. */
const HAND_WRITTEN = join(ROOT, '..', 'shared', 'benchmarks', 'hand-written-route.mjs');
/** `FRESH_IMPORT_ONLY=products`: the new products' rounds alone, without the orders after them. */
const PRODUCTS_ONLY = process.env.FRESH_IMPORT_ONLY === 'products';
/**
 * A key as the ERP sends it: short (`fp-12`), or with `FRESH_IMPORT_KEYS=long` about 40 characters
 * (`fp-erp-webshop-eu-2026-000000000012`), which makes a unique index of keys a level taller than
 * the primary key within the first hundred rows.
 */
const LONG_KEYS = process.env.FRESH_IMPORT_KEYS === 'long';
const keyOf = (prefix: string, n: number) => (LONG_KEYS ? `${prefix}-erp-webshop-eu-2026-${String(n).padStart(12, '0')}` : `${prefix}-${n}`);

/** New products' bodies, numbered per contender: the orders name products the service holds. */
const productBodies = () => {
  let made = 0;
  return {
    next: () => {
      made++;
      return JSON.stringify({ externalId: keyOf('fp', made), sku: keyOf('FS', made), name: `Fresh product ${made}`, stock: 100 + (made % 50), price: 9.99 });
    },
    count: () => made,
  };
};
const servedProducts = productBodies();
const handProducts = productBodies();
let orders = 0;
const orderBody = () => {
  orders++;
  // Products of the catalog just imported (the first nine tenths: every request of those succeeded).
  const pick = (k: number) => 1 + ((orders * 7919 + k * 104729) % Math.max(1, Math.floor(servedProducts.count() * 0.9)));
  const items = [0, 1, 2].map((k) => ({ productExternalId: keyOf('fp', pick(k)), productSku: keyOf('FS', pick(k)), quantity: 1 }));
  return JSON.stringify({ externalId: keyOf('fo', orders), orderNumber: keyOf('FN', orders), items });
};

/** A process answering HTTP on a database of its own, created empty for this run. */
interface Contender {
  /** Its base URL. */
  url: string;
  /** Its database's URL. */
  databaseUrl: string;
  /** Its process, and its database's name (whose backends pg_stat_activity lists). */
  pid: number;
  database: string;
  close(): Promise<void>;
}

/**
 * `script` (with `args`) as its own process on a new database; resolves once `healthPath` answers.
 * `env` gets the port (PORT) and the database's URL.
 */
async function startOnNewDatabase(admin: pg.Client, prefix: string, args: string[], env: (port: number, databaseUrl: string) => NodeJS.ProcessEnv, healthPath: string): Promise<Contender> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const databaseUrl = new URL(process.env.DATABASE_URL!);
  databaseUrl.pathname = `/${name}`;
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env(port, databaseUrl.toString()) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${args.at(-1)} exited with ${code} before answering`))));
  const answers = (async () => {
    while (!(await fetch(`${url}${healthPath}`).then((r) => r.ok, () => false))) await new Promise((resolve) => setTimeout(resolve, 100));
  })();
  await Promise.race([answers, exited]);
  return {
    url,
    databaseUrl: databaseUrl.toString(),
    pid: child.pid!,
    database: name,
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    },
  };
}

/** The hand-written route; copied under node_modules so that its imports (fastify, pg) resolve to the project's. */
async function startHandWritten(admin: pg.Client): Promise<Contender> {
  const dir = join(ROOT, 'node_modules', '.cache', 'pickport-bench');
  await mkdir(dir, { recursive: true });
  await copyFile(HAND_WRITTEN, join(dir, 'hand-written-route.mjs'));
  return startOnNewDatabase(admin, 'handwritten', [join(dir, 'hand-written-route.mjs')], (port, databaseUrl) => ({ PORT: String(port), BASE_DB: databaseUrl }), '/health');
}

/**
 * The service as an operator runs it (`npm start`: the built code), logging warnings only, like
 * the hand-written route, which logs nothing.
 */
async function startService(admin: pg.Client): Promise<Contender> {
  return startOnNewDatabase(
    admin,
    'pickport',
    [join(ROOT, 'bin/pickport.js'), 'serve'],
    (port, databaseUrl) => ({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, ADMIN_TOKEN, LOG_LEVEL: 'warn', REDIS_URL: '' }),
    '/api/v1/public/health',
  );
}

/** Linux's clock ticks per second, in which /proc gives CPU times; undefined without /proc. */
const CLOCK_TICKS = existsSync('/proc/self/stat') ? Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) : undefined;

/** CPU time (user and system, µs) a process has used so far; 0 once it has gone. */
function cpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state first, utime and stime 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS!;
  } catch {
    return 0;
  }
}

/** CPU per request: a contender's process, and the PostgreSQL backends serving its database. */
interface CpuSpent {
  process: number;
  database: number;
  requests: number;
}

/**
 * The CPU a contender and its database's backends spend on `round` (from /proc, on the same
 * machine as PostgreSQL); undefined without /proc. A backend that started during the round counts
 * from nothing; one that ended during it is lost (the pools keep theirs for 10 s idle).
 */
async function measureCpu(admin: pg.Client, contender: Contender, round: () => Promise<LoadResult>): Promise<{ result: LoadResult; cpu?: CpuSpent }> {
  if (CLOCK_TICKS === undefined) return { result: await round() };
  const backends = async () => {
    const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [contender.database]);
    return new Map(rows.map(({ pid }) => [pid, cpuMicros(pid)]));
  };
  const before = await backends();
  const processBefore = cpuMicros(contender.pid);
  const result = await round();
  const processSpent = cpuMicros(contender.pid) - processBefore;
  let database = 0;
  for (const [pid, now] of await backends()) database += now - (before.get(pid) ?? 0);
  return { result, cpu: { process: processSpent, database, requests: result.requests } };
}

const perRequest = (spent: CpuSpent[]) => {
  const sum = (pick: (c: CpuSpent) => number) => spent.reduce((total, c) => total + pick(c), 0);
  const requests = Math.max(1, sum((c) => c.requests));
  return `${Math.round(sum((c) => c.process) / requests)} µs + PostgreSQL ${Math.round(sum((c) => c.database) / requests)} µs`;
};

/** The reads of the listing indexes, which no write should use to find a key (plans made on an empty table once read millions). */
async function reportIndexReads(databaseUrl: string, when: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ index: string; scans: string; entries: string }>(`
      SELECT indexrelname AS index, idx_scan AS scans, idx_tup_read AS entries FROM pg_stat_user_indexes
      WHERE indexrelname IN ('products_by_update', 'orders_by_updated', 'orders_by_created')`);
    console.log(`  ${when}: ${rows.map((r) => `${r.index} ${r.scans} scans, ${r.entries} entries read`).join('; ')}`);
  } finally {
    await client.end();
  }
}

/** How many of the orders came in with issues: the suite means orders that resolve, as an ERP's do. */
async function reportOrderIssues(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ issues: string; all: string }>('SELECT count(*) FILTER (WHERE has_issues) AS issues, count(*) AS all FROM orders');
    console.log(`  orders with issues: ${rows[0]!.issues} of ${rows[0]!.all}`);
  } finally {
    await client.end();
  }
}

const rps = (r: LoadResult) => Math.round(r.requestsPerSecond);
const mean = (rounds: LoadResult[]) => rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rounds.length;

/**
 * The first catalog import: a fresh database (no ANALYZE, no catalog), one tenant, new
 * products at 32 connections in alternating rounds with the hand-written route; then new orders of
 * three of those products, service only (the hand-written route has no orders). A statement that
 * depends on statistics slows down round by round as the table grows. Both run as their own
 * process on a new database of their own, the service built (`dist/`, built first) as `npm start`
 * runs it: in this process, it would share one thread with the load generator, which the
 * hand-written route does not. PostgreSQL only.
 */
export default async function freshImport(): Promise<Measurement[]> {
  if (!process.env.DATABASE_URL) {
    console.log('  fresh-import: needs DATABASE_URL (PostgreSQL); skipped');
    return [];
  }
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const started: Contender[] = [];
  try {
    const service = await startService(admin);
    started.push(service);
    const hand = await startHandWritten(admin);
    started.push(hand);
    const { key } = await benchTenant(service.url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const json = { 'content-type': 'application/json' };
    const served: LoadResult[] = [];
    const handRounds: LoadResult[] = [];
    const servedCpu: CpuSpent[] = [];
    const handCpu: CpuSpent[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const handRound = await measureCpu(admin, hand, () => load({ url: `${hand.url}/products`, method: 'POST', headers: json, body: handProducts.next, connections: CONNECTIONS, durationSeconds: SECONDS }));
      const servedRound = await measureCpu(admin, service, () => load({ url: `${service.url}/api/v1/public/products`, method: 'POST', headers, body: servedProducts.next, connections: CONNECTIONS, durationSeconds: SECONDS }));
      handRounds.push(handRound.result);
      served.push(servedRound.result);
      const cpu = servedRound.cpu && handRound.cpu ? `; CPU per request: service ${perRequest([servedRound.cpu])}, hand-written ${perRequest([handRound.cpu])}` : '';
      if (servedRound.cpu && handRound.cpu) {
        servedCpu.push(servedRound.cpu);
        handCpu.push(handRound.cpu);
      }
      const failed = served[round]!.non2xx + handRounds[round]!.non2xx;
      console.log(`  new products, round ${round + 1}: service ${rps(served[round]!)} req/s, hand-written ${rps(handRounds[round]!)} req/s${failed ? ` (${failed} failed)` : ''}${cpu}`);
    }
    console.log(`  new products, mean of rounds: service ${Math.round(mean(served))} req/s, hand-written ${Math.round(mean(handRounds))} req/s (${(mean(served) / mean(handRounds)).toFixed(2)})`);
    if (servedCpu.length > 0) console.log(`  new products, CPU per request over all rounds: service ${perRequest(servedCpu)}; hand-written ${perRequest(handCpu)}`);
    await reportIndexReads(service.databaseUrl, 'after the products');
    const last = <T>(list: T[]) => list[list.length - 1]!;
    const products: Measurement[] = [
      { name: 'fresh import, new products at 32 connections: service, last round vs first', unit: 'req/s', service: last(served).requestsPerSecond, baseline: served[0]!.requestsPerSecond, higherIsBetter: true, target: '≥ 0.8' },
      { name: 'fresh import, new products at 32 connections: hand-written route, last round vs first', unit: 'req/s', service: last(handRounds).requestsPerSecond, baseline: handRounds[0]!.requestsPerSecond, higherIsBetter: true },
      { name: 'fresh import, new products at 32 connections: service vs hand-written route (mean of rounds)', unit: 'req/s', service: mean(served), baseline: mean(handRounds), higherIsBetter: true, target: '≥ 0.6' },
    ];
    if (PRODUCTS_ONLY) return products;
    const orderRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      orderRounds.push(await load({ url: `${service.url}/api/v1/public/orders`, method: 'POST', headers, body: orderBody, connections: CONNECTIONS, durationSeconds: SECONDS }));
      const failed = orderRounds[round]!.non2xx;
      console.log(`  new orders (3 items), round ${round + 1}: service ${rps(orderRounds[round]!)} req/s${failed ? ` (${failed} failed)` : ''}`);
    }
    await reportIndexReads(service.databaseUrl, 'after the orders');
    await reportOrderIssues(service.databaseUrl);
    return [
      ...products,
      { name: 'fresh import, new orders of 3 items at 32 connections: service, last round vs first', unit: 'req/s', service: last(orderRounds).requestsPerSecond, baseline: orderRounds[0]!.requestsPerSecond, higherIsBetter: true, target: '≥ 0.8' },
      { name: 'fresh import, new orders of 3 items at 32 connections: service vs the hand-written route\'s new products (mean of rounds)', unit: 'req/s', service: mean(orderRounds), baseline: mean(handRounds), higherIsBetter: true, target: '≥ 0.6' },
    ];
  } finally {
    for (const contender of started.reverse()) await contender.close();
    await admin.end();
  }
}
