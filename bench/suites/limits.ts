import { randomUUID } from 'node:crypto';
import { load, startBenchService, type BenchService, type LoadResult, type Measurement } from '../harness';

const TARGET = 'under 15% overhead';
const ROUNDS = 5;
const ROUND_SECONDS = 3;

const MEASURES = ['read', 'product', 'order'] as const;
type Measure = (typeof MEASURES)[number];
/** Products the orders draw their 3 items from. */
const ORDERABLE = 1_000;

type Endpoints = Record<Measure, (idempotent: boolean, durationSeconds: number) => Promise<LoadResult>>;

/**
 * GET /products/{externalId}, POST /products (a new product each request: the cheapest write, one
 * row) and POST /orders (a new order of 3 items each request: the write retries matter most for)
 * on one service.
 */
async function endpoints(service: BenchService): Promise<Endpoints> {
  const { key } = await service.tenant();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const base = `${service.url}/api/v1/public`;
  const catalog = Array.from({ length: ORDERABLE }, (_, n) => ({ externalId: `P${n}`, sku: `S${n}`, name: `Product ${n}`, stock: 1_000_000_000 }));
  for (let from = 0; from < ORDERABLE; from += 200) {
    const seeded = await fetch(`${base}/products/batch`, { method: 'POST', headers, body: JSON.stringify({ products: catalog.slice(from, from + 200) }) });
    if (seeded.status !== 200) throw new Error(`seeding the catalog failed: ${seeded.status} ${await seeded.text()}`);
  }
  let next = 0;
  const newProduct = () => {
    const n = next++;
    return JSON.stringify({ externalId: `bench-${n}`, sku: `BENCH-${n}`, name: `Product ${n}`, stock: 10 });
  };
  const newOrder = () => {
    const n = next++;
    const items = [0, 1, 2].map((i) => {
      const p = (n * 7 + i * 331) % ORDERABLE;
      return { productExternalId: `P${p}`, productSku: `S${p}`, quantity: 1 };
    });
    return JSON.stringify({ externalId: `order-${n}`, orderNumber: `N-${n}`, items });
  };
  const post = (path: string, body: () => string) => (idempotent: boolean, durationSeconds: number) =>
    load({
      url: `${base}${path}`,
      method: 'POST',
      headers,
      durationSeconds,
      body,
      ...(idempotent ? { headersPerRequest: () => ({ 'x-idempotency-key': randomUUID() }) } : {}),
    });
  return {
    read: (_idempotent, durationSeconds) => load({ url: `${base}/products/P0`, headers, durationSeconds }),
    product: post('/products', newProduct),
    order: post('/orders', newOrder),
  };
}

/**
 * The cost of rate limiting and idempotency: one read and two writes, on a service with limiting
 * off and no idempotency key (the baseline), then with limiting in memory and, when REDIS_URL is
 * set, in Redis, the writes sending a fresh X-Idempotency-Key each time. The services run side by
 * side and are measured in alternation, best of `ROUNDS`, so that a busy moment of the machine
 * does not fall on one of them only.
 */
export default async function limits(): Promise<Measurement[]> {
  const variants: { name: string; redisUrl: string | undefined; rateLimiting: boolean }[] = [
    { name: 'baseline', redisUrl: undefined, rateLimiting: false },
    { name: 'in memory', redisUrl: undefined, rateLimiting: true },
  ];
  if (process.env.REDIS_URL) variants.push({ name: 'on Redis', redisUrl: process.env.REDIS_URL, rateLimiting: true });

  const services: BenchService[] = [];
  try {
    const runs = new Map<string, Endpoints>();
    for (const variant of variants) {
      const service = await startBenchService({ redisUrl: variant.redisUrl, rateLimiting: variant.rateLimiting, redisKeyPrefix: `bench-${randomUUID()}:` });
      services.push(service);
      const run = await endpoints(service);
      await run.read(false, 1);
      runs.set(variant.name, run);
    }
    const best = new Map<string, Record<Measure, number>>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of variants) {
        const run = runs.get(variant.name)!;
        const previous = best.get(variant.name) ?? { read: 0, product: 0, order: 0 };
        for (const measure of MEASURES) {
          // The baseline sends no key; the others a fresh one per write.
          const result = await run[measure](variant.rateLimiting, ROUND_SECONDS);
          if (result.non2xx > 0) throw new Error(`${variant.name}, ${measure}: ${result.non2xx} requests failed`);
          previous[measure] = Math.max(previous[measure], result.requestsPerSecond);
        }
        best.set(variant.name, previous);
      }
    }
    const baseline = best.get('baseline')!;
    const names: Record<Measure, string> = {
      read: 'GET /products/{externalId} with rate limiting {variant}, req/s vs limiting off',
      product: 'POST /products with rate limiting {variant} + a fresh X-Idempotency-Key, req/s vs neither',
      order: 'POST /orders (3 items) with rate limiting {variant} + a fresh X-Idempotency-Key, req/s vs neither',
    };
    return variants.slice(1).flatMap(({ name }) =>
      MEASURES.map((measure) => ({
        name: names[measure].replace('{variant}', name),
        unit: 'req/s',
        service: best.get(name)![measure],
        baseline: baseline[measure],
        higherIsBetter: true,
        target: TARGET,
      })),
    );
  } finally {
    for (const service of services) await service.close();
  }
}
