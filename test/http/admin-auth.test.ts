import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/context';
import { useTestContext } from '../helpers/setup';

/** The operator and warehouse APIs' admin token: a refusal says what is wrong and where the right token is. */
describe('the admin token', () => {
  const setup = useTestContext();
  const tenants = (authorization?: string) =>
    setup.ctx.app.inject({ method: 'GET', url: '/api/v1/admin/tenants', headers: authorization === undefined ? {} : { authorization } });

  it('is taken as Authorization: Bearer <token>', async () => {
    expect((await tenants(`Bearer ${ADMIN_TOKEN}`)).statusCode).toBe(200);
  });

  it('missing, or not in that form, is answered with the form', async () => {
    for (const authorization of [undefined, ADMIN_TOKEN, `Basic ${ADMIN_TOKEN}`, 'Bearer']) {
      const response = await tenants(authorization);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toEqual({ code: 'UNAUTHORIZED', message: 'This API needs Authorization: Bearer <ADMIN_TOKEN>' });
    }
  });

  it('in that form but wrong, is said not to be recognised, with where the generated one is stored', async () => {
    for (const token of ['not-the-token', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.toUpperCase()]) {
      const response = await setup.ctx.app.inject({ method: 'POST', url: '/api/v1/admin/tenants', headers: { authorization: `Bearer ${token}` }, payload: { slug: 's', name: 'n' } });
      expect(response.statusCode).toBe(401);
      const { code, message } = response.json().error;
      expect(code).toBe('UNAUTHORIZED');
      expect(message).toMatch(/^The admin token is not recognised: .*ADMIN_TOKEN.*PICKPORT_DATA_DIR\/admin-token/);
      expect(message).not.toContain(ADMIN_TOKEN);
    }
  });
});
