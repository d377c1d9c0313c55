import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tenantOf } from '../http/auth';
import { atMostItems, batchItems } from '../http/batch';
import { notFound } from '../http/errors';
import { responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { upsertBatch } from './batch';
import { ignoredProductFields, toProduct } from './fields';
import { findProduct, listProducts } from './queries';
import {
  BatchBody,
  BatchResponse,
  ListQuery,
  MAX_BATCH_BYTES,
  MAX_BATCH_PRODUCTS,
  ProductInput,
  ProductPage,
  ProductParams,
  ProductResponse,
  UpsertResponse,
} from './schemas';
import { upsertProduct, upsertProductAlone, type UpsertResult } from './upsert';

const tags = ['products'];
const security = [{ apiKey: [] }];

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/products',
    {
      config: { permission: 'products:write' },
      schema: {
        tags,
        security,
        operationId: 'upsertProduct', summary: 'Create or update a product by externalId',
        description:
          'Upsert keyed by the case-sensitive externalId: 201 when created, 200 when updated. Fields sent overwrite, ' +
          'fields left out keep their value. An unknown locationCode is saved and reported in `warnings`, as is every ' +
          'field sent that is not a product field (it is ignored).',
        body: ProductInput,
        response: responses({ 200: UpsertResponse, 201: UpsertResponse }, 409),
      },
    },
    async (request, reply) => {
      const input = request.body;
      const ignored = ignoredProductFields(input);
      const answer = (result: UpsertResult) => ({
        statusCode: result.created ? 201 : 200,
        body: {
          success: true as const,
          action: result.created ? ('created' as const) : ('updated' as const),
          data: { id: result.id, externalId: input.externalId, sku: input.sku },
          warnings: [...result.warnings, ...ignored],
          requestId: request.id,
        },
      });
      const tenantId = tenantOf(request);
      await respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => upsertProduct(tx, tenantId, input),
        alone: (db) => upsertProductAlone(db, tenantId, input),
        answer,
      });
    },
  );

  app.post(
    '/products/batch',
    {
      config: { permission: 'products:write' },
      bodyLimit: MAX_BATCH_BYTES,
      attachValidation: true,
      schema: {
        tags,
        security,
        operationId: 'upsertProductBatch', summary: 'Create or update up to 200 products',
        description:
          'Partial: valid products are saved even when others fail; each failure is reported with its index. ' +
          'Over 200 products or 5 MB answers 413 before anything is processed. An externalId sent twice fails from its ' +
          'second occurrence; of two products claiming one sku the first wins.',
        body: BatchBody,
        response: responses({ 200: BatchResponse }, 409, 413),
      },
      preValidation: atMostItems('products', MAX_BATCH_PRODUCTS),
    },
    async (request, reply) => {
      // Each product is validated on its own: problems inside products[i] fail that product only.
      const { items: products, invalid } = batchItems(request, 'products', 'in-body');
      const tenantId = tenantOf(request);
      await respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => upsertBatch(tx, tenantId, products, invalid),
        answer: ({ data, errors, warnings }) => ({ body: { success: true as const, data, errors, warnings, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/products/:externalId',
    {
      config: { permission: 'products:read' },
      schema: {
        tags,
        security,
        operationId: 'getProduct', summary: 'One product by its externalId',
        params: ProductParams,
        response: responses({ 200: ProductResponse }, 404),
      },
    },
    async (request) => {
      const row = await findProduct(request.server.db, tenantOf(request), request.params.externalId);
      if (!row) throw notFound(`Product ${request.params.externalId}`);
      return { success: true as const, data: toProduct(row), requestId: request.id };
    },
  );

  app.get(
    '/products',
    {
      config: { permission: 'products:read' },
      schema: {
        tags,
        security,
        operationId: 'listProducts', summary: 'List products, page by page',
        description:
          'Keyset pages: pass `nextCursor` back as `cursor` until `hasMore` is false. Without `updated_since` every ' +
          'product that exists throughout the listing appears exactly once; with it, products come in updatedAt ' +
          'order, so an incremental sync resumes from the last updatedAt it saw (a change is listed about a second after ' +
          'it commits, once no earlier write is still running). `total` is counted on the first page ' +
          'and carried by the cursor, which is signed: it holds only for the tenant and filters it came with.',
        querystring: ListQuery,
        response: responses({ 200: ProductPage }),
      },
    },
    async (request) => {
      const page = await listProducts(request.server.db, tenantOf(request), request.query);
      return {
        success: true as const,
        data: page.rows.map(toProduct),
        pagination: { limit: request.query.limit ?? 50, hasMore: page.hasMore, nextCursor: page.nextCursor, total: page.total },
        requestId: request.id,
      };
    },
  );
};
