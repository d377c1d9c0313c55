import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'kysely';
import { load, startBenchService, type BenchService, type LoadResult, type Measurement } from '../harness';

const SECONDS = 5;
const ROUNDS = 6;
const CONNECTIONS = 32;
const HAND_WRITTEN = '/work/shared/benchmarks/hand-written-route.mjs';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let products = 0;
let orders = 0;
const productBody = () => {
  products++;
  return JSON.stringify({ externalId: `fp-${products}`, sku: `FS-${products}`, name: `Fresh product ${products}`, stock: 100 + (products % 50), price: 9.99 });
};
const orderBody = () => {
  orders++;
  // Products of the catalog just imported (the first nine tenths: every request of those succeeded).
  const pick = (k: number) => 1 + ((orders * 7919 + k * 104729) % Math.max(1, Math.floor(products * 0.9)));
  const items = [0, 1, 2].map((k) => ({ productExternalId: `fp-${pick(k)}`, productSku: `FS-${pick(k)}`, quantity: 1 }));
  return JSON.stringify({ externalId: `fo-${orders}`, orderNumber: `FN-${orders}`, items });
};

/** The hand-written route as its own process on a database of its own, created for this run. */
async function startHandWritten(): Promise<{ url: string; close(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `handwritten_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  // Copied under node_modules so that its imports (fastify, pg) resolve to the project's.
  const dir = join(ROOT, 'node_modules', '.cache', 'pickport-bench');
  await mkdir(dir, { recursive: true });
  await copyFile(HAND_WRITTEN, join(dir, 'hand-written-route.mjs'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child: ChildProcess = spawn(process.execPath, [join(dir, 'hand-written-route.mjs')], {
    env: { ...process.env, PORT: String(port), BASE_DB: url.toString() },
    stdio: 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (up) break;
    if (tries > 100) throw new Error('the hand-written route did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `${base}/products`,
    async close() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

/** The reads of the listing indexes, which no write should use to find a key (issue 24 saw millions). */
async function reportIndexReads(database: BenchService['database'], when: string): Promise<void> {
  const { rows } = await sql<{ index: string; scans: string; entries: string }>`
    SELECT indexrelname AS index, idx_scan AS scans, idx_tup_read AS entries FROM pg_stat_user_indexes
    WHERE schemaname = current_schema() AND indexrelname IN ('products_by_update', 'orders_by_updated', 'orders_by_created')`.execute(database.db);
  console.log(`  ${when}: ${rows.map((r) => `${r.index} ${r.scans} scans, ${r.entries} entries read`).join('; ')}`);
}

const rps = (r: LoadResult) => Math.round(r.requestsPerSecond);
const mean = (rounds: LoadResult[]) => rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rounds.length;

/**
 * Issue 24, the first catalog import: a fresh schema (no ANALYZE, no catalog), one tenant, new
 * products at 32 connections in alternating rounds with the hand-written route (its own process and
 * database, also fresh); then new orders of three of those products, service only (the
 * hand-written route has no orders). A statement that depends on statistics slows down round by
 * round as the table grows. PostgreSQL only.
 */
export default async function freshImport(): Promise<Measurement[]> {
  if (!process.env.DATABASE_URL) {
    console.log('  fresh-import: needs DATABASE_URL (PostgreSQL); skipped');
    return [];
  }
  const service = await startBenchService({ redisUrl: undefined });
  let hand: Awaited<ReturnType<typeof startHandWritten>> | undefined;
  try {
    hand = await startHandWritten();
    const { key } = await service.tenant();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const json = { 'content-type': 'application/json' };
    const served: LoadResult[] = [];
    const handRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      handRounds.push(await load({ url: hand.url, method: 'POST', headers: json, body: productBody, connections: CONNECTIONS, durationSeconds: SECONDS }));
      served.push(await load({ url: `${service.url}/api/v1/public/products`, method: 'POST', headers, body: productBody, connections: CONNECTIONS, durationSeconds: SECONDS }));
      const failed = served[round]!.non2xx + handRounds[round]!.non2xx;
      console.log(`  new products, round ${round + 1}: service ${rps(served[round]!)} req/s, hand-written ${rps(handRounds[round]!)} req/s${failed ? ` (${failed} failed)` : ''}`);
    }
    await reportIndexReads(service.database, 'after the products');
    const orderRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      orderRounds.push(await load({ url: `${service.url}/api/v1/public/orders`, method: 'POST', headers, body: orderBody, connections: CONNECTIONS, durationSeconds: SECONDS }));
      const failed = orderRounds[round]!.non2xx;
      console.log(`  new orders (3 items), round ${round + 1}: service ${rps(orderRounds[round]!)} req/s${failed ? ` (${failed} failed)` : ''}`);
    }
    await reportIndexReads(service.database, 'after the orders');
    const last = <T>(list: T[]) => list[list.length - 1]!;
    return [
      { name: 'fresh import, new products at 32 connections: service, last round vs first', unit: 'req/s', service: last(served).requestsPerSecond, baseline: served[0]!.requestsPerSecond, higherIsBetter: true, target: '≥ 0.8' },
      { name: 'fresh import, new products at 32 connections: hand-written route, last round vs first', unit: 'req/s', service: last(handRounds).requestsPerSecond, baseline: handRounds[0]!.requestsPerSecond, higherIsBetter: true },
      { name: 'fresh import, new products at 32 connections: service vs hand-written route (mean of rounds)', unit: 'req/s', service: mean(served), baseline: mean(handRounds), higherIsBetter: true, target: '≥ 0.6' },
      { name: 'fresh import, new orders of 3 items at 32 connections: service, last round vs first', unit: 'req/s', service: last(orderRounds).requestsPerSecond, baseline: orderRounds[0]!.requestsPerSecond, higherIsBetter: true, target: '≥ 0.8' },
    ];
  } finally {
    await hand?.close();
    await service.close();
  }
}
