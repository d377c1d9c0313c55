import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';

const ctx = await createTestContext();
afterAll(() => ctx.close());

const users = (slug: string) => `/api/v1/admin/tenants/${slug}/users` as const;

describe('warehouse users (operator API)', () => {
  it('creates a user, lower-casing the username, and lists it without PIN or hash', async () => {
    const tenant = await ctx.tenant();
    const created = await ctx.admin('POST', users(tenant.slug), { username: 'Mara.Jensen', name: 'Mara Jensen', role: 'supervisor', pin: '482913' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(String), username: 'mara.jensen', name: 'Mara Jensen', role: 'supervisor', disabled: false, createdAt: expect.any(String) });
    const listed = await ctx.admin('GET', users(tenant.slug));
    expect(listed.body.data).toEqual([created.body.data]);
    expect(JSON.stringify(listed.body)).not.toMatch(/482913|scrypt|pin/i);
    const stored = await ctx.database.db.selectFrom('staff_users').select('pin_hash').where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    expect(stored.pin_hash).toMatch(/^scrypt\$/);
  });

  it('refuses a username taken in the tenant, whatever its case, with 409; another tenant may use it', async () => {
    const [a, b] = [await ctx.tenant(), await ctx.tenant()];
    const body = { username: 'lee', name: 'Lee', role: 'picker', pin: '123456' };
    expect((await ctx.admin('POST', users(a.slug), body)).status).toBe(201);
    const again = await ctx.admin('POST', users(a.slug), { ...body, username: 'LEE' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect((await ctx.admin('POST', users(b.slug), body)).status).toBe(201);
    expect((await ctx.admin('GET', users(a.slug))).body.data).toHaveLength(1);
  });

  it('frees a disabled user\'s username: the user made again under it signs in with the new PIN and role, the old PIN no longer', async () => {
    const tenant = await ctx.tenant();
    const first = await ctx.admin('POST', users(tenant.slug), { username: 'lee', name: 'Lee', role: 'picker', pin: '123456' });
    expect((await ctx.admin('POST', `/api/v1/admin/users/${first.body.data.id}/disable`)).status).toBe(200);
    const again = await ctx.admin('POST', users(tenant.slug), { username: 'LEE', name: 'Lee', role: 'supervisor', pin: '654321' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect((await ctx.admin('POST', users(tenant.slug), { username: 'lee', name: 'Lee', role: 'picker', pin: '111111' })).status).toBe(409);
    const listed = (await ctx.admin('GET', users(tenant.slug))).body.data as { id: string; disabled: boolean }[];
    expect(listed.map(({ id, disabled }) => ({ id, disabled })).sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: first.body.data.id, disabled: true },
      { id: again.body.data.id, disabled: false },
    ]);

    const signIn = (pin: string) =>
      ctx.app.inject({ method: 'POST', url: '/console/api/session', headers: { origin: 'http://localhost' }, payload: { warehouse: tenant.slug, username: 'lee', pin } });
    const signedIn = await signIn('654321');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().data.user).toMatchObject({ id: again.body.data.id, role: 'supervisor' });
    expect((await signIn('123456')).statusCode).toBe(401);
  });

  it.each([
    [{ pin: '12345' }, 'pin'],
    [{ pin: '12345a' }, 'pin'],
    [{ pin: '1234567890123' }, 'pin'],
    [{ username: 'has space' }, 'username'],
    [{ username: 'x'.repeat(65) }, 'username'],
    [{ role: 'admin' }, 'role'],
    [{ name: '' }, 'name'],
  ])('refuses %o with 400 naming the field, creating nothing', async (change, field) => {
    const tenant = await ctx.tenant();
    const response = await ctx.admin('POST', users(tenant.slug), { username: 'lee', name: 'Lee', role: 'picker', pin: '123456', ...change });
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await ctx.admin('GET', users(tenant.slug))).body.data).toEqual([]);
  });

  it('says what each refused field takes, every problem in details', async () => {
    const tenant = await ctx.tenant();
    const response = await ctx.admin('POST', users(tenant.slug), { username: 'has space', name: 'Lee', role: 'boss', pin: '12' });
    expect(response.body.error.details).toEqual([
      { field: 'username', message: 'must be letters, digits, dots, underscores and hyphens' },
      { field: 'role', message: 'must be one of picker, packer, supervisor' },
      { field: 'pin', message: 'must be 6 to 12 digits' },
    ]);
  });

  it('answers 404 for an unknown tenant or user', async () => {
    expect((await ctx.admin('POST', users('no-such-tenant'), { username: 'lee', name: 'Lee', role: 'picker', pin: '123456' })).status).toBe(404);
    expect((await ctx.admin('GET', users('no-such-tenant'))).status).toBe(404);
    expect((await ctx.admin('POST', '/api/v1/admin/users/00000000-0000-4000-8000-000000000000/disable')).status).toBe(404);
  });

  it('disables a user (again harmlessly): the list shows it disabled', async () => {
    const tenant = await ctx.tenant();
    const created = await ctx.admin('POST', users(tenant.slug), { username: 'lee', name: 'Lee', role: 'packer', pin: '123456' });
    const first = await ctx.admin('POST', `/api/v1/admin/users/${created.body.data.id}/disable`);
    expect(first.body.data).toMatchObject({ id: created.body.data.id, disabled: true });
    expect((await ctx.admin('POST', `/api/v1/admin/users/${created.body.data.id}/disable`)).body.data.disabled).toBe(true);
    expect((await ctx.admin('GET', users(tenant.slug))).body.data[0]?.disabled).toBe(true);
  });
});
