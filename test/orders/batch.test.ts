import { beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { useTenant, useTestContext } from '../helpers/setup';
import { eventsOf, item, order, seedProducts, warehouse } from './helpers';

/*
 * The batch decides its orders with statements for the whole batch (src/orders/intake.ts), yet
 * each order must come out exactly as if the orders had been sent one after another.
 */

const catalog = [
  { externalId: 'S', sku: 'SKU-S', stock: 5 },
  { externalId: 'Q', sku: 'SKU-Q', stock: 2 },
  { externalId: 'P1', sku: 'SKU-P1', stock: 100 },
];

/** Existing orders, then a batch mixing everything intake decides: its answer must be that of the orders sent one by one. */
const before = [order('X', [item('Q', 2)]), order('LATE', [item('P1')])];
const batch: unknown[] = [
  order('A', [item('S', 3)]), // available 5: no issue
  order('BAD', [item('S', 0)]), // refused by its schema
  order('V', [item('S', 4), item('UNKNOWN')]), // PENDING_VALIDATION: holds nothing
  order('B', [item('S', 2)]), // available 2 (V holds nothing): no issue
  order('C', [item('S', 1)]), // available 0: short, and holds its unit anyway
  order('D', [item('S', 1)]), // short
  order('N1', [item('Q', 1)]), // X holds Q: short, queued
  order('X', [item('P1', 1)]), // an update that frees Q: N1 is served
  order('N2', [item('Q', 1)]), // what is left of Q after N1
  order('A', [item('S', 1), item('P1', 2)], { notes: 'again' }), // the same externalId twice: an update, freeing S for C
  order('A', [item('P1')], { orderNumber: 'OTHER' }), // orderNumber is immutable
  order('E', [item('P1')], { orderNumber: 'N-B' }), // orderNumber taken in this batch
  order('F', [item('P1')], { orderNumber: 'N-LATE' }), // orderNumber taken before the batch
  order('G', [item('P1'), item('P1', 2)]), // one line per product
  { orderNumber: 'no-id', items: [item('P1')] },
  order('LATE', [item('S', 1)]), // an existing order moved on by the warehouse: 409
  // Fields that are not order fields: saved without them, each named in a warning.
  { ...order('U', []), items: [{ ...item('P1'), note: 'fragile' }], prority: 'high', status: 'PICKED', customer: { externalId: 'C-1', emial: 'a@example.com' } },
];

type Answer = { status: number; body: Record<string, unknown> & { data?: Record<string, unknown>; error?: Record<string, unknown> } };

/** The batch answer's counters, errors and warnings that the same orders sent one by one give. */
function asBatch(answers: Answer[]) {
  const data = { successCount: 0, createdCount: 0, updatedCount: 0, errorCount: 0 };
  const errors: unknown[] = [];
  const warnings: unknown[] = [];
  answers.forEach(({ status, body }, index) => {
    const externalId = (batch[index] as { externalId?: string }).externalId ?? null;
    if (status >= 400) {
      data.errorCount++;
      const { code, message, details } = body.error as { code: string; message: string; details?: unknown };
      errors.push({ index, externalId, code, error: message, ...(details ? { details } : {}) });
      return;
    }
    data.successCount++;
    data[status === 201 ? 'createdCount' : 'updatedCount']++;
    for (const warning of (body.warnings as string[] | undefined) ?? []) warnings.push({ index, externalId, warning });
  });
  return { data, errors, warnings };
}

const without = (record: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));

/** What a tenant's orders and events say, without ids and times. */
async function stateOf(ctx: TestContext, tenant: TestTenant) {
  const listed = (await tenant.api.get('/orders', { limit: '100' })).body.data as Record<string, unknown>[];
  const orders = listed
    .map((listedOrder) => without(listedOrder, ['id', 'createdAt', 'updatedAt', 'cancelledAt', 'pickedAt']))
    .sort((a, b) => String(a.externalId).localeCompare(String(b.externalId)));
  // As a multiset: the events of one batch are written by one statement, and the orders of one
  // transaction share their creation time, so their order among themselves is not fixed.
  const events = (await eventsOf(ctx, tenant)).map(({ event, data }) => JSON.stringify({ event, ...without(data, ['updatedAt', 'productId']) })).sort();
  return { orders, events };
}

describe('POST /orders/batch: set-based, with the answers of the orders sent one by one', () => {
  const setup = useTestContext();
  let batched: TestTenant;
  let oneByOne: TestTenant;
  beforeAll(async () => {
    [batched, oneByOne] = [await setup.ctx.tenant(UNLIMITED), await setup.ctx.tenant(UNLIMITED)];
    for (const tenant of [batched, oneByOne]) {
      await seedProducts(tenant, catalog);
      for (const existing of before) expect((await tenant.api.post('/orders', existing)).status).toBe(201);
      await warehouse(setup.ctx, tenant).advance('LATE', 'start-picking');
    }
  });

  it('gives every order the result, stored order and events it gets when sent on its own', async () => {
    const response = await batched.api.post('/orders/batch', { orders: batch });
    expect(response.status).toBe(200);
    const answers: Answer[] = [];
    for (const candidate of batch) answers.push(await oneByOne.api.post('/orders', candidate));

    const { data, errors, warnings } = response.body;
    expect({ data, errors, warnings }).toEqual(asBatch(answers));
    expect(await stateOf(setup.ctx, batched)).toEqual(await stateOf(setup.ctx, oneByOne));

    // What the comparison covers, spelled out.
    expect(data).toEqual({ successCount: 10, createdCount: 8, updatedCount: 2, errorCount: 7 });
    expect(errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'VALIDATION_ERROR'],
      [10, 'CONFLICT'],
      [11, 'CONFLICT'],
      [12, 'CONFLICT'],
      [13, 'VALIDATION_ERROR'],
      [14, 'VALIDATION_ERROR'],
      [15, 'CONFLICT'],
    ]);
    expect(warnings.filter((w: { index: number }) => w.index === 16).map((w: { warning: string }) => w.warning)).toEqual([
      'items[0].note is not a field of items[0]; it was ignored',
      'prority is not a field of an order (did you mean priority?); it was ignored',
      'status is set by the service, not by a request; it was ignored',
      'customer.emial is not a field of customer (did you mean customer.email?); it was ignored',
    ]);
    const issuesOf = async (externalId: string) => (await batched.api.get(`/orders/${externalId}`)).body.data;
    expect(await issuesOf('V')).toMatchObject({ status: 'PENDING_VALIDATION', unresolvedProducts: [{ productExternalId: 'UNKNOWN' }] });
    // C and D were short until the second A freed 2 units of S; N1 was served by the update of X.
    for (const served of ['A', 'B', 'C', 'D', 'N1', 'N2', 'X']) expect(await issuesOf(served)).toMatchObject({ status: 'PENDING', hasIssues: false });
    const resolved = await eventsOf(setup.ctx, batched, 'order.issue_resolved');
    expect(resolved.map((event) => event.data.externalId).sort()).toEqual(['C', 'D', 'N1']);
  });
});

describe('order batches racing stock changes', () => {
  const setup = useTenant();

  it('batches, single orders, product batches and stock adjustments on the same products all answer, and never promise more than the stock', async () => {
    const products = ['R0', 'R1', 'R2', 'R3'];
    await seedProducts(setup.tenant, products.map((externalId) => ({ externalId, sku: `SKU-${externalId}`, stock: 6 })));
    const floor = warehouse(setup.ctx, setup.tenant);
    // Each order takes two different products, in an order that differs from order to order.
    const orderOf = (id: string, n: number) => order(id, [item(products[n % 4]!), item(products[(n + 1 + (n % 3)) % 4]!, 2)]);
    const requests = [
      ...Array.from({ length: 4 }, (_, b) => setup.tenant.api.post('/orders/batch', { orders: Array.from({ length: 10 }, (_, i) => orderOf(`RB${b}-${i}`, b * 10 + i)) })),
      ...Array.from({ length: 8 }, (_, i) => setup.tenant.api.post('/orders', orderOf(`RS-${i}`, i + 3))),
      setup.tenant.api.post('/products/batch', { products: products.map((externalId) => ({ externalId, sku: `SKU-${externalId}`, name: externalId, stock: 9 })) }),
      ...products.map((externalId) => floor.post(`/products/${externalId}/stock`, { delta: 2 })),
    ];
    const answers = await Promise.all(requests);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    for (const batchAnswer of answers.slice(0, 4)) expect(batchAnswer.body.data).toMatchObject({ successCount: 10, errorCount: 0 });

    const orders = (await setup.tenant.api.get('/orders', { limit: '100' })).body.data as {
      status: string;
      issues: { type: string; productExternalId: string }[];
      items: { productExternalId: string; quantity: number }[];
    }[];
    expect(orders).toHaveLength(48);
    let short = 0;
    for (const product of products) {
      const stock = (await setup.tenant.api.get(`/products/${product}`)).body.data.stock;
      // The lines that count as covered: of PENDING orders with no stock issue on the product.
      const promised = orders
        .filter((o) => o.status === 'PENDING' && !o.issues.some((issue) => issue.type === 'INSUFFICIENT_STOCK' && issue.productExternalId === product))
        .flatMap((o) => o.items.filter((line) => line.productExternalId === product))
        .reduce((sum, line) => sum + line.quantity, 0);
      expect(promised).toBeLessThanOrEqual(stock);
      expect(promised).toBeGreaterThan(0);
      short += orders.filter((o) => o.issues.some((issue) => issue.productExternalId === product)).length;
    }
    // Far more was asked for than there is: the race had something to decide.
    expect(short).toBeGreaterThan(0);
  });
});
