import { expect } from 'vitest';
import type { TestContext, TestTenant } from '../helpers/context';

export interface ProductSeed {
  externalId: string;
  sku: string;
  stock?: number;
}

/** Creates (or updates) catalog products through the public API. */
export async function seedProducts(tenant: TestTenant, products: ProductSeed[]): Promise<void> {
  for (const product of products) {
    const response = await tenant.api.post('/products', { name: `Product ${product.externalId}`, ...product });
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  }
}

/** An order to send; without `extra`, one the intake functions take as it is (an OrderInput). */
export function order<Extra extends object = object>(externalId: string, items: { productExternalId: string; productSku: string; quantity: number }[], extra?: Extra) {
  return { externalId, orderNumber: `N-${externalId}`, items, ...extra };
}

export const item = (productExternalId: string, quantity = 1, productSku = `SKU-${productExternalId}`) => ({ productExternalId, productSku, quantity });

/** The tenant's outbox, oldest first, optionally only one kind of event. */
export async function eventsOf(ctx: TestContext, tenant: TestTenant, name?: string): Promise<{ event: string; data: Record<string, unknown> & { externalId?: string } }[]> {
  let query = ctx.database.db.selectFrom('events').select(['event', 'data']).where('tenant_id', '=', tenant.id);
  if (name) query = query.where('event', '=', name);
  const rows = await query.orderBy('occurred_at').execute();
  return rows.map((row) => ({ event: row.event, data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Record<string, unknown> }));
}

/** Calls the warehouse API of a tenant with the admin token. */
export function warehouse(ctx: TestContext, tenant: TestTenant) {
  const base = `/api/v1/warehouse/tenants/${tenant.slug}` as const;
  return {
    post: <P extends string>(path: P, body?: unknown) => ctx.admin('POST', `${base}${path}`, body),
    put: <P extends string>(path: P, body?: unknown) => ctx.admin('PUT', `${base}${path}`, body),
    get: <P extends string>(path: P) => ctx.admin('GET', `${base}${path}`),
    /** Moves an order through the given warehouse steps, each expected to succeed. */
    async advance(externalId: string, ...steps: ('start-picking' | 'complete-picking' | 'pack' | 'dispatch')[]) {
      for (const step of steps) {
        const response = await ctx.admin('POST', `${base}/orders/${externalId}/${step}`);
        expect(response.status, `${step}: ${JSON.stringify(response.body)}`).toBe(200);
      }
    },
  };
}

export async function stockOf(tenant: TestTenant, externalId: string): Promise<number> {
  const response = await tenant.api.get(`/products/${externalId}`);
  expect(response.status).toBe(200);
  return response.body.data.stock;
}
