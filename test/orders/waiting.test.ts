import { describe, expect, it } from 'vitest';
import { type TestTenant } from '../helpers/context';
import { useTenant } from '../helpers/setup';
import { eventsOf, item, order, seedProducts, warehouse } from './helpers';

/** GET /orders/{externalId} of each given order, in that order. */
async function ordersOf(tenant: TestTenant, ids: string[]) {
  const orders = [];
  for (const id of ids) orders.push((await tenant.api.get(`/orders/${id}`)).body.data);
  return orders;
}

/** Every order of the tenant, oldest first, through the order list. */
async function listed(tenant: TestTenant): Promise<{ externalId: string; hasIssues: boolean }[]> {
  const orders = [];
  let cursor: string | null = null;
  do {
    const page: { data: { externalId: string; hasIssues: boolean }[]; pagination: { nextCursor: string | null } } = (
      await tenant.api.get('/orders', { limit: '100', ...(cursor ? { cursor } : {}) })
    ).body;
    orders.push(...page.data);
    cursor = page.pagination.nextCursor;
  } while (cursor);
  return orders;
}

describe('orders waiting on stock are served oldest first, as far as the stock goes', () => {
  const setup = useTenant();

  it('with 300 orders waiting, a restock resolves exactly the oldest ones the new stock covers; the others keep waiting', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'QUEUE', sku: 'SKU-QUEUE', stock: 10 }]);
    expect((await setup.tenant.api.post('/orders', order('Q-HOLDER', [item('QUEUE', 10)]))).body.data.hasIssues).toBe(false);
    const quantities = new Map(Array.from({ length: 300 }, (_, n) => [`Q-${n}`, 1 + (n % 3)]));
    const batches = [...quantities].map(([id, quantity]) => order(id, [item('QUEUE', quantity)]));
    for (let from = 0; from < batches.length; from += 50) {
      const placed = await setup.tenant.api.post('/orders/batch', { orders: batches.slice(from, from + 50) });
      expect(placed.body.data).toMatchObject({ createdCount: 50, errorCount: 0 });
    }
    // Oldest first, as the order list shows them (orders of one batch share a creation time).
    const waiting = (await listed(setup.tenant)).filter(({ externalId }) => quantities.has(externalId)).map(({ externalId, hasIssues }) => {
      expect(hasIssues).toBe(true);
      return { id: externalId, quantity: quantities.get(externalId)! };
    });
    expect(waiting).toHaveLength(300);

    // 10 held by Q-HOLDER, 250 more: the oldest waiting orders whose quantities add up to at most 250.
    expect((await warehouse(setup.ctx, setup.tenant).post('/products/QUEUE/stock', { delta: 250 })).status).toBe(200);
    let covered = 0;
    const served = new Set<string>();
    for (const { id, quantity } of waiting) {
      if (covered + quantity > 250) break;
      covered += quantity;
      served.add(id);
    }
    expect(covered).toBeGreaterThan(245);

    const orders = await ordersOf(setup.tenant, waiting.map(({ id }) => id));
    for (const current of orders) {
      if (served.has(current.externalId)) {
        expect(current).toMatchObject({ status: 'PENDING', hasIssues: false, issues: [] });
      } else {
        expect(current).toMatchObject({ status: 'PENDING', hasIssues: true, issues: [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'QUEUE', productSku: 'SKU-QUEUE' }] });
      }
    }
    const resolved = await eventsOf(setup.ctx, setup.tenant, 'order.issue_resolved');
    expect(resolved.map((event) => String(event.data.externalId)).sort()).toEqual([...served].sort());
    const first = waiting[0]!.id;
    expect(resolved.find((event) => event.data.externalId === first)?.data).toEqual({ externalId: first, orderNumber: `N-${first}`, status: 'PENDING', hasIssues: false, resolvedIssues: ['INSUFFICIENT_STOCK'] });

    // What is left goes to the oldest order still waiting once it covers it, not to a newer one it would cover.
    const next = waiting.find(({ id }) => !served.has(id))!;
    const missing = next.quantity - (250 - covered);
    if (missing > 1) {
      await warehouse(setup.ctx, setup.tenant).post('/products/QUEUE/stock', { delta: missing - 1 });
      expect((await eventsOf(setup.ctx, setup.tenant, 'order.issue_resolved')).length).toBe(served.size);
    }
    await warehouse(setup.ctx, setup.tenant).post('/products/QUEUE/stock', { delta: 1 });
    expect((await eventsOf(setup.ctx, setup.tenant, 'order.issue_resolved')).slice(served.size).map((event) => event.data.externalId)).toEqual([next.id]);
  }, 120_000);

  it('a cancel frees stock for the oldest waiting order, even while newer ones wait for more than is left', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'FREED', sku: 'SKU-FREED', stock: 3 }]);
    await setup.tenant.api.post('/orders', order('F-HOLDER', [item('FREED', 3)]));
    for (const [id, quantity] of [['F-OLD', 3], ['F-NEW', 1]] as const) {
      expect((await setup.tenant.api.post('/orders', order(id, [item('FREED', quantity)]))).body.data.hasIssues).toBe(true);
    }
    expect((await setup.tenant.api.post('/orders/F-HOLDER/cancel')).status).toBe(200);
    const [old, newer] = await ordersOf(setup.tenant, ['F-OLD', 'F-NEW']);
    expect(old).toMatchObject({ status: 'PENDING', hasIssues: false, issues: [] });
    expect(newer).toMatchObject({ status: 'PENDING', hasIssues: true, issues: [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'FREED' }] });
    const resolved = (await eventsOf(setup.ctx, setup.tenant, 'order.issue_resolved')).filter((event) => String(event.data.externalId).startsWith('F-'));
    expect(resolved.map((event) => event.data.externalId)).toEqual(['F-OLD']);
  });

  it('a product created later resolves all the orders waiting for it; those its stock does not cover, oldest first, are flagged short', async () => {
    await seedProducts(setup.tenant, [{ externalId: 'KNOWN', sku: 'SKU-KNOWN', stock: 100 }]);
    const ids = Array.from({ length: 60 }, (_, n) => `L-${n}`);
    for (const id of ids) {
      expect((await setup.tenant.api.post('/orders', order(id, [item('KNOWN'), item('LATER', 2)]))).body.data.status).toBe('PENDING_VALIDATION');
    }
    await seedProducts(setup.tenant, [{ externalId: 'LATER', sku: 'SKU-LATER', stock: 80 }]);

    const orders = await ordersOf(setup.tenant, ids);
    orders.slice(0, 40).forEach((current) => expect(current).toMatchObject({ status: 'PENDING', hasIssues: false, issues: [] }));
    orders.slice(40).forEach((current) =>
      expect(current).toMatchObject({ status: 'PENDING', hasIssues: true, issues: [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'LATER', productSku: 'SKU-LATER' }] }),
    );
    const events = (await eventsOf(setup.ctx, setup.tenant)).filter((event) => ids.includes(String(event.data.externalId)));
    // Events of one transaction share their time: compared as sets.
    const after = (id: string) => events.filter((event) => event.data.externalId === id).map((event) => event.event).sort();
    expect(after('L-0')).toEqual(['order.issue_detected', 'order.issue_resolved', 'order.status_changed']);
    expect(after('L-59')).toEqual(['order.issue_detected', 'order.issue_detected', 'order.issue_resolved', 'order.status_changed']);
    const changed = events.filter((event) => event.event === 'order.status_changed').map((event) => event.data.externalId);
    expect(changed.sort()).toEqual([...ids].sort());
    // The lines resolved: the product now refuses a sku change, and the orders hold its stock.
    expect((await setup.tenant.api.post('/products', { externalId: 'LATER', sku: 'SKU-RENAMED', name: 'x' })).status).toBe(409);
    expect((await setup.tenant.api.post('/orders', order('L-NEXT', [item('LATER', 1)]))).body.data.hasIssues).toBe(true);
  });

  it('an order waiting on two products loses the issue of the one restocked and keeps the other', async () => {
    await seedProducts(setup.tenant, [
      { externalId: 'TWO-A', sku: 'SKU-TWO-A', stock: 0 },
      { externalId: 'TWO-B', sku: 'SKU-TWO-B', stock: 0 },
    ]);
    await setup.tenant.api.post('/orders', order('T-1', [item('TWO-A', 2), item('TWO-B', 2)]));
    await warehouse(setup.ctx, setup.tenant).post('/products/TWO-A/stock', { stock: 2 });
    const [current] = await ordersOf(setup.tenant, ['T-1']);
    expect(current).toMatchObject({ status: 'PENDING', hasIssues: true, issues: [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'TWO-B', productSku: 'SKU-TWO-B' }] });
    const resolved = (await eventsOf(setup.ctx, setup.tenant, 'order.issue_resolved')).filter((event) => event.data.externalId === 'T-1');
    expect(resolved.map((event) => event.data)).toEqual([
      { externalId: 'T-1', orderNumber: 'N-T-1', status: 'PENDING', hasIssues: true, resolvedIssues: ['INSUFFICIENT_STOCK'] },
    ]);
  });
});
