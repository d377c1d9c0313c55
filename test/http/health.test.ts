import { describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { useTestContext } from '../helpers/setup';

describe('GET /health', () => {
  const setup = useTestContext();

  it('answers 200 without a key, with the version, the database check and a requestId', async () => {
    const response = await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/public/health' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ status: 'ok', version: expect.any(String), checks: { database: 'ok' } });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['x-request-id']).toBe(body.requestId);
  });

  it('answers 503 naming the failing check when the database is down', async () => {
    const other = await createTestContext();
    await other.database.close();
    const response = await other.app.inject({ method: 'GET', url: '/api/v1/public/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'unavailable', checks: { database: 'error' } });
    await other.app.close();
  });
});
