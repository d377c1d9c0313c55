import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { bodyIsOptional, responses } from '../http/schemas';
import { respondWithView, respondWithWrite } from '../http/write';
import { OrderResponse } from '../orders/schemas';
import { tenantIdOf } from '../tenancy/tenants';
import { loadOrderView, type OrderRow } from '../orders/store';
import { completePicking, startPicking } from './order-picking';
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
 * The warehouse API (docs/orders.md, "Warehouse API"): moves orders on the floor and corrects
 * stock, per tenant, with the admin token. Each transition is checked and applied in one
 * transaction under the order's row lock, so of two racing requests exactly one moves the order;
 * the other gets 409.
 */
export const warehouseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  /** Runs one order transition of the tenant named in the path and answers the whole order. */
  async function orderWrite(request: FastifyRequest, reply: FastifyReply, slug: string, work: (tx: Tx, tenantId: string) => Promise<{ order: OrderRow; events: DomainEvent[] }>) {
    const tenantId = await tenantIdOf(db, slug);
    return respondWithView(request, reply, tenantId, (tx) => work(tx, tenantId), ({ order }, tx) => loadOrderView(tx, tenantId, order));
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
    async (request, reply) => orderWrite(request, reply, request.params.slug, (tx, tenantId) => startPicking(tx, tenantId, request.params.externalId)),
  );

  app.post(
    '/orders/:externalId/pack',
    { schema: { ...route, operationId: 'packOrder', summary: 'PICKED → PACKED', params: OrderParams, response: responses({ 200: OrderResponse }, 404, 409) } },
    async (request, reply) => orderWrite(request, reply, request.params.slug, (tx, tenantId) => packOrder(tx, tenantId, request.params.externalId)),
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
    async (request, reply) => orderWrite(request, reply, request.params.slug, (tx, tenantId) => completePicking(tx, tenantId, request.params.externalId, request.body.lines)),
  );

  app.post(
    '/orders/:externalId/dispatch',
    {
      preValidation: bodyIsOptional,
      schema: { ...route, operationId: 'dispatchOrder', summary: 'PACKED → DISPATCHED', params: OrderParams, body: DispatchBody, response: responses({ 200: OrderResponse }, 404, 409) },
    },
    async (request, reply) => orderWrite(request, reply, request.params.slug, (tx, tenantId) => dispatchOrder(tx, tenantId, request.params.externalId, request.body)),
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
    async (request, reply) => {
      const change = stockChange(request.body);
      const tenantId = await tenantIdOf(db, request.params.slug);
      return respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => adjustStock(tx, tenantId, request.params.externalId, change),
        answer: ({ adjustment }) => ({ body: { success: true as const, data: adjustment, requestId: request.id } }),
      });
    },
  );
};
