import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERIES_CHANNEL } from '../../src/events/outbox';
import { useTenant } from '../helpers/setup';
import { waitFor } from '../helpers/wait';

const setup = useTenant();
let notifications = 0;
let unlisten: () => Promise<void>;

beforeAll(async () => {
  unlisten = await setup.ctx.database.listen(DELIVERIES_CHANNEL, () => notifications++);
  expect((await setup.tenant.api.post('/webhooks', { url: 'http://127.0.0.1:9/stock', events: ['product.stock_updated'], secret: 'whsec-notify-test-0123456789abcdef' })).status).toBe(201);
});
afterAll(() => unlisten());

/** Delivery workers wake on the outbox's NOTIFY instead of waiting for their next look at the queue. */
describe('the outbox wakes the delivery workers', () => {
  it('when a single upsert (one statement) or a batch (a transaction) records a delivery', async () => {
    const product = { externalId: 'N-1', sku: 'N-SKU-1', name: 'notified', stock: 1 };
    expect((await setup.tenant.api.post('/products', product)).status).toBe(201);

    const beforeSingle = notifications;
    expect((await setup.tenant.api.post('/products', { ...product, stock: 2 })).status).toBe(200);
    await waitFor('a notification of the single upsert', () => notifications > beforeSingle);

    const beforeBatch = notifications;
    expect((await setup.tenant.api.post('/products/batch', { products: [{ ...product, stock: 3 }] })).status).toBe(200);
    await waitFor('a notification of the batch', () => notifications > beforeBatch);
  });
});
