import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { blindCounts, countedProduct, finishCount, listCounts, loadCount } from '../floor/counts';
import { FinishCountBody } from '../floor/schemas';
import { responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { consoleRoute, PICKING } from './auth';
import { productByRef } from './product-ref';
import { BlindCountList, BlindCountResponse, CountedProductResponse, CountIdParams, ProductRefParams } from './schemas';

/** How many open counts the count screen lists, by location. */
const OPEN_COUNTS_SHOWN = 100;

const config = { roles: PICKING };

/** The count screen (pickers and supervisors): blind, so nothing here answers what the records say. */
export const countingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/counts',
    { config, schema: { ...consoleRoute, operationId: 'listOpenCounts', summary: 'The open counts, by location, each with the products expected there (no quantities)', response: responses({ 200: BlindCountList }) } },
    async (request) => {
      const { tenantId } = request.staff;
      const page = await listCounts(db, tenantId, { limit: OPEN_COUNTS_SHOWN, status: 'OPEN' });
      return { success: true as const, data: await blindCounts(db, tenantId, page.counts), requestId: request.id };
    },
  );

  app.get(
    '/counting/products/:ref',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'findCountedProduct', summary: 'The product a scanned code names, to count one the location was not expected to hold',
        description: '404 when no product has the code; 409 when several share it (a barcode); 400 naming `ref` for a GS1 string that does not read.',
        params: ProductRefParams,
        response: responses({ 200: CountedProductResponse }, 404, 409),
      },
    },
    async (request) => {
      const { tenantId } = request.staff;
      return { success: true as const, data: await countedProduct(db, tenantId, await productByRef(db, tenantId, request.params.ref)), requestId: request.id };
    },
  );

  app.post(
    '/counts/:id/finish',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'finishMyCount', summary: 'Finish a count with what was counted, as the warehouse API does; the caller is recorded as who counted',
        description: '409 when the count is DONE or CANCELLED (someone finished it first).',
        params: CountIdParams,
        body: FinishCountBody,
        response: responses({ 200: BlindCountResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const { tenantId, user } = request.staff;
      return respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => finishCount(tx, tenantId, request.params.id, request.body.lines, user.username),
        answer: async ({ id }, tx) => ({ body: { success: true as const, data: (await blindCounts(tx, tenantId, [await loadCount(tx, tenantId, id)]))[0]!, requestId: request.id } }),
      });
    },
  );
};
