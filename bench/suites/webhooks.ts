import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { emit } from '../../src/events/outbox';
import type { DomainEvent } from '../../src/events/types';
import { startDeliveryWorker } from '../../src/webhooks/worker';
import { PickportProcesses } from '../../test/helpers/processes';
import { startBenchService, type BenchService, type Measurement } from '../harness';

const THROUGHPUT_EVENTS = 3_000;
const LATENCY_EVENTS = 200;
const LATENCY_INTERVAL_MS = 20;
const CONCURRENCY = 32;
const SECRET = 'bench-secret-0123456789abcdef0123456789';
const PROCESS_EVENTS = 3_000;
const PROCESS_ROUNDS = 2;
const SLOW_RECEIVER_MS = 50;

/** A receiver that answers 200 (at once, or after `delayMs`) and notes when each sku arrived. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  let count = 0;
  let onCount: (() => void) | undefined;
  const receiver = { delayMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { sku: string } };
      arrivals.set(body.data.sku, performance.now());
      count++;
      onCount?.();
      if (receiver.delayMs > 0) setTimeout(() => res.writeHead(200).end(), receiver.delayMs);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    /** Resolves once `n` requests have arrived in total. */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        onCount = () => count >= n && resolve();
        onCount();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

type BenchReceiver = Awaited<ReturnType<typeof startReceiver>>;

const stockEvent = (sku: string): DomainEvent => ({
  event: 'product.stock_updated',
  data: { productId: randomUUID(), sku, previousStock: 1, newStock: 2, reason: 'INVENTORY_SYNC' },
});

/** The baseline: the same signed POSTs from a bare loop, CONCURRENCY in flight, no database. */
async function bareSend(url: string, skus: string[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (sku: string) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ event: 'product.stock_updated', timestamp: new Date().toISOString(), data: stockEvent(sku).data });
      const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-service-signature': signature } }, (res) => {
        res.resume().on('end', resolve);
      });
      request.on('error', reject);
      request.end(body);
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < skus.length) await post(skus[next++]!);
    }),
  );
  agent.destroy();
}

/** Deliveries per second of `workers` worker processes draining a backlog committed at once. */
async function drainWithProcesses(
  processes: PickportProcesses,
  workers: number,
  service: BenchService,
  tenantId: string,
  receiver: BenchReceiver,
  sent: number,
): Promise<number> {
  const started = Array.from({ length: workers }, () => processes.worker());
  await Promise.all(started.map((p) => p.ready));
  const skus = Array.from({ length: PROCESS_EVENTS }, (_, i) => `W${sent + i}`);
  await service.database.db.transaction().execute((tx) => emit(tx, tenantId, skus.map(stockEvent)));
  const start = performance.now();
  await receiver.until(sent + PROCESS_EVENTS);
  const rate = PROCESS_EVENTS / ((performance.now() - start) / 1000);
  // SIGTERM: each worker records its attempts in flight before it exits, so the next round starts clean.
  for (const p of started) p.child.kill('SIGTERM');
  await Promise.all(started.map((p) => p.exited));
  return rate;
}

/**
 * Scale-out (issue 16, PostgreSQL only): `pickport worker` processes as an operator runs them, one
 * against two, in alternation, each draining the same size of backlog committed in one
 * transaction; against a receiver that answers at once (the machine's cores are the limit) and one
 * that answers in 50 ms (the sends in flight per worker are).
 */
async function workerProcesses(service: BenchService, tenantId: string, receiver: BenchReceiver, sentBefore: number): Promise<Measurement[]> {
  const processes = await PickportProcesses.forContext({ database: service.database, config: service.app.config }, { LOG_LEVEL: 'info' });
  let sent = sentBefore;
  const measurements: Measurement[] = [];
  try {
    for (const delayMs of [0, SLOW_RECEIVER_MS]) {
      receiver.delayMs = delayMs;
      let one = 0;
      let two = 0;
      for (let round = 0; round < PROCESS_ROUNDS; round++) {
        one = Math.max(one, await drainWithProcesses(processes, 1, service, tenantId, receiver, sent));
        sent += PROCESS_EVENTS;
        two = Math.max(two, await drainWithProcesses(processes, 2, service, tenantId, receiver, sent));
        sent += PROCESS_EVENTS;
      }
      measurements.push({
        name: `delivery throughput, ${PROCESS_EVENTS} queued, two worker processes against one (receiver answers ${delayMs ? `in ${delayMs} ms` : 'at once'})`,
        unit: 'deliveries/s',
        service: two,
        baseline: one,
        higherIsBetter: true,
      });
    }
  } finally {
    receiver.delayMs = 0;
    processes.killAll();
  }
  return measurements;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/**
 * Webhook delivery: throughput of the worker draining a backlog to a local receiver, and the time
 * from an event's commit to its arrival (NOTIFY wakes the worker), each against a bare loop sending
 * the same signed POSTs to the same receiver; on PostgreSQL also two worker processes against one.
 */
export default async function webhooks(): Promise<Measurement[]> {
  const service = await startBenchService();
  const receiver = await startReceiver();
  const tenant = await service.tenant();
  const registered = await fetch(`${service.url}/api/v1/public/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['product.stock_updated'], secret: SECRET }),
  });
  if (registered.status !== 201) throw new Error(`registering the bench webhook failed: ${await registered.text()}`);
  const db = service.database.db;
  const config = service.app.config;
  let sent = 0;
  try {
    // Throughput: a backlog committed first, then drained.
    const skus = Array.from({ length: THROUGHPUT_EVENTS }, (_, i) => `T${i}`);
    for (let i = 0; i < skus.length; i += 500) {
      await db.transaction().execute((tx) => emit(tx, tenant.id, skus.slice(i, i + 500).map(stockEvent)));
    }
    const drainStart = performance.now();
    const worker = await startDeliveryWorker({ database: service.database, config, log: pino({ level: 'silent' }), concurrency: CONCURRENCY });
    await receiver.until((sent += THROUGHPUT_EVENTS));
    const serviceRate = THROUGHPUT_EVENTS / ((performance.now() - drainStart) / 1000);

    const bareStart = performance.now();
    await bareSend(receiver.url, skus.map((sku) => `B${sku}`));
    const bareRate = THROUGHPUT_EVENTS / ((performance.now() - bareStart) / 1000);
    sent += THROUGHPUT_EVENTS;

    // Latency: one event per transaction, paced, from just before the commit to the arrival.
    const serviceLatencies: number[] = [];
    const bareLatencies: number[] = [];
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const sku = `L${i}`;
      const start = performance.now();
      await db.transaction().execute((tx) => emit(tx, tenant.id, [stockEvent(sku)]));
      await receiver.until(++sent);
      serviceLatencies.push(receiver.arrivals.get(sku)! - start);

      const bareStartOne = performance.now();
      await bareSend(receiver.url, [`B${sku}`]);
      sent++;
      bareLatencies.push(receiver.arrivals.get(`B${sku}`)! - bareStartOne);
      await new Promise((resolve) => setTimeout(resolve, LATENCY_INTERVAL_MS));
    }
    await worker.stop();
    const scaleOut = service.database.kind === 'postgres' ? await workerProcesses(service, tenant.id, receiver, sent) : [];
    if (scaleOut.length === 0) console.log('webhooks: one worker process against two needs DATABASE_URL (PGlite lives inside one process); not measured');
    return [
      {
        name: `delivery throughput, ${THROUGHPUT_EVENTS} queued, ${CONCURRENCY} in flight`,
        unit: 'deliveries/s',
        service: serviceRate,
        baseline: bareRate,
        higherIsBetter: true,
        target: '1 000/s',
      },
      { name: 'event commit to delivery, p50', unit: 'ms', service: percentile(serviceLatencies, 50), baseline: percentile(bareLatencies, 50), higherIsBetter: false, target: '< 50 ms' },
      { name: 'event commit to delivery, p99', unit: 'ms', service: percentile(serviceLatencies, 99), baseline: percentile(bareLatencies, 99), higherIsBetter: false },
      ...scaleOut,
    ];
  } finally {
    await receiver.close();
    await service.close();
  }
}
