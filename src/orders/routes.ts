import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tenantOf } from '../http/auth';
import { atMostItems, batchItemError, batchItems } from '../http/batch';
import { ApiError, notFound } from '../http/errors';
import { ignoredFieldWarnings, readOnlyFields } from '../http/ignored-fields';
import { responses, type BatchItemError, type BatchItemWarning } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { cancelOrder } from './cancel';
import { listOrders } from './queries';
import { createOrderAlone, upsertOrder, upsertOrders, type OrderResult } from './intake';
import {
  BatchInput,
  BatchResponse,
  CancelResponse,
  ListQuery,
  MAX_BATCH_ORDERS,
  Order,
  OrderInput,
  OrderPage,
  OrderParams,
  OrderResponse,
  UpsertResponse,
} from './schemas';
import { findOrder, orderSummary } from './store';
import { orderViewWithLots } from '../floor/lots';

const MAX_BATCH_BYTES = 10 * 1024 * 1024;

const ORDER_READ_ONLY = readOnlyFields(Order, OrderInput);

/** A warning per field of a sent order that is not an order field (or is one only the service sets): it was ignored. */
const ignoredOrderFields = (sent: unknown) => ignoredFieldWarnings(OrderInput, sent, { subject: 'an order', readOnly: ORDER_READ_ONLY });

const tags = ['orders'];
const security = [{ apiKey: [] }];

/** Public order routes: upsert, batch, read, list, cancel (docs/orders.md). */
export const orderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders',
    {
      config: { permission: 'orders:write' },
      schema: {
        tags,
        security,
        operationId: 'upsertOrder', summary: 'Create or update an order by externalId',
        body: OrderInput,
        response: responses({ 200: UpsertResponse, 201: UpsertResponse }, 409),
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const ignored = ignoredOrderFields(request.body);
      return respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => upsertOrder(tx, tenantId, request.body),
        alone: (db) => createOrderAlone(db, tenantId, request.body),
        // Intake's statements take arrays of keys, which PostgreSQL would otherwise plan at every run.
        genericPlans: true,
        answer: (outcome) => ({
          statusCode: outcome.action === 'created' ? 201 : 200,
          body: {
            success: true as const,
            action: outcome.action,
            data: orderSummary(outcome.order, outcome.itemsCount),
            ...(outcome.warnings.length + ignored.length > 0 ? { warnings: [...outcome.warnings, ...ignored] } : {}),
            requestId: request.id,
          },
        }),
      });
    },
  );

  app.post(
    '/orders/batch',
    {
      bodyLimit: MAX_BATCH_BYTES,
      config: { permission: 'orders:write' },
      attachValidation: true,
      preValidation: atMostItems('orders', MAX_BATCH_ORDERS),
      schema: {
        tags,
        security,
        operationId: 'upsertOrderBatch', summary: `Create or update up to ${MAX_BATCH_ORDERS} orders; each succeeds or fails on its own`,
        body: BatchInput,
        response: responses({ 200: BatchResponse }, 413),
      },
    },
    async (request, reply) => {
      // Each order is validated on its own, and answered as it would be alone: one bad order does not fail the others.
      // The body is read only through batchItems, which refuses first a body that is no object holding `orders`.
      const { items: orders, invalid } = batchItems(request, 'orders', 'in-item');
      const tenantId = tenantOf(request);
      return respondWithWrite(request, reply, {
        tenantId,
        work: async (tx) => {
          const results = await upsertOrders(tx, tenantId, orders, invalid);
          return { results, events: results.flatMap((result) => (result instanceof ApiError ? [] : result.events)) };
        },
        answer: ({ results }) => ({ body: { success: true as const, ...batchAnswer(orders, results), requestId: request.id } }),
        genericPlans: true,
      });
    },
  );

  app.get(
    '/orders/:externalId',
    {
      config: { permission: 'orders:read' },
      schema: { tags, security, operationId: 'getOrder', summary: 'Read one order with its items and customer', params: OrderParams, response: responses({ 200: OrderResponse }, 404) },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const order = await findOrder(app.db, tenantId, request.params.externalId);
      if (!order) throw notFound(`Order ${request.params.externalId}`);
      return { success: true as const, data: await orderViewWithLots(app.db, tenantId, order), requestId: request.id };
    },
  );

  app.get(
    '/orders',
    {
      config: { permission: 'orders:read' },
      schema: {
        tags,
        security,
        operationId: 'listOrders', summary: 'List orders, oldest first (by updatedAt when updated_since is given)',
        querystring: ListQuery,
        response: responses({ 200: OrderPage }),
      },
    },
    async (request) => {
      const { orders, hasMore, nextCursor, total } = await listOrders(app.db, tenantOf(request), request.query);
      const limit = request.query.limit ?? 50;
      return { success: true as const, data: orders, pagination: { limit, hasMore, nextCursor, total }, requestId: request.id };
    },
  );

  app.post(
    '/orders/:externalId/cancel',
    {
      config: { permission: 'orders:write' },
      schema: {
        tags,
        security,
        operationId: 'cancelOrder', summary: 'Cancel an order that is PENDING or PENDING_VALIDATION',
        description: 'Cancelling an order that is already cancelled answers 200 with its original cancelledAt.',
        params: OrderParams,
        response: responses({ 200: CancelResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      return respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => cancelOrder(tx, tenantId, request.params.externalId),
        answer: ({ order }) => ({
          body: {
            success: true as const,
            data: {
              id: order.id,
              externalId: order.external_id,
              orderNumber: order.order_number,
              status: 'CANCELLED' as const,
              cancelledAt: new Date(order.cancelled_at ?? order.updated_at).toISOString(),
            },
            requestId: request.id,
          },
        }),
      });
    },
  );
};

/** A batch's counts, and its items' errors and warnings, in the order of the batch. */
function batchAnswer(orders: unknown[], results: OrderResult[]) {
  const data = { successCount: 0, createdCount: 0, updatedCount: 0, errorCount: 0 };
  const errors: BatchItemError[] = [];
  const warnings: BatchItemWarning[] = [];
  results.forEach((result, index) => {
    if (result instanceof ApiError) {
      data.errorCount++;
      errors.push(batchItemError(index, orders[index], result));
      return;
    }
    data.successCount++;
    data[result.action === 'created' ? 'createdCount' : 'updatedCount']++;
    // An order of a batch is answered as if sent on its own: its fields are named as in that order.
    for (const warning of [...result.warnings, ...ignoredOrderFields(orders[index])]) warnings.push({ index, externalId: result.order.external_id, warning });
  });
  return { data, errors, warnings };
}
