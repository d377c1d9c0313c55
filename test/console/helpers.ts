import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { Method } from '../helpers/answers';
import { send, type TestContext, type TestResponse, type TestTenant, type TypedResponse } from '../helpers/context';
import { floorOf, seedPlacedProducts } from '../floor/helpers';
import { item, order } from '../orders/helpers';

/** The origin app.inject requests come from by default (Host: localhost:80). */
export const ORIGIN = 'http://localhost';

export const PIN = '482913';

/** A user of the console, signed in or not: its requests carry its cookie and the console's Origin. */
export class ConsoleClient {
  cookie: string | undefined;
  constructor(
    private readonly ctx: TestContext,
    readonly tenant: TestTenant,
    readonly user: { id: string; username: string; role: string },
  ) {}

  request<M extends Method, P extends string>(
    method: M,
    path: P,
    options: { body?: unknown; headers?: Record<string, string>; address?: string } = {},
  ): Promise<TypedResponse<M, `/console/api${P}`>> {
    return send(this.ctx.app, {
      method,
      url: `/console/api${path}`,
      headers: { origin: ORIGIN, ...(this.cookie ? { cookie: `pickport_session=${this.cookie}` } : {}), ...options.headers },
      ...(options.address ? { remoteAddress: options.address } : {}),
      ...(options.body !== undefined ? { payload: options.body as InjectOptions['payload'] } : {}),
    });
  }
  get<P extends string>(path: P) {
    return this.request('GET', path);
  }
  post<P extends string>(path: P, body?: unknown) {
    return this.request('POST', path, { body });
  }

  async signIn(pin = PIN) {
    const response = await this.request('POST', '/session', { body: { warehouse: this.tenant.slug, username: this.user.username, pin } });
    const token = sessionCookieOf(response);
    if (token) this.cookie = token;
    return response;
  }
}

/** The pickport_session value a response sets, if any. */
export function sessionCookieOf(response: TestResponse): string | undefined {
  const header = response.headers['set-cookie'];
  const cookies = Array.isArray(header) ? header : header ? [String(header)] : [];
  const match = cookies.map((c) => /^pickport_session=([^;]*)/.exec(c)).find(Boolean);
  return match?.[1] || undefined;
}

let users = 0;

/** A new user of the tenant with PIN, signed in. */
export async function signedIn(ctx: TestContext, tenant: TestTenant, role: 'picker' | 'packer' | 'supervisor'): Promise<ConsoleClient> {
  const username = `${role}-${++users}`;
  const created = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/users`, { username, name: `A ${role}`, role, pin: PIN });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const client = new ConsoleClient(ctx, tenant, created.body.data);
  const response = await client.signIn();
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return client;
}

/**
 * A floor of three placed products (A-1 at aisle 1, B-5 at aisle 2, D-9 at aisle 4) and `count`
 * PENDING orders of one of each.
 */
export async function floorWithOrders(ctx: TestContext, tenant: TestTenant, count = 3) {
  const api = await floorOf(ctx, tenant, [
    { code: 'A-1', aisle: 1, position: 1 },
    { code: 'B-5', aisle: 2, position: 5 },
    { code: 'D-9', aisle: 4, position: 9 },
  ]);
  await seedPlacedProducts(tenant, [
    { externalId: 'P1', locationCode: 'A-1', stock: 50, barcode: '400000000001' },
    { externalId: 'P2', locationCode: 'B-5', stock: 50, barcode: '400000000002' },
    { externalId: 'P3', locationCode: 'D-9', stock: 50, barcode: '400000000003' },
  ]);
  for (let i = 1; i <= count; i++) {
    const created = await tenant.api.post('/orders', order(`O${i}`, [item('P1', 2), item('P2', 1), item('P3', 1)]));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  return api;
}
