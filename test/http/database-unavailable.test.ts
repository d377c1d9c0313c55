import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import { openDatabase, type DatabaseHandle } from '../../src/db';
import { ADMIN_TOKEN, openTestDatabase, testConfig, usingPostgres } from '../helpers/context';

/**
 * With the database out of reach the service answers 503 SERVICE_UNAVAILABLE with Retry-After, in
 * the envelope, so that clients retry rather than treat the request as failed for good.
 */
const someKey = `pk_live_${'a'.repeat(40)}`;

async function expectUnavailable(app: FastifyInstance) {
  const requests = [
    { method: 'GET' as const, url: `${PUBLIC_PREFIX}/products`, headers: { authorization: `Bearer ${someKey}` } },
    {
      method: 'POST' as const,
      url: `${PUBLIC_PREFIX}/products`,
      headers: { authorization: `Bearer ${someKey}` },
      payload: { externalId: 'P-1', sku: 'S-1', name: 'Widget' },
    },
    { method: 'GET' as const, url: '/api/v1/admin/tenants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    { method: 'POST' as const, url: '/api/v1/admin/tenants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { slug: 'acme', name: 'Acme' } },
  ];
  for (const request of requests) {
    const response = await app.inject(request);
    expect(response.statusCode, `${request.method} ${request.url}`).toBe(503);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    const body = response.json();
    expect(body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' }, requestId: response.headers['x-request-id'] });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|closed/i);
  }
}

describe.runIf(usingPostgres)('PostgreSQL out of reach', () => {
  let database: DatabaseHandle;
  let app: FastifyInstance;
  beforeAll(async () => {
    // A port where nothing listens: every connection is refused.
    const unreachable = new URL(process.env.DATABASE_URL as string);
    unreachable.port = '1';
    database = await openDatabase({ url: unreachable.toString(), poolSize: 2 });
    app = await buildApp({ config: testConfig(), database, logger: false });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After on public and operator routes', async () => {
    await expectUnavailable(app);
  });
});

describe.skipIf(usingPostgres)('embedded database closed under the app', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({ config: testConfig(), database, logger: false });
    try {
      await app.ready();
      await database.close();
      await expectUnavailable(app);
    } finally {
      await app.close();
      await drop();
    }
  });
});
