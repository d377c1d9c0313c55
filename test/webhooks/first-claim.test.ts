import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emit } from '../../src/events/outbox';
import type { DomainEvent } from '../../src/events/types';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker';
import { createTestContext, UNLIMITED, type TestContext } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { Receiver } from './receiver';

const SECRET = 'whsec_first_claim_tests_0123456789abcdef';

const stockEvent = (sku: string): DomainEvent => ({
  event: 'product.stock_updated',
  data: { productId: randomUUID(), sku, previousStock: 1, newStock: 2, reason: 'INVENTORY_SYNC' },
});

// `pickport serve` starts its worker with a first-claim delay, leaving the first requests the engine.
describe('a delivery worker started with a first-claim delay', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker | undefined;

  beforeAll(async () => {
    ctx = await createTestContext({ webhookTimeoutMs: 1_000 });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver.close();
    await ctx.close();
  });

  it('leaves a delivery due at its start for the delay, and sends it with what an event committed meanwhile announces', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    const url = `${receiver.url}/${randomUUID()}`;
    const path = new URL(url).pathname;
    expect((await tenant.api.post('/webhooks', { url, events: ['product.stock_updated'], secret: SECRET })).status).toBe(201);
    const fire = (sku: string) => ctx.database.db.transaction().execute((tx) => emit(tx, tenant.id, [stockEvent(sku)]));
    const received = () => receiver.requests.filter((r) => r.path === path).map((r) => r.body.data.sku);

    await fire('DUE-AT-START');
    worker = await startDeliveryWorker({ database: ctx.database, config: ctx.config, log: pino({ level: 'silent' }), firstClaimDelayMs: 60_000 });
    // Long enough for a worker without the delay to have sent it, on a loaded machine too.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(received()).toEqual([]);

    await fire('COMMITTED-AFTER');
    await waitFor('both deliveries', () => received().length >= 2);
    expect(received().sort()).toEqual(['COMMITTED-AFTER', 'DUE-AT-START']);
  });
});
