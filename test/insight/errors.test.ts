import { afterAll, describe, expect, it } from 'vitest';
import type { Refusal } from '../helpers/answers';
import { createTestContext, type TestResponse } from '../helpers/context';
import { signedIn } from '../console/helpers';
import { warehouse } from '../orders/helpers';

/* Bad periods and buckets answer 400 naming the field, from both APIs; an unknown warehouse 404. */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const tenant = await ctx.tenant();
const api = warehouse(ctx, tenant);
const supervisor = await signedIn(ctx, tenant, 'supervisor');
const DAY = 24 * 3_600_000;
const at = (ms: number) => encodeURIComponent(new Date(Date.parse('2026-11-01T00:00:00Z') + ms).toISOString());

const expectField = (response: TestResponse<Refusal>, field: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  expect(response.body.error.details?.map((detail) => detail.field)).toContain(field);
};

describe.each([
  ['the warehouse API', (path: string) => api.get(path)],
  ['the console', (path: string) => supervisor.get(path)],
])('%s', (_, get) => {
  it('refuses a period that ends before it starts, or where it starts', async () => {
    expectField(await get(`/insight/heat-map?from=${at(DAY)}&to=${at(0)}`), 'to');
    expectField(await get(`/insight/charts?from=${at(0)}&to=${at(0)}&bucket=day`), 'to');
  });

  it('refuses periods longer than 7 days by the hour, 92 by the day or on the heat map, and takes them at the bound', async () => {
    expectField(await get(`/insight/charts?from=${at(0)}&to=${at(7 * DAY + 1)}&bucket=hour`), 'to');
    expect((await get(`/insight/charts?from=${at(0)}&to=${at(7 * DAY)}&bucket=hour`)).status).toBe(200);
    expectField(await get(`/insight/charts?from=${at(0)}&to=${at(92 * DAY + 1)}&bucket=day`), 'to');
    expect((await get(`/insight/charts?from=${at(0)}&to=${at(92 * DAY)}&bucket=day`)).status).toBe(200);
    expectField(await get(`/insight/heat-map?from=${at(0)}&to=${at(92 * DAY + 1)}`), 'to');
  });

  it('refuses a bucket other than hour or day, and dates that are not ISO 8601', async () => {
    expectField(await get(`/insight/charts?from=${at(0)}&to=${at(DAY)}&bucket=week`), 'bucket');
    expectField(await get(`/insight/charts?from=yesterday&to=${at(DAY)}&bucket=day`), 'from');
    expectField(await get(`/insight/heat-map?from=${at(0)}`), 'to');
  });
});

it('answers 404 for an unknown warehouse', async () => {
  const answer = await ctx.admin('GET', `/api/v1/warehouse/tenants/no-such-warehouse/insight/heat-map?from=${at(0)}&to=${at(DAY)}`);
  expect(answer.status).toBe(404);
});
