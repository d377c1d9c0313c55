import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Tx } from '../db';
import { inTransaction } from '../db/transaction';
import { emit, writeEmitting } from '../events/outbox';
import { bodyIsOptional, responses } from '../http/schemas';
import { moveOrder } from '../orders/lifecycle';
import { OrderResponse } from '../orders/schemas';
import { tenantIdOf } from '../tenancy/tenants';
import { loadOrderView, lockOrder, type OrderRow } from '../orders/store';
import { completePicking } from './picking';
import { dispatchOrder, packOrder } from './shipping';
import { adjustStock, stockChange } from './stock';
import {
  CompletePickingBody,
  DispatchBody,
  OrderParams,
  ProductParams,
  StockBody,
  StockResponse,
} from './schemas';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/**
 * The warehouse API (DESIGN.md §2): moves orders on the floor and corrects stock, per tenant, with
 * the admin token. Each transition is checked and applied in one transaction under the order's
 * row lock, so of two racing requests exactly one moves the order; the other gets 409.
 */
export const warehouseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  /** Runs one order write and answers the whole order. */
  async function orderWrite(slug: string, requestId: string, work: (tx: Tx, tenantId: string) => Promise<OrderRow>) {
    const tenantId = await tenantIdOf(db, slug);
    const order = await inTransaction(db, (tx) => work(tx, tenantId));
    return { success: true as const, data: await loadOrderView(db, tenantId, order), requestId };
  }

  app.post(
    '/orders/:externalId/start-picking',
    {
      schema: {
        ...route,
        operationId: 'startPicking', summary: 'PENDING → IN_PICKING: assign the order to picking',
        params: OrderParams,
        response: responses({ 200: OrderResponse }, 404, 409),
      },
    },
    async (request) =>
      orderWrite(request.params.slug, request.id, async (tx, tenantId) => {
        const moved = await moveOrder(tx, await lockOrder(tx, tenantId, request.params.externalId), 'IN_PICKING');
        await emit(tx, tenantId, [moved.event]);
        return moved.order;
      }),
  );

  app.post(
    '/orders/:externalId/pack',
    { schema: { ...route, operationId: 'packOrder', summary: 'PICKED → PACKED', params: OrderParams, response: responses({ 200: OrderResponse }, 404, 409) } },
    async (request) =>
      orderWrite(request.params.slug, request.id, async (tx, tenantId) => {
        const { order, events } = await packOrder(tx, tenantId, request.params.externalId);
        await emit(tx, tenantId, events);
        return order;
      }),
  );

  app.post(
    '/orders/:externalId/complete-picking',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'completePicking', summary: 'IN_PICKING → PICKED; stock drops by what was picked, short lines adjust the order',
        params: OrderParams,
        body: CompletePickingBody,
        response: responses({ 200: OrderResponse }, 404, 409),
      },
    },
    async (request) =>
      orderWrite(request.params.slug, request.id, async (tx, tenantId) => {
        const { order, events } = await completePicking(tx, tenantId, request.params.externalId, request.body.lines);
        await emit(tx, tenantId, events);
        return order;
      }),
  );

  app.post(
    '/orders/:externalId/dispatch',
    {
      preValidation: bodyIsOptional,
      schema: { ...route, operationId: 'dispatchOrder', summary: 'PACKED → DISPATCHED', params: OrderParams, body: DispatchBody, response: responses({ 200: OrderResponse }, 404, 409) },
    },
    async (request) =>
      orderWrite(request.params.slug, request.id, async (tx, tenantId) => {
        const { order, events } = await dispatchOrder(tx, tenantId, request.params.externalId, request.body);
        await emit(tx, tenantId, events);
        return order;
      }),
  );

  app.post(
    '/products/:externalId/stock',
    {
      schema: {
        ...route,
        operationId: 'setProductStock', summary: 'Set ({stock}) or adjust ({delta}) the stock of a product; it never goes below 0',
        params: ProductParams,
        body: StockBody,
        response: responses({ 200: StockResponse }, 404, 409),
      },
    },
    async (request) => {
      const change = stockChange(request.body);
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { adjustment } = await writeEmitting(db, tenantId, (tx) => adjustStock(tx, tenantId, request.params.externalId, change));
      return { success: true as const, data: adjustment, requestId: request.id };
    },
  );
};
