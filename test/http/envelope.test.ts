import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import { openTestDatabase, testConfig } from '../helpers/context';
import { useTenant } from '../helpers/setup';

/** The envelope on every JSON answer, and each error kind (docs/errors.md). */
describe('response envelope and errors', () => {
  const setup = useTenant();

  const post = (path: string, payload: string, contentType = 'application/json') =>
    setup.ctx.app.inject({
      method: 'POST',
      url: `${PUBLIC_PREFIX}${path}`,
      headers: { authorization: `Bearer ${setup.tenant.key}`, 'content-type': contentType },
      payload,
    });

  it('carries a UUID requestId in the body and the same one in X-Request-Id, success or error', async () => {
    const ok = await setup.tenant.api.get('/products');
    const failed = await setup.tenant.api.get('/products/does-not-exist');
    const ids = new Set<string>();
    for (const response of [ok, failed]) {
      expect(response.body.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(response.headers['x-request-id']).toBe(response.body.requestId);
      ids.add(response.body.requestId);
    }
    expect(ids.size).toBe(2);
    expect(ok.body.success).toBe(true);
    expect(failed.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('answers unknown routes with 404 NOT_FOUND in the envelope', async () => {
    const response = await setup.ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}/nothing-here` });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' }, requestId: expect.any(String) });
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR and changes nothing', async () => {
    const response = await post('/products', '{"externalId": "P-1", "sku": ');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'body' }] });
    expect((await setup.tenant.api.get('/products/P-1')).status).toBe(404);
  });

  it('answers a body that is not JSON with 400 naming Content-Type', async () => {
    const response = await post('/products', 'externalId=P-1', 'application/x-www-form-urlencoded');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'Content-Type' }] });
  });

  it('names each invalid field with its JSON path', async () => {
    const response = await setup.tenant.api.post('/orders', {
      externalId: 'O-1',
      orderNumber: 'N-1',
      items: [{ productExternalId: 'P', productSku: 'S', quantity: 1 }, { productExternalId: 'P', quantity: 0 }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    const fields = response.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['items[1].quantity', 'items[1].productSku']));
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await post('/products', JSON.stringify({ externalId: 'BIG', sku: 'BIG', name: 'x'.repeat(2 * 1024 * 1024) }));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers an unexpected failure with 500 INTERNAL_ERROR, nothing internal in the body, the whole error in the log', async () => {
    const { database, drop } = await openTestDatabase();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({ config: testConfig(), database, logger: { level: 'error', stream } });
    try {
      await sql`DROP TABLE tenants CASCADE`.execute(database.db);
      const response = await app.inject({
        method: 'GET',
        url: '/api/v1/admin/tenants',
        headers: { authorization: `Bearer ${testConfig().adminToken}` },
      });
      expect(response.statusCode).toBe(500);
      const body = response.json();
      expect(body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
      expect(JSON.stringify(body)).not.toMatch(/tenants|relation|select/i);
      const logged = lines.map((line) => JSON.parse(line));
      expect(logged.some((entry) => entry.reqId === body.requestId && /relation "tenants" does not exist/.test(entry.err?.message))).toBe(true);
    } finally {
      await app.close();
      await drop();
    }
  });
});
