import { afterAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../src/staff/limits';
import { createTestContext } from '../helpers/context';
import { ConsoleClient, PIN, signedIn } from '../console/helpers';

/* Changing a warehouse user's PIN or role through the operator API. */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const pinOf = (id: string) => `/api/v1/admin/users/${id}/pin` as const;
const roleOf = (id: string) => `/api/v1/admin/users/${id}/role` as const;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

const sessionsOf = (userId: string) => ctx.database.db.selectFrom('staff_sessions').select('token_hash').where('user_id', '=', userId).execute();
const storedUser = (userId: string) => ctx.database.db.selectFrom('staff_users').select(['pin_hash', 'role']).where('id', '=', userId).executeTakeFirstOrThrow();

describe("setting a user's PIN", () => {
  it('the new PIN signs in, the old one no longer, and every session of the user ends at once', async () => {
    const tenant = await ctx.tenant();
    const client = await signedIn(ctx, tenant, 'picker');
    const other = new ConsoleClient(ctx, tenant, client.user);
    expect((await other.signIn()).status).toBe(200);
    expect(await sessionsOf(client.user.id)).toHaveLength(2);

    const changed = await ctx.admin('POST', pinOf(client.user.id), { pin: '975310' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ id: client.user.id, role: 'picker', disabled: false });
    expect(JSON.stringify(changed.body)).not.toMatch(/975310|scrypt/);
    expect(await sessionsOf(client.user.id)).toEqual([]);
    expect((await client.get('/session')).status).toBe(401);

    expect((await other.signIn(PIN)).status).toBe(401);
    expect((await other.signIn('975310')).status).toBe(200);
    expect((await other.get('/session')).status).toBe(200);
  });

  it("clears the user's failed sign-ins, so a user they locked out signs in with the new PIN at once; the address's count stays", async () => {
    const tenant = await ctx.tenant();
    const client = await signedIn(ctx, tenant, 'picker');
    const address = '198.51.100.7';
    const attempt = (pin: string) => client.request('POST', '/session', { body: { warehouse: tenant.slug, username: client.user.username, pin }, address });
    for (let i = 0; i < SIGN_IN_LIMITS.user.failures; i++) expect((await attempt('000000')).status).toBe(401);
    expect((await attempt(PIN)).status).toBe(429);

    expect((await ctx.admin('POST', pinOf(client.user.id), { pin: '975310' })).status).toBe(200);
    const counts = await ctx.database.db.selectFrom('staff_sign_in_failures').select(['key', 'failures']).where('key', 'in', [`user:${tenant.slug}:${client.user.username}`, `address:${address}`]).execute();
    expect(counts).toEqual([{ key: `address:${address}`, failures: SIGN_IN_LIMITS.user.failures }]);
    expect((await attempt('975310')).status).toBe(200);
  });

  it.each([['12'], ['12345a'], ['1234567890123'], [123456]])('refuses PIN %o with 400 saying the rule, changing nothing', async (pin) => {
    const client = await signedIn(ctx, await ctx.tenant(), 'picker');
    const before = await storedUser(client.user.id);
    const refused = await ctx.admin('POST', pinOf(client.user.id), { pin });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'pin', message: typeof pin === 'number' ? 'must be string' : 'must be 6 to 12 digits' }]);
    expect(await storedUser(client.user.id)).toEqual(before);
    expect((await client.get('/session')).status).toBe(200);
  });
});

describe("setting a user's role", () => {
  it("takes effect on the user's next console request, the session kept", async () => {
    const client = await signedIn(ctx, await ctx.tenant(), 'picker');
    expect((await client.get('/board')).status).toBe(403);
    const changed = await ctx.admin('POST', roleOf(client.user.id), { role: 'supervisor' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ id: client.user.id, role: 'supervisor' });
    expect((await client.get('/board')).status).toBe(200);
    expect((await client.get('/session')).body.data.user.role).toBe('supervisor');

    expect((await ctx.admin('POST', roleOf(client.user.id), { role: 'packer' })).status).toBe(200);
    expect((await client.get('/board')).status).toBe(403);
  });

  it('refuses an unknown role with 400 listing the roles, changing nothing', async () => {
    const client = await signedIn(ctx, await ctx.tenant(), 'packer');
    const refused = await ctx.admin('POST', roleOf(client.user.id), { role: 'boss' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'role', message: 'must be one of picker, packer, supervisor' }]);
    expect((await storedUser(client.user.id)).role).toBe('packer');
  });
});

describe('both changes', () => {
  it('answer 404 for an unknown user and 400 naming id for one that is not a UUID', async () => {
    expect((await ctx.admin('POST', pinOf(UNKNOWN), { pin: '975310' })).status).toBe(404);
    expect((await ctx.admin('POST', roleOf(UNKNOWN), { role: 'packer' })).status).toBe(404);
    const notUuid = await ctx.admin('POST', roleOf('lee'), { role: 'packer' });
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.error.details[0]?.field).toBe('id');
  });

  it('answer 409 for a disabled user and change nothing: its row is history', async () => {
    const client = await signedIn(ctx, await ctx.tenant(), 'picker');
    expect((await ctx.admin('POST', `/api/v1/admin/users/${client.user.id}/disable`)).status).toBe(200);
    const before = await storedUser(client.user.id);
    for (const refused of [await ctx.admin('POST', pinOf(client.user.id), { pin: '975310' }), await ctx.admin('POST', roleOf(client.user.id), { role: 'supervisor' })]) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CONFLICT');
    }
    expect(await storedUser(client.user.id)).toEqual(before);
  });

  it('need the admin token: none, a wrong one or an API key answers 401 and changes nothing', async () => {
    const tenant = await ctx.tenant();
    const client = await signedIn(ctx, tenant, 'picker');
    const before = await storedUser(client.user.id);
    for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${tenant.key}`]) {
      for (const [url, payload] of [[pinOf(client.user.id), { pin: '975310' }], [roleOf(client.user.id), { role: 'supervisor' }]] as const) {
        const response = await ctx.app.inject({ method: 'POST', url, payload, headers: authorization ? { authorization } : {} });
        expect(response.statusCode, `${url} ${authorization}`).toBe(401);
      }
    }
    expect(await storedUser(client.user.id)).toEqual(before);
    expect((await client.get('/session')).status).toBe(200);
  });
});
