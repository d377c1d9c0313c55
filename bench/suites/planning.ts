import { PUBLIC_PREFIX } from '../../src/api-prefixes';
import { plannerSettings } from '../../src/config';
import { mulberry32 } from '../../src/floor/plan/random';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { LARGE_LAYOUT, largeFloor, largeFloorItems } from '../../test/helpers/large-floor';
import { startServiceProcess, type Measurement } from '../harness';

/*
 * Planning off the request path: on a large two-block floor (50 aisles × 180 positions, one middle
 * cross aisle, 40 products at about 29 slots each, 400 PENDING orders), the latency of GET /health
 * and of a product upsert made every 25 ms, idle (the baseline) and while two clients keep asking
 * for routes of 30 items and making waves (each released at once, so the pool stays full). Also the
 * routes' own latency against their deadline. The service runs in a process of its own, started
 * as an operator starts it, so that the clients' work is not the service's.
 */

const ORDERS = 400;
const PROBE_EVERY_MS = 25;
const IDLE_SECONDS = 10;
const LOADED_SECONDS = 30;
const PLANNING_CLIENTS = 2;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

export default async function planning(): Promise<Measurement[]> {
  const service = await startServiceProcess();
  const deadlineMs = plannerSettings(process.env).deadlineMs;
  try {
    const tenant = await service.tenant();
    const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const keyHeaders = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
    const floorUrl = `${service.url}/api/v1/warehouse/tenants/${tenant.slug}`;
    const publicUrl = `${service.url}${PUBLIC_PREFIX}`;
    const call = async (url: string, method: string, headers: Record<string, string>, body?: unknown) => {
      const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const answer = (await response.json()) as { data?: unknown; error?: unknown };
      if (response.status >= 400 && response.status !== 409) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer.error)}`);
      return { status: response.status, data: answer.data as Record<string, unknown> };
    };

    const floor = largeFloor();
    await call(`${floorUrl}/layout`, 'PUT', adminHeaders, LARGE_LAYOUT);
    await call(`${floorUrl}/locations`, 'PUT', adminHeaders, { locations: floor.locations });
    await call(`${publicUrl}/products/batch`, 'POST', keyHeaders, { products: floor.products });
    await call(`${floorUrl}/slots`, 'PUT', adminHeaders, { slots: floor.slots });
    const random = mulberry32(2026);
    for (let o = 0; o < ORDERS; o++) {
      const items = largeFloorItems(random, 1 + Math.floor(random() * 4)).map(({ productExternalId, quantity }) => ({ productExternalId, productSku: `SKU-${productExternalId}`, quantity: Math.min(quantity, 2) }));
      await call(`${publicUrl}/orders`, 'POST', keyHeaders, { externalId: `PL-${o}`, orderNumber: `PL-${o}`, items });
    }

    /** GET /health and an upsert of one product, each every PROBE_EVERY_MS, for `seconds`; their latencies. */
    const probe = async (seconds: number) => {
      const health: number[] = [];
      const upsert: number[] = [];
      const until = performance.now() + seconds * 1000;
      let n = 0;
      const pending: Promise<void>[] = [];
      while (performance.now() < until) {
        const timed = async (into: number[], run: () => Promise<unknown>) => {
          const start = performance.now();
          await run();
          into.push(performance.now() - start);
        };
        pending.push(timed(health, () => call(`${publicUrl}/health`, 'GET', {})));
        pending.push(timed(upsert, () => call(`${publicUrl}/products`, 'POST', keyHeaders, { externalId: 'PROBE', sku: 'SKU-PROBE', name: 'Probe', stock: n++ })));
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      }
      await Promise.all(pending);
      return { health, upsert };
    };

    const idle = await probe(IDLE_SECONDS);

    const routes: number[] = [];
    const waves: number[] = [];
    let planning = true;
    const client = async (seed: number) => {
      const draw = mulberry32(seed);
      while (planning) {
        let start = performance.now();
        await call(`${floorUrl}/routes`, 'POST', adminHeaders, { items: largeFloorItems(draw, 30) });
        routes.push(performance.now() - start);
        start = performance.now();
        const wave = await call(`${floorUrl}/waves`, 'POST', adminHeaders, {});
        waves.push(performance.now() - start);
        if (wave.status === 201) await call(`${floorUrl}/waves/${wave.data.id as string}/release`, 'POST', adminHeaders);
      }
    };
    const clients = Array.from({ length: PLANNING_CLIENTS }, (_, i) => client(i + 1));
    const loaded = await probe(LOADED_SECONDS);
    planning = false;
    await Promise.all(clients);

    const ms = { unit: 'ms', higherIsBetter: false } as const;
    console.log(`  planning: ${routes.length} routes (p50 ${percentile(routes, 50).toFixed(0)} ms), ${waves.length} waves (p50 ${percentile(waves, 50).toFixed(0)} ms, p99 ${percentile(waves, 99).toFixed(0)} ms) in ${LOADED_SECONDS} s`);
    return [
      { name: 'GET /health p50 while planning (baseline: idle)', service: percentile(loaded.health, 50), baseline: percentile(idle.health, 50), ...ms },
      { name: 'GET /health p99 while planning (baseline: idle)', service: percentile(loaded.health, 99), baseline: percentile(idle.health, 99), ...ms, target: '≤ 100 ms' },
      { name: 'product upsert p50 while planning (baseline: idle)', service: percentile(loaded.upsert, 50), baseline: percentile(idle.upsert, 50), ...ms },
      { name: 'product upsert p99 while planning (baseline: idle)', service: percentile(loaded.upsert, 99), baseline: percentile(idle.upsert, 99), ...ms, target: '≤ 150 ms' },
      { name: 'route of 30 items p99 (baseline: the deadline)', service: percentile(routes, 99), baseline: deadlineMs, ...ms, target: '≤ 1.10× deadline' },
    ];
  } finally {
    await service.close();
  }
}
