/**
 * An ERP's side of a Pickport integration, top to bottom:
 *
 *   1. listen for Pickport's webhooks, verifying each one with verifyWebhook;
 *   2. register that endpoint as a webhook;
 *   3. pull what changed in Pickport since the last run (`updated_since`), e.g. stock picked;
 *   4. push the ERP's catalog in batches;
 *   5. submit orders, each with an idempotency key saved before it is sent;
 *   6. wait for the webhooks those orders cause, then remove the webhook and stop.
 *
 * Run it twice: the second run pulls the products the first one pushed, and re-sends its orders
 * with the same idempotency keys, which Pickport answers from its record instead of creating them
 * again. See README.md for the settings.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPickportClient, PickportError, verifyWebhook, WebhookVerificationError, type WebhookEventName } from '@pickport/client';

const settings = {
  pickportUrl: process.env.PICKPORT_URL ?? 'http://localhost:3000',
  apiKey: process.env.PICKPORT_API_KEY ?? '',
  receiverPort: Number(process.env.RECEIVER_PORT ?? 4000),
  /** Where Pickport reaches the receiver; default this machine's loopback at the receiver's port. */
  receiverUrl: process.env.RECEIVER_URL,
  stateFile: process.env.STATE_FILE ?? 'erp-sync-state.json',
  waitSeconds: Number(process.env.WAIT_SECONDS ?? 15),
};
if (!settings.apiKey) {
  console.error('Set PICKPORT_API_KEY to a key with the products, orders and webhooks:manage permissions (see README.md)');
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// The ERP's own data. A real ERP reads its database; this one makes up a small catalog and orders.

const catalog = Array.from({ length: 120 }, (_, i) => ({
  externalId: `ERP-${1000 + i}`,
  sku: `SKU-${1000 + i}`,
  name: `Article ${1000 + i}`,
  stock: 10 + (i % 7),
  price: 4.5 + i,
}));

const orders = [
  { externalId: 'SO-5001', orderNumber: '5001', items: [{ productExternalId: 'ERP-1000', productSku: 'SKU-1000', quantity: 2 }] },
  { externalId: 'SO-5002', orderNumber: '5002', items: [{ productExternalId: 'ERP-1001', productSku: 'SKU-1001', quantity: 1 }, { productExternalId: 'ERP-1002', productSku: 'SKU-1002', quantity: 3 }] },
  // More than is in stock: Pickport accepts it and reports the issue (order.issue_detected).
  { externalId: 'SO-5003', orderNumber: '5003', items: [{ productExternalId: 'ERP-1003', productSku: 'SKU-1003', quantity: 500 }] },
];

/** What the ERP remembers between runs: where the last pull stopped, and each order's idempotency key. */
interface State {
  pulledUpTo: string | null;
  orderKeys: Record<string, string>;
}
const state: State = await readFile(settings.stateFile, 'utf8').then(
  (text) => JSON.parse(text) as State,
  () => ({ pulledUpTo: null, orderKeys: {} }),
);
const saveState = () => writeFile(settings.stateFile, `${JSON.stringify(state, null, 2)}\n`);

// ---------------------------------------------------------------------------------------------
// The client: typed calls; 429, 503 and network errors retried (writes keep their idempotency key).

const pickport = createPickportClient({
  baseUrl: settings.pickportUrl,
  apiKey: settings.apiKey,
  retry: { onRetry: (retry) => console.log(`retrying ${retry.method} ${retry.url} in ${Math.round(retry.delayMs)} ms (${retry.status ?? String(retry.error)})`) },
});

// ---------------------------------------------------------------------------------------------
// 1. The webhook receiver. Verify the raw bytes before parsing; refuse what does not verify.

const secret = randomBytes(24).toString('base64url');
const received: { id: string; event: WebhookEventName; test: boolean; externalId?: unknown }[] = [];
let refused = 0;
let notify = () => {};

const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      const { id, payload } = verifyWebhook(Buffer.concat(chunks), request.headers, secret);
      // Pickport delivers at least once: the same event can come again (a retry, a replay). Keep
      // the ids you processed (in your database) and skip repeats.
      if (!received.some((event) => event.id === id)) {
        received.push({ id, event: payload.event, test: payload.test === true, externalId: payload.data.externalId });
        console.log(`webhook ${payload.event}${payload.test ? ' (test)' : ''}: ${JSON.stringify(payload.data)}`);
        notify();
      }
      response.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      refused++;
      console.log(`refused a webhook: ${error.code}`);
      response.writeHead(401).end();
    }
  });
});
await new Promise<void>((resolve) => receiver.listen(settings.receiverPort, resolve));
const receiverUrl = settings.receiverUrl ?? `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pickport-webhooks`;

// ---------------------------------------------------------------------------------------------
// 2. Register the endpoint (removed again at the end, so that the example leaves nothing behind).

const webhook = await pickport.webhooks.create({
  url: receiverUrl,
  events: ['order.status_changed', 'order.issue_detected', 'product.stock_updated'],
  secret,
});
console.log(`webhook ${webhook.data.id} registered for ${receiverUrl}`);

try {
  // -------------------------------------------------------------------------------------------
  // 3. Pull what changed in Pickport since the last run. The bound is inclusive, so resuming from
  //    the last updatedAt seen misses nothing (that one product comes again). A change shows in
  //    this listing about a second after it is made, once no earlier write can still commit.

  let pulled = 0;
  for await (const product of pickport.products.list({ updated_since: state.pulledUpTo ?? '2000-01-01T00:00:00Z', limit: 200 })) {
    pulled++; // a real ERP would update its stock of product.externalId to product.stock here
    state.pulledUpTo = product.updatedAt;
  }
  await saveState();
  console.log(`pulled ${pulled} changed products`);

  // -------------------------------------------------------------------------------------------
  // 4. Push the catalog in batches. Each item succeeds or fails on its own.

  const pushed = { created: 0, updated: 0, errors: 0 };
  for (let start = 0; start < catalog.length; start += 50) {
    const batch = await pickport.products.batch({ products: catalog.slice(start, start + 50) });
    pushed.created += batch.data.createdCount;
    pushed.updated += batch.data.updatedCount;
    pushed.errors += batch.data.errorCount;
    for (const error of batch.errors) console.log(`product ${error.externalId} refused: ${error.error}`);
  }
  console.log(`pushed ${catalog.length} products: ${pushed.created} created, ${pushed.updated} updated, ${pushed.errors} refused`);

  // -------------------------------------------------------------------------------------------
  // 5. Submit orders. The key is saved before the order is sent: if the ERP crashes before it
  //    records the answer, the next run sends the same key and Pickport answers what it answered
  //    the first time instead of taking the order twice.

  const submitted = [];
  /** Orders sent for the first time with issues: their order.issue_detected is on its way. */
  const issuesToCome = new Set<string>();
  for (const order of orders) {
    const firstTime = !state.orderKeys[order.externalId];
    state.orderKeys[order.externalId] ??= randomUUID();
    await saveState();
    try {
      const answer = await pickport.orders.upsert(order, { idempotencyKey: state.orderKeys[order.externalId] });
      submitted.push({ externalId: order.externalId, action: answer.action, status: answer.data.status, hasIssues: answer.data.hasIssues });
      if (firstTime && answer.data.hasIssues) issuesToCome.add(order.externalId);
      console.log(`order ${order.externalId} ${answer.action}: ${answer.data.status}${answer.data.hasIssues ? ' with issues' : ''}`);
    } catch (error) {
      // Typed errors: the code to act on, the fields at fault, the id to quote to support.
      if (!(error instanceof PickportError)) throw error;
      console.log(`order ${order.externalId} refused: ${error.code} ${error.message} ${JSON.stringify(error.details)} (request ${error.requestId})`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // 6. Ask for a test delivery, then wait for it and for the issues of new orders to arrive.

  await pickport.webhooks.test(webhook.data.id, { event: 'order.status_changed' });
  const arrived = () =>
    received.some((event) => event.test) &&
    [...issuesToCome].every((externalId) => received.some((event) => event.event === 'order.issue_detected' && event.externalId === externalId));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, settings.waitSeconds * 1000);
    notify = () => {
      if (!arrived()) return;
      clearTimeout(timer);
      resolve();
    };
    notify();
  });

  console.log(`summary: ${JSON.stringify({ pulled, pushed, orders: submitted, webhooks: received, refused })}`);
} finally {
  await pickport.webhooks.delete(webhook.data.id);
  receiver.close();
}
