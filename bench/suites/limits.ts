import { randomUUID } from 'node:crypto';
import { load, startBenchService, type BenchService, type LoadResult, type Measurement } from '../harness';

const TARGET = 'under 15% overhead';
const ROUNDS = 3;
const ROUND_SECONDS = 3;

interface Endpoints {
  read(durationSeconds: number): Promise<LoadResult>;
  write(idempotent: boolean, durationSeconds: number): Promise<LoadResult>;
}

/** GET /products/{externalId} and POST /products (a new product each request) on one service. */
async function endpoints(service: BenchService): Promise<Endpoints> {
  const { key } = await service.tenant();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const base = `${service.url}/api/v1/public/products`;
  const created = await fetch(base, { method: 'POST', headers, body: JSON.stringify({ externalId: 'bench-read', sku: 'BENCH-READ', name: 'Read me' }) });
  if (created.status !== 201) throw new Error(`creating the product failed: ${created.status} ${await created.text()}`);
  let next = 0;
  const newProduct = () => {
    const n = next++;
    return JSON.stringify({ externalId: `bench-${n}`, sku: `BENCH-${n}`, name: `Product ${n}`, stock: 10 });
  };
  return {
    read: (durationSeconds) => load({ url: `${base}/bench-read`, headers, durationSeconds }),
    write: (idempotent, durationSeconds) =>
      load({
        url: base,
        method: 'POST',
        headers,
        durationSeconds,
        body: newProduct,
        ...(idempotent ? { headersPerRequest: () => ({ 'x-idempotency-key': randomUUID() }) } : {}),
      }),
  };
}

/**
 * The cost of rate limiting and idempotency: one read and one write, on a service with limiting
 * off and no idempotency key (the baseline), then with limiting in memory and, when REDIS_URL is
 * set, in Redis, the write sending a fresh X-Idempotency-Key each time. The services run side by
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
      await run.read(1);
      runs.set(variant.name, run);
    }
    const best = new Map<string, { read: number; write: number }>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of variants) {
        const run = runs.get(variant.name)!;
        const read = await run.read(ROUND_SECONDS);
        // The baseline sends no key; the others a fresh one per request.
        const write = await run.write(variant.rateLimiting, ROUND_SECONDS);
        if (read.non2xx + write.non2xx > 0) throw new Error(`${variant.name}: ${read.non2xx + write.non2xx} requests failed`);
        const previous = best.get(variant.name) ?? { read: 0, write: 0 };
        best.set(variant.name, { read: Math.max(previous.read, read.requestsPerSecond), write: Math.max(previous.write, write.requestsPerSecond) });
      }
    }
    const baseline = best.get('baseline')!;
    return variants.slice(1).flatMap(({ name }) => {
      const measured = best.get(name)!;
      return [
        {
          name: `GET /products/{externalId} with rate limiting ${name}, req/s vs limiting off`,
          unit: 'req/s',
          service: measured.read,
          baseline: baseline.read,
          higherIsBetter: true,
          target: TARGET,
        },
        {
          name: `POST /products with rate limiting ${name} + a fresh X-Idempotency-Key, req/s vs neither`,
          unit: 'req/s',
          service: measured.write,
          baseline: baseline.write,
          higherIsBetter: true,
          target: TARGET,
        },
      ];
    });
  } finally {
    for (const service of services) await service.close();
  }
}
