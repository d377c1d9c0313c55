import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { eventsOf } from '../orders/helpers';
import { ConsoleClient, floorWithOrders, PIN, sessionCookieOf, signedIn } from './helpers';

/*
 * The console's API as its screens use it: sign-in and out, a picker's wave from start to finish,
 * the pack station, the supervisor's desk. Every rule behind it is the warehouse API's own.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

type Line = { orderExternalId: string; productExternalId: string; quantity: number; pickedQuantity: number | null };
const linesOf = (wave: { stops: { lines: Line[] }[] }) => wave.stops.flatMap((stop) => stop.lines);

describe('sessions', () => {
  it('signs in with warehouse, username and PIN: the answer says who, the cookie is HttpOnly, SameSite=Strict, on /console', async () => {
    const tenant = await ctx.tenant();
    const created = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/users`, { username: 'Mara.J', name: 'Mara Jensen', role: 'packer', pin: PIN });
    const client = new ConsoleClient(ctx, tenant, created.body.data);
    const response = await client.request('POST', '/session', { body: { warehouse: tenant.slug.toUpperCase(), username: 'MARA.J', pin: PIN } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toEqual({
      user: { id: created.body.data.id, username: 'mara.j', name: 'Mara Jensen', role: 'packer' },
      warehouse: { slug: tenant.slug, name: expect.any(String) },
    });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^pickport_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('Path=/console');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain('Secure');
    client.cookie = sessionCookieOf(response);
    expect((await client.get('/session')).body.data).toEqual(response.body.data);
  });

  it('signs out: the session ends, the cookie is cleared, and the old cookie no longer works', async () => {
    const tenant = await ctx.tenant();
    const client = await signedIn(ctx, tenant, 'picker');
    const out = await client.request('DELETE', '/session');
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ signedOut: true });
    expect(String(out.headers['set-cookie'])).toMatch(/^pickport_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await client.get('/session')).status).toBe(401);
    const rows = await ctx.database.db.selectFrom('staff_sessions').select('user_id').where('user_id', '=', client.user.id).execute();
    expect(rows).toEqual([]);
  });

  it('stores only the SHA-256 of the token, never the token', async () => {
    const tenant = await ctx.tenant();
    const client = await signedIn(ctx, tenant, 'picker');
    const rows = await ctx.database.db.selectFrom('staff_sessions').select('token_hash').where('user_id', '=', client.user.id).execute();
    const { createHash } = await import('node:crypto');
    expect(rows.map((row) => row.token_hash)).toEqual([createHash('sha256').update(client.cookie!).digest('hex')]);
  });
});

describe('a picker picks a wave', () => {
  it('starts a wave for the picker, and answers the same wave when started again', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 3);
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.get('/picking/wave')).body.data).toBeNull();
    const started = await picker.post('/picking/wave', {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.data).toMatchObject({ status: 'PICKING', picker: { id: picker.user.id, username: picker.user.username } });
    expect(started.body.data.orders).toHaveLength(3);
    const again = await picker.post('/picking/wave', {});
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(started.body.data.id);
    expect((await picker.get('/picking/wave')).body.data?.id).toBe(started.body.data.id);
  });

  it('gives two starts sent at once the same wave: one made (201), one found (200)', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 2);
    const picker = await signedIn(ctx, tenant, 'picker');
    const answers = await Promise.all([picker.post('/picking/wave'), picker.post('/picking/wave')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 201]);
    expect(answers[0]!.body.data.id).toBe(answers[1]!.body.data.id);
    expect((await ctx.database.db.selectFrom('waves').select('id').where('tenant_id', '=', tenant.id).execute()).length).toBe(1);
  });

  it('starts, records every line (one short, with a reason; one replayed), finishes: orders PICKED, stock dropped by what was picked', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 3);
    const picker = await signedIn(ctx, tenant, 'picker');
    const started = await picker.post('/picking/wave');
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const wave = started.body.data;
    expect(wave.stops.map((stop: { locationCode: string }) => stop.locationCode).sort()).toEqual(['A-1', 'B-5', 'D-9']);
    expect(linesOf(wave).find((line) => line.productExternalId === 'P1')).toMatchObject({ productSku: 'SKU-P1', barcode: '400000000001', name: 'Product P1', quantity: 2, pickedQuantity: null, reason: null });

    let latest = wave;
    for (const line of linesOf(wave)) {
      const short = line.orderExternalId === 'O1' && line.productExternalId === 'P1';
      const body = { orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: short ? 1 : line.quantity, ...(short ? { reason: 'damaged' } : {}) };
      const recorded = await picker.post('/picking/wave/picks', body);
      expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
      if (line.productExternalId === 'P2') expect((await picker.post('/picking/wave/picks', body)).status).toBe(200);
      latest = recorded.body.data;
    }
    expect(latest.progress).toMatchObject({ stopsDone: 3, stopsTotal: 3 });
    const shortLine = linesOf(latest).find((line) => line.orderExternalId === 'O1' && line.productExternalId === 'P1');
    expect(shortLine).toMatchObject({ pickedQuantity: 1, reason: 'damaged' });

    const finished = await picker.post('/picking/wave/complete');
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.data.status).toBe('COMPLETED');
    for (const id of ['O1', 'O2', 'O3']) expect((await tenant.api.get(`/orders/${id}`)).body.data.status).toBe('PICKED');
    // 2 + 2 + 1 of P1 (one short), 1 of P2 per order, each once however often it was recorded.
    expect((await tenant.api.get('/products/P1')).body.data.stock).toBe(50 - 5);
    expect((await tenant.api.get('/products/P2')).body.data.stock).toBe(50 - 3);
    expect((await picker.get('/picking/wave')).body.data).toBeNull();
  });

  it('shows the progress: stops done and the distance left shrinking as stops are done', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'supervisor');
    const wave = (await picker.post('/picking/wave')).body.data;
    expect(wave.progress).toEqual({ stopsDone: 0, stopsTotal: 3, distanceLeft: wave.distance });
    const after = (await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', quantity: 2 })).body.data;
    expect(after.progress.stopsDone).toBe(1);
    expect(after.progress.distanceLeft).toBeLessThan(wave.distance);
  });
});

describe('the pack station', () => {
  it('finds an order by number or externalId, packs it and dispatches it: carrier and tracking show in the public API and the event', async () => {
    const tenant = await ctx.tenant();
    const api = await floorWithOrders(ctx, tenant, 1);
    await api.advance('O1', 'start-picking', 'complete-picking');
    const packer = await signedIn(ctx, tenant, 'packer');
    const byNumber = await packer.get('/packing/orders/N-O1');
    expect(byNumber.status, JSON.stringify(byNumber.body)).toBe(200);
    expect(byNumber.body.data).toMatchObject({ externalId: 'O1', orderNumber: 'N-O1', status: 'PICKED' });
    expect(byNumber.body.data.items[0]).toEqual({ productExternalId: 'P1', productSku: 'SKU-P1', quantity: 2, name: 'Product P1', barcode: '400000000001', packagings: [] });
    expect((await packer.get('/packing/orders/O1')).body.data.externalId).toBe('O1');

    expect((await packer.post('/packing/orders/O1/pack')).body.data.status).toBe('PACKED');
    const dispatched = await packer.post('/packing/orders/O1/dispatch', { carrier: 'DHL', trackingNumber: '00340434161094042557' });
    expect(dispatched.status, JSON.stringify(dispatched.body)).toBe(200);
    expect(dispatched.body.data).toMatchObject({ status: 'DISPATCHED', carrier: 'DHL', trackingNumber: '00340434161094042557' });
    expect((await tenant.api.get('/orders/O1')).body.data).toMatchObject({ status: 'DISPATCHED', carrier: 'DHL', trackingNumber: '00340434161094042557' });
    const events = (await eventsOf(ctx, tenant, 'order.status_changed')).filter((e) => e.data.status === 'DISPATCHED');
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ externalId: 'O1', previousStatus: 'PACKED', status: 'DISPATCHED', carrier: 'DHL', trackingNumber: '00340434161094042557' }),
    ]);
  });
});

describe("the supervisor's desk", () => {
  it('shows the board: every status counted, orders with issues and why, waves in progress with picker and progress', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 2);
    const short = await tenant.api.post('/orders', { externalId: 'SHORT', orderNumber: 'N-SHORT', items: [{ productExternalId: 'P1', productSku: 'SKU-P1', quantity: 500 }] });
    expect(short.status).toBe(201);
    const picker = await signedIn(ctx, tenant, 'picker');
    const wave = (await picker.post('/picking/wave')).body.data;
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const board = await supervisor.get('/board');
    expect(board.status, JSON.stringify(board.body)).toBe(200);
    expect(board.body.data.statusCounts).toEqual({ PENDING_VALIDATION: 0, PENDING: 1, IN_PICKING: 2, PICKED: 0, PACKED: 0, DISPATCHED: 0, CANCELLED: 0 });
    expect(board.body.data.issues).toEqual([
      {
        externalId: 'SHORT',
        orderNumber: 'N-SHORT',
        status: 'PENDING',
        issues: [{ code: 'INSUFFICIENT_STOCK', message: expect.stringContaining('P1'), productExternalId: 'P1' }],
      },
    ]);
    expect(board.body.data.waves).toEqual([
      { id: wave.id, number: wave.number, picker: { id: picker.user.id, username: picker.user.username, name: 'A picker' }, progress: wave.progress, orders: 2, orderNumbers: wave.orders.map((o) => o.orderNumber), createdAt: wave.createdAt },
    ]);
    expect(board.body.data.webhooks).toEqual({ failing: [], deadLetters: 0 });
    expect(board.body.data.slotMismatches).toEqual({ total: 0, products: [] });
  });

  it('shows the products whose slots hold other than their stock', async () => {
    const tenant = await ctx.tenant();
    const floor = await floorWithOrders(ctx, tenant, 0);
    const slots = [
      { productExternalId: 'P1', locationCode: 'A-1', quantity: 30 },
      { productExternalId: 'P1', locationCode: 'D-9', quantity: 10 },
      { productExternalId: 'P2', locationCode: 'B-5', quantity: 50 },
    ];
    expect((await floor.put('/slots', { slots })).status).toBe(200);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    expect((await supervisor.get('/board')).body.data.slotMismatches).toEqual({
      total: 1,
      products: [{ productExternalId: 'P1', sku: 'SKU-P1', stock: 50, inSlots: 40 }],
    });
  });

  it('draws the floor: layout, locations, and each PICKING wave as a path from the depot through its stops and back', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const wave = (await supervisor.post('/picking/wave')).body.data;
    await supervisor.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', quantity: 2 });
    const floor = (await supervisor.get('/floor')).body.data;
    expect(floor.layout).toMatchObject({ aisles: 4, positionsPerAisle: 10, depotAisle: 1 });
    expect(floor.locations.map((l: { code: string }) => l.code)).toEqual(['A-1', 'B-5', 'D-9']);
    expect(floor.waves).toHaveLength(1);
    const drawn = floor.waves[0]!;
    expect(drawn).toMatchObject({ id: wave.id, policy: 'optimal', distance: wave.distance });
    expect(drawn.stops.map((stop: { seq: number }) => stop.seq)).toEqual([1, 2, 3]);
    expect(drawn.stops.map(({ seq: _, ...stop }: { seq: number }) => stop)).toEqual(
      expect.arrayContaining([
        { locationCode: 'A-1', aisle: 1, position: 1, x: 0, y: 2, done: true },
        { locationCode: 'B-5', aisle: 2, position: 5, x: 3, y: 6, done: false },
        { locationCode: 'D-9', aisle: 4, position: 9, x: 9, y: 10, done: false },
      ]),
    );
    expect(drawn.stops.map((stop: { locationCode: string }) => stop.locationCode)).toEqual(wave.stops.map((stop: { locationCode: string }) => stop.locationCode));
    expect(drawn.path[0]).toEqual({ x: 0, y: 0 });
    expect(drawn.path.at(-1)).toEqual({ x: 0, y: 0 });
    const length = drawn.path.slice(1).reduce((sum: number, p: { x: number; y: number }, i: number) => sum + Math.abs(p.x - drawn.path[i]!.x) + Math.abs(p.y - drawn.path[i]!.y), 0);
    expect(length).toBeCloseTo(wave.distance, 9);
  });

  it('makes a wave nobody is assigned to, lists waves newest first, releases one, and corrects stock', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 3);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const first = await supervisor.post('/waves', { orders: ['O1'] });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({ picker: null, status: 'PICKING', progress: { stopsDone: 0, stopsTotal: 3 } });
    const second = (await supervisor.post('/waves', { maxOrders: 1 })).body.data;
    expect((await supervisor.get('/waves')).body.data.map((w: { id: string }) => w.id)).toEqual([second.id, first.body.data.id]);
    const released = await supervisor.post(`/waves/${first.body.data.id}/release`);
    expect(released.body.data.status).toBe('RELEASED');
    expect((await tenant.api.get('/orders/O1')).body.data.status).toBe('PENDING');
    expect((await supervisor.get('/waves?status=RELEASED')).body.data.map((w: { id: string }) => w.id)).toEqual([first.body.data.id]);
    const corrected = await supervisor.post('/products/P2/stock', { delta: -5 });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    expect(corrected.body.data).toEqual({ externalId: 'P2', sku: 'SKU-P2', name: 'Product P2', stock: 45 });
    const events = await eventsOf(ctx, tenant, 'product.stock_updated');
    expect(events.at(-1)?.data).toMatchObject({ previousStock: 50, newStock: 45, reason: 'MANUAL_ADJUSTMENT' });
  });
});
