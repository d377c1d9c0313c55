import Fastify from 'fastify';
import type { Db, Tx } from '../../src/db';
import { insertOrders } from '../../src/orders/intake';
import type { OrderInput } from '../../src/orders/schemas';
import { insertItems } from '../../src/orders/store';
import { alternate, load, startBenchService, type Measurement } from '../harness';

const SECONDS = 3;
/** Measured in alternation with the baseline, best of this many rounds each. */
const ROUNDS = 3;
const BATCH_SIZE = 50;
const ITEMS = 5;
/** Catalog size: each order takes 5 distinct products drawn at random from it, as a marketplace would send them. */
const PRODUCTS = 5_000;

let counter = 0;
/** A new order of 5 distinct catalog products picked at random, as a marketplace would send it. */
function order(run: string): OrderInput {
  counter++;
  const picked = new Set<number>();
  while (picked.size < ITEMS) picked.add(Math.floor(Math.random() * PRODUCTS));
  const items = [...picked].map((n, i) => ({ productExternalId: `P${n}`, productSku: `S${n}`, quantity: 1 + (i % 3) }));
  return { externalId: `${run}-${counter}`, orderNumber: `${run}-N${counter}`, items, priority: 'high', shippingAddress: '1 Bench Street' };
}

async function seedCatalog(db: Db, tenantId: string): Promise<void> {
  await db
    .insertInto('products')
    .values(Array.from({ length: PRODUCTS }, (_, i) => ({ tenant_id: tenantId, external_id: `P${i}`, sku: `S${i}`, name: `Product ${i}`, stock: 1_000_000_000 })))
    .execute();
}

/** The baseline's work for one order: its row and its item rows, nothing else. */
async function insertOrder(tx: Tx, tenantId: string, input: OrderInput): Promise<void> {
  const { id } = await tx
    .insertInto('orders')
    .values({
      tenant_id: tenantId,
      external_id: input.externalId,
      order_number: input.orderNumber,
      status: 'PENDING',
      issues: '[]',
      has_issues: false,
      priority: input.priority ?? null,
      shipping_address: input.shippingAddress ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertItems(tx, tenantId, id, input.items.map((line) => ({ ...line, productId: null })));
}

/** The baseline's statements, one order after another (two per order), in one transaction. */
async function insertOneByOne(db: Db, tenantId: string, orders: OrderInput[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (const input of orders) await insertOrder(tx, tenantId, input);
  });
}

/**
 * A second baseline for the batch: the service's own insert of all the orders and their items in
 * one statement (intake.ts), with nothing decided before it: what no set-based intake can beat.
 */
async function insertAtOnce(db: Db, tenantId: string, orders: OrderInput[]): Promise<void> {
  const accepted = (input: OrderInput) => ({
    input,
    assessment: { lines: input.items.map((line) => ({ ...line, productId: null })), issues: [], warnings: [], resolved: true },
  });
  await db.transaction().execute((tx) => insertOrders(tx, tenantId, orders.map(accepted)));
}

/**
 * Order intake: single POST /orders at 32 clients and batches of 50 orders × 5 items, each against
 * a bare Fastify route inserting the same rows on the same database (no auth, validation, catalog
 * check, stock holds, events or rate limit), one order after another; the batch also against the
 * one statement that inserts all its rows.
 */
export default async function orders(): Promise<Measurement[]> {
  const service = await startBenchService();
  const db = service.database.db;
  const [serviceTenant, bareTenant] = [await service.tenant(), await service.tenant()];
  await seedCatalog(db, serviceTenant.id);
  await seedCatalog(db, bareTenant.id);
  const bare = Fastify({ bodyLimit: 10 * 1024 * 1024 });
  bare.post('/orders', async (request, reply) => {
    await insertOneByOne(db, bareTenant.id, [request.body as OrderInput]);
    return reply.status(201).send({ ok: true });
  });
  bare.post('/orders/batch', async (request) => {
    const { orders: batch } = request.body as { orders: OrderInput[] };
    await insertOneByOne(db, bareTenant.id, batch);
    return { ok: true };
  });
  bare.post('/orders/batch-at-once', async (request) => {
    await insertAtOnce(db, bareTenant.id, (request.body as { orders: OrderInput[] }).orders);
    return { ok: true };
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const json = { 'content-type': 'application/json' };
  const auth = { ...json, authorization: `Bearer ${serviceTenant.key}` };
  const publicUrl = `${service.url}/api/v1/public`;

  try {
    const single = (url: string, headers: Record<string, string>, run: string) =>
      load({ url, method: 'POST', headers, body: () => JSON.stringify(order(run)), connections: 32, durationSeconds: SECONDS });
    const { baseline: singleBaseline, service: singleService } = await alternate(
      ROUNDS,
      () => single(`${bareUrl}/orders`, json, 'bare'),
      () => single(`${publicUrl}/orders`, auth, 'svc'),
    );

    const batch = (url: string, headers: Record<string, string>, run: string) =>
      load({
        url,
        method: 'POST',
        headers,
        body: () => JSON.stringify({ orders: Array.from({ length: BATCH_SIZE }, () => order(run)) }),
        connections: 4,
        durationSeconds: SECONDS,
      });
    const { baseline: batchBaseline, service: batchService } = await alternate(
      ROUNDS,
      () => batch(`${bareUrl}/orders/batch`, json, 'bareb'),
      () => batch(`${publicUrl}/orders/batch`, auth, 'svcb'),
    );
    const { baseline: atOnceBaseline, service: atOnceService } = await alternate(
      ROUNDS,
      () => batch(`${bareUrl}/orders/batch-at-once`, json, 'barec'),
      () => batch(`${publicUrl}/orders/batch`, auth, 'svcc'),
    );
    return [
      {
        name: `POST /orders (${ITEMS} items), 32 connections`,
        unit: 'req/s',
        service: singleService.requestsPerSecond,
        baseline: singleBaseline.requestsPerSecond,
        higherIsBetter: true,
      },
      { name: 'POST /orders p99 latency', unit: 'ms', service: singleService.p99Ms, baseline: singleBaseline.p99Ms, higherIsBetter: false },
      {
        name: `POST /orders/batch of ${BATCH_SIZE} × ${ITEMS} items, 4 connections`,
        target: '≥ 60% of baseline',
        unit: 'orders/s',
        service: batchService.requestsPerSecond * BATCH_SIZE,
        baseline: batchBaseline.requestsPerSecond * BATCH_SIZE,
        higherIsBetter: true,
      },
      {
        name: `POST /orders/batch of ${BATCH_SIZE} × ${ITEMS} items against one bare INSERT of all its rows, 4 connections`,
        unit: 'orders/s',
        service: atOnceService.requestsPerSecond * BATCH_SIZE,
        baseline: atOnceBaseline.requestsPerSecond * BATCH_SIZE,
        higherIsBetter: true,
      },
      { name: `POST /orders/batch of ${BATCH_SIZE} p50 latency`, unit: 'ms', service: batchService.p50Ms, baseline: batchBaseline.p50Ms, higherIsBetter: false },
    ];
  } finally {
    await bare.close();
    await service.close();
  }
}
