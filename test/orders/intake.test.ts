import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db';
import { runWrite } from '../../src/http/write';
import { createOrderAlone, upsertOrder } from '../../src/orders/intake';
import { usingPostgres } from '../helpers/context';
import { roundTripCounter } from '../helpers/round-trips';
import { useTenant } from '../helpers/setup';
import { eventsOf, item, order, seedProducts, warehouse } from './helpers';

describe('POST /orders', () => {
  const setup = useTenant({
    products: [
      { externalId: 'P1', sku: 'SKU-P1', stock: 10 },
      { externalId: 'P2', sku: 'SKU-P2', stock: 5 },
      { externalId: 'LOW', sku: 'SKU-LOW', stock: 3 },
    ],
  });

  describe('validation', () => {
    const valid = order('V-1', [item('P1')]);
    const cases: [string, Record<string, unknown>, string][] = [
      ['missing externalId', { ...valid, externalId: undefined }, 'externalId'],
      ['empty externalId', { ...valid, externalId: '' }, 'externalId'],
      ['externalId over 100', { ...valid, externalId: 'x'.repeat(101) }, 'externalId'],
      ['missing orderNumber', { ...valid, orderNumber: undefined }, 'orderNumber'],
      ['orderNumber over 100', { ...valid, orderNumber: 'x'.repeat(101) }, 'orderNumber'],
      ['no items', { ...valid, items: [] }, 'items'],
      ['missing items', { ...valid, items: undefined }, 'items'],
      ['quantity 0', { ...valid, items: [item('P1', 0)] }, 'items[0].quantity'],
      ['negative quantity', { ...valid, items: [item('P2'), item('P1', -2)] }, 'items[1].quantity'],
      ['quantity as text', { ...valid, items: [{ ...item('P1'), quantity: '2' }] }, 'items[0].quantity'],
      ['quantity with decimals', { ...valid, items: [item('P1', 1.5)] }, 'items[0].quantity'],
      ['quantity above 1,000,000', { ...valid, items: [item('P2'), item('P1', 1_000_001)] }, 'items[1].quantity'],
      ['quantity of 1.8e19', { ...valid, items: [item('P1', 1.8e19)] }, 'items[0].quantity'],
      ['missing productSku', { ...valid, items: [{ productExternalId: 'P1', quantity: 1 }] }, 'items[0].productSku'],
      ['missing productExternalId', { ...valid, items: [{ productSku: 'SKU-P1', quantity: 1 }] }, 'items[0].productExternalId'],
      ['priority outside the enum', { ...valid, priority: 'asap' }, 'priority'],
      ['orderDate not ISO 8601', { ...valid, orderDate: '23/04/2026' }, 'orderDate'],
      ['dueDate not a calendar day', { ...valid, dueDate: '2026-02-30' }, 'dueDate'],
      ['customer without externalId', { ...valid, customer: { name: 'Ada' } }, 'customer.externalId'],
      ['channel over 100', { ...valid, channel: 'c'.repeat(101) }, 'channel'],
      ['shippingMethod over 100', { ...valid, shippingMethod: 'm'.repeat(101) }, 'shippingMethod'],
      ['shippingAddress over 500', { ...valid, shippingAddress: 'a'.repeat(501) }, 'shippingAddress'],
      ['notes over 1000', { ...valid, notes: 'n'.repeat(1001) }, 'notes'],
      ['metadata not an object', { ...valid, metadata: 'x' }, 'metadata'],
      ['the same product twice', { ...valid, items: [item('P1'), item('P1', 2)] }, 'items[1].productExternalId'],
    ];
    it.each(cases)('%s → 400 VALIDATION_ERROR naming %s, nothing stored', async (_name, body, field) => {
      const response = await setup.tenant.api.post('/orders', body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect((await setup.tenant.api.get('/orders/V-1')).status).toBe(404);
    });

    it('takes a quantity of up to 1,000,000 units', async () => {
      await seedProducts(setup.tenant, [{ externalId: 'BULK', sku: 'SKU-BULK', stock: 1_000_000_000 }]);
      const response = await setup.tenant.api.post('/orders', order('V-MAX', [item('BULK', 1_000_000)]));
      expect(response.status).toBe(201);
      expect(response.body.data).toMatchObject({ status: 'PENDING', hasIssues: false });
      expect((await setup.tenant.api.get('/orders/V-MAX')).body.data.items).toEqual([expect.objectContaining({ quantity: 1_000_000 })]);
    });

    it('takes ISO 8601 dates with or without a time, and every optional field', async () => {
      // Every optional field but the dates comes back as sent.
      const asSent = {
        priority: 'urgent',
        channel: 'web',
        shippingMethod: 'express',
        shippingAddress: '1 Main St',
        notes: 'fragile',
        customer: { externalId: 'C-1', name: 'Ada', email: 'ada@example.com', phone: '+1 555' },
        metadata: { source: 'erp', lines: 1 },
      };
      const body = order('V-2', [item('P1')], { ...asSent, orderDate: '2026-04-23T10:15:00+02:00', dueDate: '2026-04-30' });
      expect((await setup.tenant.api.post('/orders', body)).status).toBe(201);
      const { data } = (await setup.tenant.api.get('/orders/V-2')).body;
      expect(data).toMatchObject({
        ...asSent,
        orderDate: '2026-04-23T08:15:00.000Z',
        dueDate: '2026-04-30T00:00:00.000Z',
        items: [{ productExternalId: 'P1', productSku: 'SKU-P1', quantity: 1 }],
      });
    });
  });

  it('saves an order sent with fields that are not order fields, naming each in warnings', async () => {
    const sent = { ...order('A-unknown', []), items: [{ ...item('P1', 1), sku: 'SKU-P1' }], dueDat: '2026-05-01', metadata: { anything: 1 } };
    const response = await setup.tenant.api.post('/orders', sent);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ status: 'PENDING', hasIssues: false });
    expect(response.body.warnings).toEqual([
      'items[0].sku is not a field of items[0]; it was ignored',
      'dueDat is not a field of an order (did you mean dueDate?); it was ignored',
    ]);
    expect((await setup.tenant.api.get('/orders/A-unknown')).body.data.dueDate).toBeNull();
  });

  it('creates a PENDING order without issues when every item resolves (201 created)', async () => {
    const response = await setup.tenant.api.post('/orders', order('A-1', [item('P1', 2), item('P2', 1)]));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      success: true,
      action: 'created',
      data: { externalId: 'A-1', orderNumber: 'N-A-1', status: 'PENDING', hasIssues: false, itemsCount: 2, unresolvedProducts: [] },
    });
    expect(response.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.warnings).toBeUndefined();
    expect(response.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  /** The last order.issue_detected event is the order's (`order()` numbers it N-<externalId>), with `status` and `issues`. */
  async function expectIssueDetected(externalId: string, status: string, issues: unknown[]) {
    const events = await eventsOf(setup.ctx, setup.tenant, 'order.issue_detected');
    expect(events.at(-1)?.data).toEqual({ externalId, orderNumber: `N-${externalId}`, status, hasIssues: true, issues });
  }

  it('accepts an order with an unknown product or a mismatched sku in PENDING_VALIDATION, with order.issue_detected', async () => {
    const response = await setup.tenant.api.post('/orders', order('U-1', [item('P1'), item('GHOST'), item('P2', 1, 'SKU-WRONG')]));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      action: 'created',
      data: {
        status: 'PENDING_VALIDATION',
        hasIssues: true,
        itemsCount: 3,
        unresolvedProducts: [
          { productExternalId: 'GHOST', productSku: 'SKU-GHOST' },
          { productExternalId: 'P2', productSku: 'SKU-WRONG' },
        ],
      },
    });
    expect(response.body.warnings).toHaveLength(2);
    expect(response.body.warnings?.[1]).toContain('SKU-P2');
    await expectIssueDetected('U-1', 'PENDING_VALIDATION', [
      { type: 'UNRESOLVED_PRODUCT', productExternalId: 'GHOST', productSku: 'SKU-GHOST' },
      { type: 'UNRESOLVED_PRODUCT', productExternalId: 'P2', productSku: 'SKU-WRONG' },
    ]);
  });

  it('flags INSUFFICIENT_STOCK, counting what other open orders hold, and stays PENDING', async () => {
    const first = await setup.tenant.api.post('/orders', order('S-1', [item('LOW', 2)]));
    expect(first.body.data).toMatchObject({ status: 'PENDING', hasIssues: false });
    // 3 in stock, 2 held by S-1: 2 more is too many.
    const second = await setup.tenant.api.post('/orders', order('S-2', [item('LOW', 2)]));
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({
      status: 'PENDING',
      hasIssues: true,
      unresolvedProducts: [],
      issues: [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'LOW', productSku: 'SKU-LOW' }],
    });
    expect(second.body.warnings).toEqual([expect.stringContaining('available stock (1)')]);
    await expectIssueDetected('S-2', 'PENDING', [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'LOW', productSku: 'SKU-LOW' }]);
    expect((await setup.tenant.api.get('/orders', { has_issues: 'true', status: 'PENDING' })).body.data.map((o: { externalId: string }) => o.externalId)).toContain('S-2');
  });

  it.skipIf(!usingPostgres)('creates a new order in one round trip; one with an issue costs that trip, then three in a transaction (BEGIN with the lookup and the catalog read, the insert, COMMIT) and one more for its events', async () => {
    const counter = await roundTripCounter(process.env.DATABASE_URL!);
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(setup.ctx.database.db);
    // One connection, so that every statement below goes through it.
    const counted = await openDatabase({ url: counter.url, schema: rows[0]!.schema, poolSize: 1 });
    const input = (externalId: string, quantity: number) => order(externalId, [item('TRIP-A'), item('TRIP-B', quantity)]);
    try {
      await seedProducts(setup.tenant, [{ externalId: 'TRIP-A', sku: 'SKU-TRIP-A', stock: 10 }, { externalId: 'TRIP-B', sku: 'SKU-TRIP-B', stock: 5 }]);
      await sql`SELECT 1`.execute(counted.db);
      const tripsOf = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
        const before = counter.trips();
        const done = await work();
        return [done, counter.trips() - before];
      };
      const [first, firstTrips] = await tripsOf(() => createOrderAlone(counted.db, setup.tenant.id, input('TRIPS-1', 3)));
      // 5 in stock, 3 held by TRIPS-1: the statement sees that hold and writes nothing.
      const [leftOver, leftOverTrips] = await tripsOf(() => createOrderAlone(counted.db, setup.tenant.id, input('TRIPS-2', 3)));
      const [second, secondTrips] = await tripsOf(() =>
        runWrite(counted.db, setup.tenant.id, (tx) => upsertOrder(tx, setup.tenant.id, input('TRIPS-2', 3)), undefined, true),
      );
      expect([firstTrips, leftOverTrips, secondTrips]).toEqual([1, 1, 4]);
      expect(leftOver).toBeUndefined();
      expect([first?.order.issues, second.order.issues]).toEqual([[], [{ type: 'INSUFFICIENT_STOCK', productExternalId: 'TRIP-B', productSku: 'SKU-TRIP-B' }]]);
      expect(second.warnings).toEqual(['items[1]: quantity 3 of TRIP-B exceeds the available stock (2)']);
    } finally {
      await counted.close();
      await counter.close();
    }
  });

  it('refuses an orderNumber another order holds (409 CONFLICT)', async () => {
    await setup.tenant.api.post('/orders', order('D-1', [item('P1')], { orderNumber: 'SHARED' }));
    const response = await setup.tenant.api.post('/orders', order('D-2', [item('P1')], { orderNumber: 'SHARED' }));
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect((await setup.tenant.api.get('/orders/D-2')).status).toBe(404);
  });

  describe('upsert of an existing order', () => {
    it('updates a PENDING order: mutable fields change, fields left out keep their value (200 updated)', async () => {
      await setup.tenant.api.post('/orders', order('UP-1', [item('P1')], { notes: 'first', priority: 'low', channel: 'web', shippingMethod: 'post' }));
      const response = await setup.tenant.api.post(
        '/orders',
        order('UP-1', [item('P1', 3), item('P2')], { notes: 'second', priority: 'high', channel: 'phone', customer: { externalId: 'C-9' } }),
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ action: 'updated', data: { status: 'PENDING', itemsCount: 2 } });
      const { data } = (await setup.tenant.api.get('/orders/UP-1')).body;
      expect(data).toMatchObject({
        notes: 'second',
        priority: 'high',
        shippingMethod: 'post',
        channel: 'web',
        customer: { externalId: 'C-9' },
        items: [
          { productExternalId: 'P1', quantity: 3 },
          { productExternalId: 'P2', quantity: 1 },
        ],
      });
      expect(data.updatedAt > data.createdAt).toBe(true);
    });

    it('lets a PENDING_VALIDATION order fix its items: PENDING, order.issue_resolved and order.status_changed', async () => {
      await setup.tenant.api.post('/orders', order('FIX-1', [item('P1'), item('P2', 1, 'SKU-TYPO')]));
      const response = await setup.tenant.api.post('/orders', order('FIX-1', [item('P1'), item('P2')]));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ action: 'updated', data: { status: 'PENDING', hasIssues: false, unresolvedProducts: [] } });
      const events = (await eventsOf(setup.ctx, setup.tenant)).filter((e) => e.data.externalId === 'FIX-1');
      expect(events.map((e) => e.event)).toEqual(['order.issue_detected', 'order.issue_resolved', 'order.status_changed']);
      expect(events[1]?.data).toEqual({ externalId: 'FIX-1', orderNumber: 'N-FIX-1', status: 'PENDING', hasIssues: false, resolvedIssues: ['UNRESOLVED_PRODUCT'] });
      expect(events[2]?.data).toEqual({
        externalId: 'FIX-1',
        orderNumber: 'N-FIX-1',
        previousStatus: 'PENDING_VALIDATION',
        status: 'PENDING',
        updatedAt: expect.any(String),
      });
    });

    it('moves a PENDING order whose new items do not resolve back to PENDING_VALIDATION', async () => {
      await setup.tenant.api.post('/orders', order('BACK-1', [item('P1')]));
      const response = await setup.tenant.api.post('/orders', order('BACK-1', [item('NOPE')]));
      expect(response.body.data).toMatchObject({ status: 'PENDING_VALIDATION', hasIssues: true });
      const kinds = (await eventsOf(setup.ctx, setup.tenant)).filter((e) => e.data.externalId === 'BACK-1').map((e) => e.event);
      expect(kinds).toEqual(['order.issue_detected', 'order.status_changed']);
    });

    it('refuses a different orderNumber (409 CONFLICT): it is immutable', async () => {
      await setup.tenant.api.post('/orders', order('IMM-1', [item('P1')]));
      const response = await setup.tenant.api.post('/orders', order('IMM-1', [item('P1')], { orderNumber: 'OTHER' }));
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
      expect((await setup.tenant.api.get('/orders/IMM-1')).body.data.orderNumber).toBe('N-IMM-1');
    });

    it.each([
      ['IN_PICKING', ['start-picking']],
      ['PICKED', ['start-picking', 'complete-picking']],
      ['PACKED', ['start-picking', 'complete-picking', 'pack']],
      ['DISPATCHED', ['start-picking', 'complete-picking', 'pack', 'dispatch']],
    ] as const)('refuses an update of a %s order (409 CONFLICT), changing nothing', async (status, steps) => {
      const id = `LATE-${status}`;
      await setup.tenant.api.post('/orders', order(id, [item('P1')], { notes: 'original' }));
      await warehouse(setup.ctx, setup.tenant).advance(id, ...steps);
      const response = await setup.tenant.api.post('/orders', order(id, [item('P2')], { notes: 'changed' }));
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
      const { data } = (await setup.tenant.api.get(`/orders/${id}`)).body;
      expect(data).toMatchObject({ status, notes: 'original', items: [{ productExternalId: 'P1' }] });
    });

    it('refuses an update of a CANCELLED order (409 CONFLICT)', async () => {
      await setup.tenant.api.post('/orders', order('GONE-1', [item('P1')]));
      await setup.tenant.api.post('/orders/GONE-1/cancel');
      const response = await setup.tenant.api.post('/orders', order('GONE-1', [item('P1')]));
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
    });
  });
});
