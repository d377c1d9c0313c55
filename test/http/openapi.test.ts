import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/http/errors';
import { useTestContext } from '../helpers/setup';

interface Operation {
  operationId?: string;
  summary?: string;
  requestBody?: { content: Record<string, { example?: unknown }> };
  security?: Record<string, string[]>[];
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: { $ref?: string }; example?: unknown; examples?: unknown }> }>;
}

/** Every endpoint of the public API is in the OpenAPI document, generated from the route schemas. */
describe('OpenAPI document and reference pages', () => {
  const setup = useTestContext();

  it('serves an OpenAPI 3.1 document without a key, listing every public endpoint of the spec', async () => {
    const response = await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/public/openapi.json' });
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

  it("documents each batch's items with the single request's schema and the batch's limit", async () => {
    const document = (await setup.ctx.app.inject({ method: 'GET', url: '/api/v1/public/openapi.json' })).json();
    const bodyOf = (path: string) => document.paths[`/api/v1/public${path}`].post.requestBody.content['application/json'].schema;
    for (const [single, batch, key, limit] of [['/products', '/products/batch', 'products', 200], ['/orders', '/orders/batch', 'orders', 50]] as const) {
      const items = bodyOf(batch).properties[key];
      expect(items.maxItems, batch).toBe(limit);
      expect(items.items.required, batch).toEqual(bodyOf(single).required);
      expect(Object.keys(items.items.properties), batch).toEqual(Object.keys(bodyOf(single).properties));
    }
  });

  it('serves readable reference pages at /docs, titled Pickport', async () => {
    const response = await setup.ctx.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('<title>Pickport API reference</title>');
    const initializer = await setup.ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body)?.[1];
    expect(Buffer.from(logo ?? '', 'base64').toString()).toContain('>Pickport</text>');
  });

  function operations(): [string, Operation][] {
    const document = setup.ctx.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
    return Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]),
    );
  }

  it('names every operation with a unique camelCase operationId and a summary', () => {
    const ids = operations().map(([, operation]) => operation.operationId);
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations().filter(([, operation]) => !operation.summary).map(([name]) => name)).toEqual([]);
  });

  it('declares the API key on every public operation but health, the admin token on the operator and warehouse ones, the session cookie on the console but sign-in', () => {
    const schemesOf = (operation: Operation) => (operation.security ?? [{ missing: [] }]).flatMap((requirement) => Object.keys(requirement));
    const expectedOf = (name: string) => {
      if (name.includes('/public/health') || name === 'POST /console/api/session') return [];
      if (name.includes('/api/v1/public/')) return ['apiKey'];
      return name.includes('/console/api/') ? ['consoleSession'] : ['adminToken'];
    };
    for (const [name, operation] of operations()) {
      const expected = expectedOf(name);
      expect({ name, schemes: schemesOf(operation) }).toEqual({ name, schemes: expected });
    }
  });

  it('describes every response and documents its headers: request id always, rate limit on the keyed API, Retry-After on 429 and 503', () => {
    for (const [name, operation] of operations()) {
      const keyed = operation.security?.some((requirement) => 'apiKey' in requirement) ?? false;
      for (const [status, response] of Object.entries(operation.responses)) {
        const where = `${name} ${status}`;
        expect(response.description, where).not.toBe('Default Response');
        const headers = Object.keys(response.headers ?? {});
        expect(headers, where).toContain('X-Request-Id');
        if (keyed) expect(headers, where).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
        if (status === '429' || status === '503') expect(headers, where).toContain('Retry-After');
      }
    }
    const upsert = operations().find(([, operation]) => operation.operationId === 'upsertOrder')![1];
    expect(Object.keys(upsert.responses['201']!.headers ?? {})).toContain('X-Idempotency-Replayed');
  });

  it('shows an example of every request body and every answer (the lint checks each against its schema)', () => {
    const missing: string[] = [];
    for (const [name, operation] of operations()) {
      if (operation.requestBody && operation.requestBody.content['application/json']?.example === undefined) missing.push(`${name} request`);
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.['application/json'];
        if (media && media.example === undefined && media.examples === undefined) missing.push(`${name} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names the shared error schema ErrorResponse, its code an enum of every code in the table', () => {
    const document = setup.ctx.app.swagger() as unknown as { components: { schemas: Record<string, { properties: { error: { properties: { code: { enum: string[] } } } } }> } };
    expect(Object.keys(document.components.schemas)).toEqual(['ErrorResponse']);
    expect(document.components.schemas.ErrorResponse!.properties.error.properties.code.enum.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    const cancel = operations().find(([, operation]) => operation.operationId === 'cancelOrder')![1];
    expect(cancel.responses['409']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/ErrorResponse');
  });
});
