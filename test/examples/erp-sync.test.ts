import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker';
import { listen } from '../client/service';
import { createTestContext, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { settled } from '../helpers/wait';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/erp-sync');

/**
 * The example as an integrator runs it: its own project (its tsconfig, no path mapping) importing
 * the built @pickport/client, against the service listening on loopback with its delivery worker.
 */
describe('examples/erp-sync', () => {
  let ctx: TestContext;
  let worker: DeliveryWorker;
  let tenant: TestTenant;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    // The example imports the package as published: build it from the current sources.
    await run('npm', ['run', 'build', '--workspace', '@pickport/client'], { cwd: ROOT });
    ctx = await createTestContext();
    worker = await startDeliveryWorker({ database: ctx.database, config: ctx.config, log: pino({ level: 'silent' }), pollIntervalMs: 200 });
    url = await listen(ctx);
    tenant = await ctx.tenant(UNLIMITED);
    dir = await mkdtemp(join(tmpdir(), 'pickport-erp-sync-'));
  }, 120_000);
  afterAll(async () => {
    await worker.stop();
    await ctx.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function example() {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'main.ts'], {
      cwd: EXAMPLE,
      env: { ...process.env, PICKPORT_URL: url, PICKPORT_API_KEY: tenant.key, RECEIVER_PORT: '0', STATE_FILE: join(dir, 'state.json'), WAIT_SECONDS: '20' },
      timeout: 60_000,
    });
    const summary = stdout.split('\n').find((line) => line.startsWith('summary: '));
    expect(summary, stdout).toBeDefined();
    return JSON.parse(summary!.slice('summary: '.length));
  }

  it('is importable by a plain Node ESM program once built', async () => {
    const program = `
      import { createPickportClient, signWebhook, verifyWebhook } from '@pickport/client';
      const secret = 'a-secret-of-at-least-32-characters!!';
      const { payload } = verifyWebhook('{"event":"order.status_changed"}', signWebhook('{"event":"order.status_changed"}', secret), secret);
      console.log(payload.event, typeof createPickportClient);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program], { cwd: EXAMPLE });
    expect(stdout.trim()).toBe('order.status_changed function');
  });

  it('pushes the catalog in batches, submits orders and receives verified webhooks; a second run pulls and replays', async () => {
    const first = await example();
    expect(first.pushed).toEqual({ created: 120, updated: 0, errors: 0 });
    expect(first.orders).toEqual([
      { externalId: 'SO-5001', action: 'created', status: 'PENDING', hasIssues: false },
      { externalId: 'SO-5002', action: 'created', status: 'PENDING', hasIssues: false },
      { externalId: 'SO-5003', action: 'created', status: 'PENDING', hasIssues: true },
    ]);
    expect(first.webhooks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: 'order.status_changed', test: true }),
        expect.objectContaining({ event: 'order.issue_detected', test: false }),
      ]),
    );
    expect(first.refused).toBe(0);
    expect((await tenant.api.get('/products', { limit: '1' })).body.pagination.total).toBe(120);

    await settled(ctx.database.db);
    const second = await example();
    expect(second.pulled).toBe(120);
    expect(second.pushed).toEqual({ created: 0, updated: 120, errors: 0 });
    // The same idempotency keys: the first answers again, no order taken twice.
    expect(second.orders).toEqual(first.orders);
    expect(second.webhooks).toEqual([expect.objectContaining({ event: 'order.status_changed', test: true })]);
    expect((await tenant.api.get('/orders')).body.pagination.total).toBe(3);
    // Each run removes its webhook.
    expect((await tenant.api.get('/webhooks')).body.data).toEqual([]);
  }, 120_000);
});
