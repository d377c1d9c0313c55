import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { twoTenants, usingPostgres, UNLIMITED } from '../helpers/context';
import { useTenant } from '../helpers/setup';
import { eventsOf, item, order, seedProducts, stockOf, warehouse } from './helpers';
import { listAroundLateCommit, settle, settled } from '../helpers/wait';

describe('orders: batch, reads, cancel, re-validation', () => {
  const setup = useTenant({
    products: [
      { externalId: 'P1', sku: 'SKU-P1', stock: 100 },
      { externalId: 'P2', sku: 'SKU-P2', stock: 100 },
      { externalId: 'FEW', sku: 'SKU-FEW', stock: 4 },
    ],
  });

  describe('POST /orders/batch', () => {
    it('processes each order on its own and reports counters, per-index errors and warnings', async () => {
      await setup.tenant.api.post('/orders', order('B-EXISTING', [item('P1')]));
      const response = await setup.tenant.api.post('/orders/batch', {
        orders: [
          order('B-1', [item('P1'), item('P2', 2)]),
          order('B-2', [item('P1', 0)]),
          order('B-EXISTING', [item('P2')]),
          order('B-3', [item('UNKNOWN')]),
          order('B-4', [item('P1')], { orderNumber: 'N-B-1' }),
          { orderNumber: 'no-id' },
        ],
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({ successCount: 3, createdCount: 2, updatedCount: 1, errorCount: 3 });
      expect(response.body.errors).toEqual([
        expect.objectContaining({ index: 1, externalId: 'B-2', code: 'VALIDATION_ERROR', error: expect.stringContaining('items[0].quantity') }),
        expect.objectContaining({ index: 4, externalId: 'B-4', code: 'CONFLICT', error: expect.stringContaining('N-B-1') }),
        expect.objectContaining({ index: 5, externalId: null, code: 'VALIDATION_ERROR' }),
      ]);
      expect(response.body.warnings).toEqual([{ index: 3, externalId: 'B-3', warning: expect.stringContaining('UNKNOWN') }]);
      expect((await setup.tenant.api.get('/orders/B-1')).body.data.itemsCount).toBe(2);
      expect((await setup.tenant.api.get('/orders/B-3')).body.data.status).toBe('PENDING_VALIDATION');
      expect((await setup.tenant.api.get('/orders/B-2')).status).toBe(404);
      expect((await setup.tenant.api.get('/orders/B-4')).status).toBe(404);
      const detected = await eventsOf(setup.ctx, setup.tenant, 'order.issue_detected');
      expect(detected.filter((e) => e.data.externalId === 'B-3')).toHaveLength(1);
    });

    it('refuses more than 50 orders with 413 PAYLOAD_TOO_LARGE, storing none', async () => {
      const orders = Array.from({ length: 51 }, (_, i) => order(`BIG-${i}`, [item('P1')]));
      const response = await setup.tenant.api.post('/orders/batch', { orders });
      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect((await setup.tenant.api.get('/orders/BIG-0')).status).toBe(404);
    });

    it('takes a body above the 1 MB default and refuses one above 10 MB with 413', async () => {
      const padded = (size: number) => ({ orders: [order('PAD-1', [item('P1')], { metadata: { pad: 'x'.repeat(size) } })] });
      expect((await setup.tenant.api.post('/orders/batch', padded(2 * 1024 * 1024))).status).toBe(200);
      const response = await setup.tenant.api.post('/orders/batch', padded(10 * 1024 * 1024 + 1));
      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });
  });

  describe('GET /orders/{externalId} and GET /orders', () => {
    it('answers 404 NOT_FOUND for an unknown order', async () => {
      const response = await setup.tenant.api.get('/orders/NOPE');
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    });

    it('pages with a keyset cursor until hasMore is false, with total', async () => {
      const other = await setup.ctx.tenant(UNLIMITED);
      await seedProducts(other, [{ externalId: 'P1', sku: 'SKU-P1', stock: 1000 }]);
      for (let i = 0; i < 5; i++) await other.api.post('/orders', order(`L-${i}`, [item('P1')]));
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const response = await other.api.get('/orders', { limit: '2', ...(cursor ? { cursor } : {}) });
        expect(response.status).toBe(200);
        expect(response.body.pagination).toMatchObject({ limit: 2, total: 5 });
        seen.push(...response.body.data.map((o: { externalId: string }) => o.externalId));
        if (!response.body.pagination.hasMore) {
          expect(response.body.pagination.nextCursor).toBeNull();
          break;
        }
        cursor = response.body.pagination.nextCursor ?? undefined;
      }
      expect(seen).toEqual(['L-0', 'L-1', 'L-2', 'L-3', 'L-4']);
      expect(response200(await other.api.get('/orders', { limit: '1' })).data[0]).toMatchObject({ items: [{ productExternalId: 'P1' }] });

      // updated_since lists in updatedAt order: the order changed last comes last.
      const since = new Date(Date.now() - 60_000).toISOString();
      await other.api.post('/orders', order('L-0', [item('P1', 2)]));
      await settled(setup.ctx.database.db);
      const byUpdate = await other.api.get('/orders', { updated_since: since });
      expect(byUpdate.body.data.at(-1)?.externalId).toBe('L-0');
      const future = new Date(Date.now() + 60_000).toISOString();
      expect((await other.api.get('/orders', { created_since: future })).body.pagination.total).toBe(0);
      await other.api.post('/orders/L-1/cancel');
      const cancelled = await other.api.get('/orders', { status: 'CANCELLED' });
      expect(cancelled.body.data.map((o: { externalId: string }) => o.externalId)).toEqual(['L-1']);
      expect((await other.api.get('/orders', { has_issues: 'false' })).body.pagination.total).toBe(5);
    });

    // On the embedded database transactions run one after another, so none can commit late like this.
    it.skipIf(!usingPostgres)('lists by updated_since nothing past a write still running, so a resuming sync misses no late commit', async () => {
      const other = await setup.ctx.tenant(UNLIMITED);
      await seedProducts(other, [{ externalId: 'P1', sku: 'SKU-P1', stock: 10 }]);
      for (const id of ['U-1', 'U-2']) await other.api.post('/orders', order(id, [item('P1')]));
      await settle();
      const since = new Date().toISOString();
      // The late write's order is stamped with its start, before the order cancelled after it.
      const { whileRunning, afterCommit: listed } = await listAroundLateCommit(
        setup.ctx.database.db,
        (late) => sql`UPDATE orders SET updated_at = now() WHERE tenant_id = ${other.id} AND external_id = 'U-1'`.execute(late),
        () => other.api.post('/orders/U-2/cancel'),
        async () => (await other.api.get('/orders', { updated_since: since })).body.data,
      );
      expect(whileRunning).toEqual([]);
      expect(listed.map((o: { externalId: string }) => o.externalId)).toEqual(['U-1', 'U-2']);
    });

    it('counts total on the first page and carries it in the cursor: later pages keep the listing\'s total', async () => {
      const other = await setup.ctx.tenant(UNLIMITED);
      await seedProducts(other, [{ externalId: 'P1', sku: 'SKU-P1', stock: 1000 }]);
      for (let i = 0; i < 3; i++) await other.api.post('/orders', order(`T-${i}`, [item('P1')]));
      const first = await other.api.get('/orders', { limit: '2' });
      expect(first.body.pagination).toMatchObject({ total: 3, hasMore: true });
      await other.api.post('/orders', order('T-3', [item('P1')]));
      // The order created meanwhile shows on the next page, but the total is the listing's own.
      const second = await other.api.get('/orders', { limit: '2', cursor: first.body.pagination.nextCursor! });
      expect(second.body.data.map((o: { externalId: string }) => o.externalId)).toEqual(['T-2', 'T-3']);
      expect(second.body.pagination.total).toBe(3);
      expect((await other.api.get('/orders', { limit: '2' })).body.pagination.total).toBe(4);
      // A cursor fits only listings of its order: this one lists by createdAt, not updatedAt.
      const wrongKind = await other.api.get('/orders', { updated_since: '2000-01-01T00:00:00Z', cursor: first.body.pagination.nextCursor! });
      expect(wrongKind.status).toBe(400);
      // A cursor without a total (as issued before totals were carried, and unsigned) is refused on `cursor`.
      const [mode, key, id] = JSON.parse(Buffer.from(first.body.pagination.nextCursor!.split('.')[0]!, 'base64url').toString());
      const old = await other.api.get('/orders', { cursor: Buffer.from(JSON.stringify([mode, key, id])).toString('base64url') });
      expect(old.status).toBe(400);
      expect(old.body.error.details[0]?.field).toBe('cursor');
    });

    it.each([
      ['limit', { limit: '101' }],
      ['cursor', { cursor: 'garbage' }],
      ['status', { status: 'LOST' }],
      ['created_since', { created_since: 'yesterday' }],
    ])('rejects a bad %s with 400 VALIDATION_ERROR', async (_name, query) => {
      const response = await setup.tenant.api.get('/orders', query);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('keeps tenants apart: same externalId and orderNumber, neither sees nor cancels the other', async () => {
      const [a, b] = await twoTenants(setup.ctx);
      await seedProducts(a, [{ externalId: 'P1', sku: 'SKU-P1', stock: 10 }]);
      expect((await a.api.post('/orders', order('T-1', [item('P1')]))).body.data.status).toBe('PENDING');
      // In B the product does not exist: the same order is unresolved there.
      expect((await b.api.post('/orders', order('T-1', [item('P1')]))).body.data.status).toBe('PENDING_VALIDATION');
      await b.api.post('/orders/T-1/cancel');
      expect((await a.api.get('/orders/T-1')).body.data.status).toBe('PENDING');
      expect((await a.api.get('/orders')).body.pagination.total).toBe(1);
      expect((await setup.ctx.admin('POST', `/api/v1/warehouse/tenants/${b.slug}/orders/T-1/start-picking`)).status).toBe(409);
      expect((await a.api.get('/orders/T-1')).body.data.status).toBe('PENDING');
    });
  });

  describe('POST /orders/{externalId}/cancel', () => {
    it.each(['PENDING', 'PENDING_VALIDATION'])('cancels a %s order with cancelledAt and order.status_changed', async (status) => {
      const id = `C-${status}`;
      const created = await setup.tenant.api.post('/orders', order(id, [item(status === 'PENDING' ? 'P1' : 'MISSING')]));
      expect(created.body.data.status).toBe(status);
      const response = await setup.tenant.api.post(`/orders/${id}/cancel`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ success: true, data: { externalId: id, status: 'CANCELLED', cancelledAt: expect.any(String) } });
      const changed = (await eventsOf(setup.ctx, setup.tenant, 'order.status_changed')).filter((e) => e.data.externalId === id);
      expect(changed.map((e) => e.data)).toEqual([
        { externalId: id, orderNumber: `N-${id}`, previousStatus: status, status: 'CANCELLED', updatedAt: expect.any(String) },
      ]);
      expect((await setup.tenant.api.get(`/orders/${id}`)).body.data).toMatchObject({ status: 'CANCELLED', cancelledAt: response.body.data.cancelledAt });
    });

    it('answers 200 with the original cancelledAt when the order is already cancelled, emitting nothing', async () => {
      await setup.tenant.api.post('/orders', order('C-TWICE', [item('P1')]));
      const first = await setup.tenant.api.post('/orders/C-TWICE/cancel');
      const before = (await eventsOf(setup.ctx, setup.tenant)).length;
      const second = await setup.tenant.api.post('/orders/C-TWICE/cancel');
      expect(second.status).toBe(200);
      expect(second.body.data.cancelledAt).toBe(first.body.data.cancelledAt);
      expect((await eventsOf(setup.ctx, setup.tenant)).length).toBe(before);
    });

    it.each([
      ['IN_PICKING', ['start-picking']],
      ['PICKED', ['start-picking', 'complete-picking']],
      ['PACKED', ['start-picking', 'complete-picking', 'pack']],
      ['DISPATCHED', ['start-picking', 'complete-picking', 'pack', 'dispatch']],
    ] as const)('refuses to cancel a %s order with 409 ORDER_IN_PROGRESS', async (status, steps) => {
      const id = `C-LATE-${status}`;
      await setup.tenant.api.post('/orders', order(id, [item('P1')]));
      await warehouse(setup.ctx, setup.tenant).advance(id, ...steps);
      const response = await setup.tenant.api.post(`/orders/${id}/cancel`);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('ORDER_IN_PROGRESS');
      expect((await setup.tenant.api.get(`/orders/${id}`)).body.data.status).toBe(status);
    });

    it('answers 404 for an unknown order', async () => {
      expect((await setup.tenant.api.post('/orders/NOPE/cancel')).status).toBe(404);
    });

    it('releases the stock the order held: a waiting order loses its INSUFFICIENT_STOCK issue', async () => {
      await setup.tenant.api.post('/orders', order('HOLD-1', [item('FEW', 3)]));
      const waiting = await setup.tenant.api.post('/orders', order('HOLD-2', [item('FEW', 2)]));
      expect(waiting.body.data.issues).toEqual([{ type: 'INSUFFICIENT_STOCK', productExternalId: 'FEW', productSku: 'SKU-FEW' }]);
      await setup.tenant.api.post('/orders/HOLD-1/cancel');
      expect((await setup.tenant.api.get('/orders/HOLD-2')).body.data).toMatchObject({ status: 'PENDING', hasIssues: false, issues: [] });
      const resolved = (await eventsOf(setup.ctx, setup.tenant, 'order.issue_resolved')).filter((e) => e.data.externalId === 'HOLD-2');
      expect(resolved.map((e) => e.data)).toEqual([
        { externalId: 'HOLD-2', orderNumber: 'N-HOLD-2', status: 'PENDING', hasIssues: false, resolvedIssues: ['INSUFFICIENT_STOCK'] },
      ]);
      expect(await stockOf(setup.tenant, 'FEW')).toBe(4);
    });
  });

  describe('automatic re-validation when the catalog changes', () => {
    it('a product created later resolves a PENDING_VALIDATION order: PENDING, order.issue_resolved, order.status_changed', async () => {
      await setup.tenant.api.post('/orders', order('R-1', [item('P1'), item('LATER', 2)]));
      await seedProducts(setup.tenant, [{ externalId: 'LATER', sku: 'SKU-LATER', stock: 5 }]);
      expect((await setup.tenant.api.get('/orders/R-1')).body.data).toMatchObject({ status: 'PENDING', hasIssues: false, unresolvedProducts: [] });
      const events = (await eventsOf(setup.ctx, setup.tenant)).filter((e) => e.data.externalId === 'R-1');
      expect(events.map((e) => [e.event, e.data.status])).toEqual([
        ['order.issue_detected', 'PENDING_VALIDATION'],
        ['order.issue_resolved', 'PENDING'],
        ['order.status_changed', 'PENDING'],
      ]);
      expect(events[1]?.data.resolvedIssues).toEqual(['UNRESOLVED_PRODUCT']);
    });

    it('a sku corrected in the catalog resolves an order that named the new sku', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'FIXME', sku: 'SKU-OLD', stock: 5 }]);
      await setup.tenant.api.post('/orders', order('R-2', [item('FIXME', 1, 'SKU-NEW')]));
      await seedProducts(setup.tenant, [{ externalId: 'FIXME', sku: 'SKU-NEW' }]);
      expect((await setup.tenant.api.get('/orders/R-2')).body.data.status).toBe('PENDING');
    });

    it('once resolved into an open order, a product refuses a sku change (409 CONFLICT) until the order ends', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'LOCKED', sku: 'SKU-LOCKED', stock: 5 }]);
      await setup.tenant.api.post('/orders', order('R-3', [item('LOCKED')]));
      const refused = await setup.tenant.api.post('/products', { externalId: 'LOCKED', sku: 'SKU-RENAMED', name: 'x' });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
      await setup.tenant.api.post('/orders/R-3/cancel');
      expect((await setup.tenant.api.post('/products', { externalId: 'LOCKED', sku: 'SKU-RENAMED', name: 'x' })).status).toBe(200);
    });

    it('restocking satisfies a PENDING order waiting on stock; a resolved order that still lacks stock keeps that issue', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'EMPTY', sku: 'SKU-EMPTY', stock: 0 }]);
      const created = await setup.tenant.api.post('/orders', order('R-4', [item('EMPTY', 3)]));
      expect(created.body.data).toMatchObject({ status: 'PENDING', hasIssues: true });
      await seedProducts(setup.tenant, [{ externalId: 'EMPTY', sku: 'SKU-EMPTY', stock: 2 }]);
      expect((await setup.tenant.api.get('/orders/R-4')).body.data.hasIssues).toBe(true);
      const adjusted = await warehouse(setup.ctx, setup.tenant).post('/products/EMPTY/stock', { delta: 1 });
      expect(adjusted.status).toBe(200);
      expect((await setup.tenant.api.get('/orders/R-4')).body.data).toMatchObject({ status: 'PENDING', hasIssues: false });

      await setup.tenant.api.post('/orders', order('R-5', [item('NEWCOMER', 4)]));
      await seedProducts(setup.tenant, [{ externalId: 'NEWCOMER', sku: 'SKU-NEWCOMER', stock: 1 }]);
      const r5 = (await setup.tenant.api.get('/orders/R-5')).body.data;
      expect(r5).toMatchObject({ status: 'PENDING', hasIssues: true, issues: [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'NEWCOMER' }] });
      const kinds = (await eventsOf(setup.ctx, setup.tenant)).filter((e) => e.data.externalId === 'R-5').map((e) => e.event);
      expect(kinds).toEqual(['order.issue_detected', 'order.issue_detected', 'order.issue_resolved', 'order.status_changed']);
    });
  });
});

function response200<T>(response: { status: number; body: T }): T {
  expect(response.status).toBe(200);
  return response.body;
}
