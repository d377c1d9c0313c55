import { afterAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/staff/limits';
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../src/staff/sessions';
import type { Refusal } from '../helpers/answers';
import { createTestContext, type TestResponse } from '../helpers/context';
import { ConsoleClient, floorWithOrders, PIN, signedIn } from './helpers';

/* What the console's API refuses, and how: one 401 for every failed sign-in, limits, expiry, bad input. */

let now = Date.parse('2026-11-23T08:00:00Z');
const ctx = await createTestContext({}, { clock: () => now });
afterAll(() => ctx.close());

function expectError(response: TestResponse<Refusal>, status: number, code: string, field?: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (field) expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
}

let addresses = 0;
const freshAddress = () => `203.0.113.${++addresses}`;

async function userOf(role: 'picker' | 'packer' | 'supervisor' = 'picker') {
  const tenant = await ctx.tenant();
  const created = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/users`, { username: 'lee', name: 'Lee', role, pin: PIN });
  return { tenant, client: new ConsoleClient(ctx, tenant, created.body.data) };
}

const signInAs = (client: ConsoleClient, body: Record<string, string>, address = freshAddress()) => client.request('POST', '/session', { body, address });

describe('sign-in refusals', () => {
  it('answers the same 401 for a wrong PIN, an unknown user, an unknown warehouse and a disabled user, and sets no cookie', async () => {
    const { tenant, client } = await userOf();
    const answers = [
      await signInAs(client, { warehouse: tenant.slug, username: 'lee', pin: '000000' }),
      await signInAs(client, { warehouse: tenant.slug, username: 'nobody', pin: PIN }),
      await signInAs(client, { warehouse: 'no-such-warehouse', username: 'lee', pin: PIN }),
    ];
    await ctx.admin('POST', `/api/v1/admin/users/${client.user.id}/disable`);
    answers.push(await signInAs(client, { warehouse: tenant.slug, username: 'lee', pin: PIN }));
    for (const answer of answers) {
      expectError(answer, 401, 'UNAUTHORIZED');
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    expect(new Set(answers.map((answer) => answer.body.error.message)).size).toBe(1);
  });

  it('limits failures per warehouse and username: then 429 with Retry-After, even with the right PIN, until the window ends', async () => {
    const { tenant, client } = await userOf();
    const wrong = { warehouse: tenant.slug, username: 'lee', pin: '111111' };
    for (let i = 0; i < SIGN_IN_LIMITS.user.failures; i++) expectError(await signInAs(client, wrong), 401, 'UNAUTHORIZED');
    const limited = await signInAs(client, { ...wrong, pin: PIN });
    expectError(limited, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers['retry-after'])).toBe(SIGN_IN_LIMITS.user.windowMs / 1000);
    expect(limited.body.error.retryAfter).toBe(SIGN_IN_LIMITS.user.windowMs / 1000);
    // The same username differently cased is the same key.
    expectError(await signInAs(client, { ...wrong, username: 'LEE', pin: PIN }), 429, 'RATE_LIMIT_EXCEEDED');
    now += SIGN_IN_LIMITS.user.windowMs;
    expect((await signInAs(client, { ...wrong, pin: PIN })).status).toBe(200);
  });

  it('limits failures per client address across users', async () => {
    const { tenant, client } = await userOf();
    const address = freshAddress();
    for (let i = 0; i < SIGN_IN_LIMITS.address.failures; i++) {
      expectError(await signInAs(client, { warehouse: tenant.slug, username: `guess-${i}`, pin: '123456' }, address), 401, 'UNAUTHORIZED');
    }
    const limited = await signInAs(client, { warehouse: tenant.slug, username: 'lee', pin: PIN }, address);
    expectError(limited, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not held back.
    expect((await signInAs(client, { warehouse: tenant.slug, username: 'lee', pin: PIN })).status).toBe(200);
  });

  it('refuses a sign-in body without its fields with 400 naming them', async () => {
    const { client } = await userOf();
    expectError(await signInAs(client, { warehouse: 'x', username: 'lee' }), 400, 'VALIDATION_ERROR', 'pin');
  });
});

describe('session expiry', () => {
  it('ends a session unused for the idle time', async () => {
    const { client } = await userOf();
    await client.signIn();
    now += SESSION_IDLE_MS - 60_000;
    expect((await client.get('/session')).status).toBe(200);
    // Used just now: the idle time starts again.
    now += SESSION_IDLE_MS - 60_000;
    expect((await client.get('/session')).status).toBe(200);
    now += SESSION_IDLE_MS;
    expectError(await client.get('/session'), 401, 'UNAUTHORIZED');
  });

  it('ends a session at its absolute expiry however much it is used', async () => {
    const { client } = await userOf();
    await client.signIn();
    const until = now + SESSION_MAX_MS;
    while (now + SESSION_IDLE_MS / 2 < until) {
      now += SESSION_IDLE_MS / 2;
      expect((await client.get('/session')).status).toBe(200);
    }
    now = until;
    expectError(await client.get('/session'), 401, 'UNAUTHORIZED');
  });
});

describe('picking refusals', () => {
  it('needs the locationCode of a line planned at two stops, and at most what is planned there, changing nothing', async () => {
    const tenant = await ctx.tenant();
    const floor = await floorWithOrders(ctx, tenant, 1);
    const slots = [
      { locationCode: 'A-1', quantity: 1 },
      { locationCode: 'D-9', quantity: 1 },
    ];
    expect((await floor.put('/products/P1/slots', { slots })).status).toBe(200);
    const picker = await signedIn(ctx, tenant, 'picker');
    await picker.post('/picking/wave');
    const pick = (body: object) => picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', ...body });
    expectError(await pick({ quantity: 1 }), 400, 'VALIDATION_ERROR', 'locationCode');
    expectError(await pick({ quantity: 2, locationCode: 'A-1' }), 400, 'VALIDATION_ERROR', 'quantity');
    expectError(await pick({ quantity: 1, locationCode: 'B-5' }), 400, 'VALIDATION_ERROR', 'locationCode');
    const wave = (await picker.get('/picking/wave')).body.data;
    expect(wave?.stops.flatMap((stop) => stop.lines.map((line) => line.pickedQuantity))).toEqual([null, null, null, null]);
    expect((await pick({ quantity: 1, locationCode: 'D-9' })).status).toBe(200);
  });

  it('needs a reason for a short pick, refuses more than ordered, and changes nothing then', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'picker');
    await picker.post('/picking/wave');
    expectError(await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', quantity: 1 }), 400, 'VALIDATION_ERROR', 'reason');
    expectError(await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', quantity: 3 }), 400, 'VALIDATION_ERROR', 'quantity');
    expectError(await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', quantity: 1, reason: 'lost' }), 400, 'VALIDATION_ERROR', 'reason');
    expectError(await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'NOPE', quantity: 1 }), 404, 'NOT_FOUND');
    const wave = (await picker.get('/picking/wave')).body.data;
    expect(wave?.stops.flatMap((stop: { lines: { pickedQuantity: number | null }[] }) => stop.lines.map((line) => line.pickedQuantity))).toEqual([null, null, null]);
    expectError(await picker.post('/picking/wave/complete'), 409, 'PICKS_MISSING');
    expect((await tenant.api.get('/orders/O1')).body.data.status).toBe('IN_PICKING');
  });

  it('answers 404 to picks and complete without a wave, and 409 NOTHING_TO_PICK when no order is free', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 0);
    const picker = await signedIn(ctx, tenant, 'picker');
    expectError(await picker.post('/picking/wave/picks', { orderExternalId: 'O1', productExternalId: 'P1', quantity: 1 }), 404, 'NOT_FOUND');
    expectError(await picker.post('/picking/wave/complete'), 404, 'NOT_FOUND');
    expectError(await picker.post('/picking/wave'), 409, 'NOTHING_TO_PICK');
    expect((await picker.get('/picking/wave')).body.data).toBeNull();
  });
});

describe('packing and supervising refusals', () => {
  it('refuses to pack an order not PICKED, to dispatch without carrier or tracking, and an unknown order', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const packer = await signedIn(ctx, tenant, 'packer');
    expectError(await packer.post('/packing/orders/O1/pack'), 409, 'CONFLICT');
    expectError(await packer.post('/packing/orders/O1/dispatch', { carrier: 'DHL' }), 400, 'VALIDATION_ERROR', 'trackingNumber');
    expectError(await packer.post('/packing/orders/O1/dispatch', { carrier: '', trackingNumber: 'T1' }), 400, 'VALIDATION_ERROR', 'carrier');
    expectError(await packer.get('/packing/orders/NOPE'), 404, 'NOT_FOUND');
    expect((await tenant.api.get('/orders/O1')).body.data.status).toBe('PENDING');
  });

  it('refuses a stock body with both or neither of stock and delta, and releasing a wave twice', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    expectError(await supervisor.post('/products/P1/stock', { stock: 1, delta: 1 }), 400, 'VALIDATION_ERROR', 'body');
    expectError(await supervisor.post('/products/P1/stock', {}), 400, 'VALIDATION_ERROR', 'body');
    expectError(await supervisor.post('/products/P1/stock', { delta: -51 }), 409, 'CONFLICT');
    expect((await tenant.api.get('/products/P1')).body.data.stock).toBe(50);
    const wave = (await supervisor.post('/waves', {})).body.data;
    expect((await supervisor.post(`/waves/${wave.id}/release`)).status).toBe(200);
    expectError(await supervisor.post(`/waves/${wave.id}/release`), 409, 'CONFLICT');
    expectError(await supervisor.post('/waves', { maxOrders: 0 }), 400, 'VALIDATION_ERROR', 'maxOrders');
  });
});
