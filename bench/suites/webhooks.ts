import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { emit } from '../../src/events/outbox';
import type { DomainEvent } from '../../src/events/types';
import { startDeliveryWorker } from '../../src/webhooks/worker';
import { startBenchService, type Measurement } from '../harness';

const THROUGHPUT_EVENTS = 3_000;
const LATENCY_EVENTS = 200;
const LATENCY_INTERVAL_MS = 20;
const CONCURRENCY = 32;
const SECRET = 'bench-secret-0123456789abcdef0123456789';

/** A receiver that answers 200 at once and notes when each sku arrived. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  let count = 0;
  let onCount: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { sku: string } };
      arrivals.set(body.data.sku, performance.now());
      count++;
      onCount?.();
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    /** Resolves once `n` requests have arrived in total. */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        onCount = () => count >= n && resolve();
        onCount();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/**
 * Webhook delivery: throughput of the worker draining a backlog to a local receiver, and the time
 * from an event's commit to its arrival (NOTIFY wakes the worker), each against a bare loop sending
 * the same signed POSTs to the same receiver.
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
    ];
  } finally {
    await receiver.close();
    await service.close();
  }
}
