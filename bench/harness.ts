import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app';
import type { DatabaseHandle } from '../src/db';
import { PERMISSIONS } from '../src/tenancy/permissions';
import { openTestDatabase, testConfig, ADMIN_TOKEN } from '../test/helpers/context';
import { PickportProcesses } from '../test/helpers/processes';
import type { Config } from '../src/config';

/** One figure of the service next to the same work done by a baseline in the same run. */
export interface Measurement {
  name: string;
  unit: string;
  service: number;
  baseline: number;
  /** true for throughput, false for times. */
  higherIsBetter: boolean;
  target?: string;
}

export interface BenchService {
  url: string;
  app: FastifyInstance;
  database: DatabaseHandle;
  /** A tenant with a key holding every permission and limits high enough not to interfere. */
  tenant(): Promise<{ id: string; slug: string; key: string }>;
  close(): Promise<void>;
}

/**
 * The real service on a bench database: PGlite in memory, or its own schema on DATABASE_URL.
 * Logging is off so that the figures measure the service, not the terminal.
 */
export async function startBenchService(overrides: Partial<Config> = {}): Promise<BenchService> {
  const { database, drop } = await openTestDatabase();
  const app = await buildApp({ config: testConfig(overrides), database, logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    app,
    database,
    tenant: () => benchTenant(url),
    async close() {
      await app.close();
      await drop();
    },
  };
}

/** The built service in a process of its own (`pickport serve`), as an operator runs it: see startServiceProcess. */
export interface ServiceProcess {
  url: string;
  tenant(): Promise<{ id: string; slug: string; key: string }>;
  close(): Promise<void>;
}

/**
 * `pickport serve`, built first (dist/), in its own process: the embedded database in a new data
 * directory, or its own schema on DATABASE_URL; from `root` when given (another checkout of the
 * service, for a baseline of an earlier version). For suites whose clients' own work must not share
 * the service's thread: a client parsing a large answer in the service's process would delay the
 * service's next answer, which no real client does.
 */
export async function startServiceProcess(options: { root?: string } = {}): Promise<ServiceProcess> {
  const root = options.root ?? process.cwd();
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'inherit', cwd: root });
  const opened = process.env.DATABASE_URL ? await openTestDatabase() : undefined;
  const dataDir = join(tmpdir(), `pickport-bench-${randomUUID()}`);
  const processes = opened ? await PickportProcesses.forContext({ database: opened.database, config: testConfig() }, {}, root) : PickportProcesses.embedded(dataDir, root);
  // Logs as an operator keeps them (info); the deliveries' worker runs in the same process, as `npm start` runs it.
  const { url, process: service } = await processes.serve({ PICKPORT_NO_WORKER: 'false' });
  return {
    url,
    tenant: () => benchTenant(url),
    async close() {
      // Stopped as an operator stops it (SIGTERM), killed if it has not exited within 10 s.
      service.child.kill('SIGTERM');
      await Promise.race([service.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      processes.killAll();
      await opened?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A tenant on the service at `url`, with a key holding every permission and limits high enough not to interfere. */
export async function benchTenant(url: string): Promise<{ id: string; slug: string; key: string }> {
  const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const slug = `bench-${randomUUID().slice(0, 8)}`;
  const tenant = await fetch(`${url}/api/v1/admin/tenants`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({ slug, name: slug }),
  }).then((r) => r.json() as Promise<{ data: { id: string } }>);
  const key = await fetch(`${url}/api/v1/admin/tenants/${slug}/api-keys`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({ permissions: [...PERMISSIONS], rateLimitPerMinute: 1_000_000, dailyLimit: 1_000_000_000 }),
  }).then((r) => r.json() as Promise<{ data: { key: string } }>);
  return { id: tenant.data.id, slug, key: key.data.key };
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Headers made per request on top of `headers` (a fresh idempotency key each time). */
  headersPerRequest?: () => Record<string, string>;
  /** A fixed body, or one made per request (for unique ids). */
  body?: string | (() => string);
  connections?: number;
  durationSeconds?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests answered in all. */
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

/** Drives `url` with autocannon from this process (a second process would compete for the same 2 cores). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const { body, headersPerRequest } = options;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    connections: options.connections ?? 32,
    duration: options.durationSeconds ?? 5,
    ...(typeof body === 'string' ? { body } : {}),
    ...(typeof body === 'function' || headersPerRequest
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                ...(typeof body === 'function' ? { body: body() } : {}),
                ...(headersPerRequest ? { headers: { ...request.headers, ...headersPerRequest() } } : {}),
              }),
            },
          ],
        }
      : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

/** The value below which a share `p` (0..1) of the ascending `sorted` values fall. */
export const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** Milliseconds of `fn`, best of `runs` (the least disturbed by the rest of the machine). */
export async function bestTimeMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

export interface Paired {
  baseline: LoadResult;
  service: LoadResult;
}

/**
 * Runs the baseline and the service in alternation, `rounds` times each, and keeps the best round
 * of each (throughput; the latencies of that round). On a small machine shared with other work a
 * busy moment then cannot fall on one side only, and warming up favours neither.
 */
export async function alternate(rounds: number, baseline: () => Promise<LoadResult>, service: () => Promise<LoadResult>): Promise<Paired> {
  let best: Paired | undefined;
  for (let round = 0; round < rounds; round++) {
    const pair = { baseline: await baseline(), service: await service() };
    for (const result of [pair.baseline, pair.service]) {
      if (result.non2xx > 0) console.warn(`warning: ${result.non2xx} requests failed`);
    }
    best = best
      ? {
          baseline: pair.baseline.requestsPerSecond > best.baseline.requestsPerSecond ? pair.baseline : best.baseline,
          service: pair.service.requestsPerSecond > best.service.requestsPerSecond ? pair.service : best.service,
        }
      : pair;
  }
  return best!;
}

/** CPU milliseconds `fn` takes (a shared machine's load inflates them less than the clock), and what it returns. */
export function cpuTimed<T>(fn: () => T): { value: T; ms: number } {
  const start = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(start);
  return { value, ms: (used.user + used.system) / 1000 };
}
