import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config';
import { seedProducts, type ProductSeed } from '../orders/helpers';
import { createTestContext, UNLIMITED, type KeyOptions, type TestContext, type TestTenant } from './context';

/** What a test file or `describe` block reads once its `beforeAll` has run. */
export interface TenantSetup {
  readonly ctx: TestContext;
  readonly tenant: TestTenant;
}

export interface TenantSetupOptions {
  /** Passed to createTestContext. */
  config?: Partial<Config>;
  /** The tenant's key; UNLIMITED unless told otherwise. */
  key?: KeyOptions;
  /** Catalog products the tenant holds before the first test. */
  products?: ProductSeed[];
}

function ready<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} is set up in beforeAll: read it inside a test or a hook, not while collecting`);
  return value;
}

/**
 * Registers, in the current file or `describe`, a `beforeAll` that opens a test context on a fresh
 * database and makes one tenant (with `products`, if given), and an `afterAll` that closes it.
 * Read `ctx` and `tenant` of the answer inside tests and hooks, once the setup has run.
 */
export function useTenant({ config, key = UNLIMITED, products }: TenantSetupOptions = {}): TenantSetup {
  let ctx: TestContext | undefined;
  let tenant: TestTenant | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(config);
    tenant = await ctx.tenant(key);
    if (products) await seedProducts(tenant, products);
  });
  afterAll(() => ctx?.close());
  return {
    get ctx() {
      return ready(ctx, 'ctx');
    },
    get tenant() {
      return ready(tenant, 'tenant');
    },
  };
}
