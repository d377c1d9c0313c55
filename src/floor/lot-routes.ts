import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { Executor } from '../db';
import { bodyIsOptional, responses } from '../http/schemas';
import { tenantIdOf } from '../tenancy/tenants';
import { expiringLots, lotOrders } from './lots';
import { ExpiringLotPage, ExpiringLotsQuery, LotOrderPage, LotOrdersParams, LotOrdersQuery, SlugParams } from './schemas';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** GET /lots's answer, the warehouse API's and the console supervisor's: a page of the lots expiring within the period. */
export async function expiringLotsAnswer(db: Executor, tenantId: string, query: Static<typeof ExpiringLotsQuery>, requestId: string) {
  const { limit = 50, cursor, expiringWithinDays = 30 } = query;
  const page = await expiringLots(db, tenantId, { days: expiringWithinDays, limit, cursor });
  return { success: true as const, data: page.lots, pagination: page.pagination, requestId };
}

/** Lots (docs/floor.md, Lots and first expiry first out): what expires soon, and where a lot went. */
export const lotRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/lots',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'listExpiringLots', summary: 'The lots at the slots that expire within a period, soonest first (expired ones included)',
        params: SlugParams,
        querystring: ExpiringLotsQuery,
        response: responses({ 200: ExpiringLotPage }, 404),
      },
    },
    async (request) => expiringLotsAnswer(db, await tenantIdOf(db, request.params.slug), request.query, request.id),
  );

  app.get(
    '/lots/:productExternalId/:lot/orders',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'listLotOrders', summary: 'The orders that got units of a lot of a product (a recall), by completed waves',
        params: LotOrdersParams,
        querystring: LotOrdersQuery,
        response: responses({ 200: LotOrderPage }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { limit = 50, cursor } = request.query;
      const page = await lotOrders(db, tenantId, request.params.productExternalId, request.params.lot, { limit, cursor });
      return { success: true as const, data: page.orders, pagination: page.pagination, requestId: request.id };
    },
  );
};
