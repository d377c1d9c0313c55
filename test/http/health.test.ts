import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PUBLIC_PREFIX } from '../../src/api-prefixes';
import { createTestContext, type TestContext } from '../helpers/context';
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

describe('GET /health/live and /health/ready (for a load balancer or an orchestrator)', () => {
  const setup = useTestContext();
  const get = (ctx: TestContext, path: string) => ctx.app.inject({ method: 'GET', url: `${PUBLIC_PREFIX}${path}` });

  it('live answers 200 without a key and without asking the database', async () => {
    const other = await createTestContext();
    await other.database.close();
    const response = await get(other, '/health/live');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'live', requestId: expect.any(String) });
    await other.app.close();
  });

  it('ready answers 200 without a key once the database answers, its migrations are applied and the planner threads run', async () => {
    const response = await get(setup.ctx, '/health/ready');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ready', checks: { database: { status: 'ok' }, migrations: { status: 'ok' }, planner: { status: 'ok' } } });
  });

  it('ready answers 503 naming a migration not applied', async () => {
    const other = await createTestContext();
    const [last] = (await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1`.execute(other.database.db)).rows;
    await sql`DELETE FROM schema_migrations WHERE name = ${last!.name}`.execute(other.database.db);
    const response = await get(other, '/health/ready');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'unavailable', checks: { database: { status: 'ok' }, migrations: { status: 'error', message: `1 migration(s) not applied: ${last!.name}` } } });
    await other.close();
  });

  it('ready answers 503 naming the database when it does not answer, and the planner once its threads are stopped', async () => {
    const other = await createTestContext();
    await other.app.planner.close();
    expect((await get(other, '/health/ready')).json()).toMatchObject({ status: 'unavailable', checks: { database: { status: 'ok' }, planner: { status: 'error', message: expect.stringMatching(/^0 of \d+ planner threads running$/) } } });
    await other.database.close();
    const response = await get(other, '/health/ready');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ checks: { database: { status: 'error' }, migrations: { status: 'error' } } });
    await other.app.close();
  });
});
