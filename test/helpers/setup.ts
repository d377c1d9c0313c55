import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config';
import type { Clock } from '../../src/http/rate-limit';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker';
import { seedProducts, type ProductSeed } from '../orders/helpers';
import { Receiver } from '../webhooks/receiver';
import { createTestContext, UNLIMITED, type KeyOptions, type TestContext, type TestTenant } from './context';

export interface TenantSetup extends ContextSetup {
  readonly tenant: TestTenant;
}

export interface TenantSetupOptions {
  /** Passed to createTestContext. */
  config?: Partial<Config>;
  /** The tenant's key; UNLIMITED unless told otherwise (`{}`: every permission, the default limits). */
  key?: KeyOptions;
  /** Catalog products the tenant holds before the first test. */
  products?: ProductSeed[];
}

function ready<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} is set up in beforeAll: read it inside a test or a hook, not while collecting`);
  return value;
}

/** What a test file or `describe` block reads once its `beforeAll` has run. */
export interface ContextSetup {
  readonly ctx: TestContext;
}

/**
 * Registers, in the current file or `describe`, a `beforeAll` that opens a test context on a fresh
 * database (createTestContext with `config` and `options`) and an `afterAll` that closes it. Read
 * `ctx` of the answer inside tests and hooks, once the setup has run.
 */
export function useTestContext(config?: Partial<Config>, options?: { clock?: Clock }): ContextSetup {
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(config, options);
  });
  afterAll(() => ctx?.close());
  return {
    get ctx() {
      return ready(ctx, 'ctx');
    },
  };
}

/**
 * useTestContext, and then one tenant (with `products`, if given) made in `beforeAll`. Read `ctx`
 * and `tenant` of the answer inside tests and hooks, once the setup has run.
 */
export function useTenant({ config, key = UNLIMITED, products }: TenantSetupOptions = {}): TenantSetup {
  const context = useTestContext(config);
  let tenant: TestTenant | undefined;
  beforeAll(async () => {
    tenant = await context.ctx.tenant(key);
    if (products) await seedProducts(tenant, products);
  });
  return {
    get ctx() {
      return context.ctx;
    },
    get tenant() {
      return ready(tenant, 'tenant');
    },
  };
}

export interface DeliverySetup extends ContextSetup {
  /** A delivery worker on the context's database and config. */
  readonly worker: DeliveryWorker;
  /** A webhook receiver on loopback. */
  readonly receiver: Receiver;
}

/**
 * useTestContext (with `config`), a delivery worker polling every `pollIntervalMs` (counting in the
 * app's metrics with `metrics`) and a webhook receiver, started in `beforeAll` and stopped in
 * `afterAll`: worker first, then receiver, then context.
 */
export function useDeliveries(config?: Partial<Config>, { pollIntervalMs = 200, metrics = false }: { pollIntervalMs?: number; metrics?: boolean } = {}): DeliverySetup {
  let ctx: TestContext | undefined;
  let worker: DeliveryWorker | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(config);
    receiver = await new Receiver().start();
    worker = await startDeliveryWorker({
      database: ctx.database,
      config: ctx.config,
      log: pino({ level: 'silent' }),
      pollIntervalMs,
      ...(metrics ? { metrics: ctx.app.metrics } : {}),
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await ctx?.close();
  });
  return {
    get ctx() {
      return ready(ctx, 'ctx');
    },
    get worker() {
      return ready(worker, 'worker');
    },
    get receiver() {
      return ready(receiver, 'receiver');
    },
  };
}
