import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/context';

/** Every endpoint of spec §4 is in the OpenAPI document, generated from the route schemas. */
describe('OpenAPI document and reference pages', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  it('serves an OpenAPI 3.1 document without a key, listing every public endpoint of the spec', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/public/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    const endpoints = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace('/api/v1/public', '')}`),
    );
    expect(endpoints).toEqual(
      expect.arrayContaining([
        'GET /health',
        'POST /products',
        'POST /products/batch',
        'GET /products',
        'GET /products/{externalId}',
        'POST /orders',
        'POST /orders/batch',
        'GET /orders',
        'GET /orders/{externalId}',
        'POST /orders/{externalId}/cancel',
        'POST /webhooks',
        'GET /webhooks',
        'GET /webhooks/{id}',
        'PATCH /webhooks/{id}',
        'DELETE /webhooks/{id}',
        'POST /webhooks/{id}/test',
        'POST /webhooks/{id}/replay',
        'GET /webhooks/{id}/deliveries',
        'GET /webhooks/{id}/dead-letters',
      ]),
    );
    const createProduct = document.paths['/api/v1/public/products'].post;
    expect(createProduct.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['externalId', 'sku', 'name']),
    );
  });

  it('serves readable reference pages at /docs', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });
});
