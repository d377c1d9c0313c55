import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { responses } from '../http/schemas';
import { respondWithView } from '../http/write';
import type { OrderRow } from '../orders/store';
import { dispatchOrder, orderByRef, packOrder, packOrderView } from '../warehouse/shipping';
import { consoleRoute, PACKING } from './auth';
import { ConsoleDispatchBody, OrderParams, OrderRefParams, PackOrderResponse } from './schemas';

/** Runs one order transition of the caller's tenant and answers the order as the packer sees it. */
async function orderWrite(request: FastifyRequest, reply: FastifyReply, work: (tx: Tx, tenantId: string) => Promise<{ order: OrderRow; events: DomainEvent[] }>) {
  const { tenantId } = request.staff;
  return respondWithView(request, reply, tenantId, (tx) => work(tx, tenantId), ({ order }, tx) => packOrderView(tx, tenantId, order));
}

const config = { roles: PACKING };

/** The pack station: find an order, check its items, mark it packed, dispatch it (packers and supervisors). */
export const packingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/packing/orders/:ref',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'findPackOrder', summary: 'An order by its orderNumber or externalId (orderNumber tried first), with its items to check',
        params: OrderRefParams,
        response: responses({ 200: PackOrderResponse }, 404),
      },
    },
    async (request) => {
      const { tenantId } = request.staff;
      return { success: true as const, data: await packOrderView(db, tenantId, await orderByRef(db, tenantId, request.params.ref)), requestId: request.id };
    },
  );

  app.post(
    '/packing/orders/:externalId/pack',
    {
      config,
      schema: { ...consoleRoute, operationId: 'markPacked', summary: 'PICKED → PACKED', params: OrderParams, response: responses({ 200: PackOrderResponse }, 404, 409) },
    },
    async (request, reply) => orderWrite(request, reply, (tx, tenantId) => packOrder(tx, tenantId, request.params.externalId)),
  );

  app.post(
    '/packing/orders/:externalId/dispatch',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'dispatchPacked', summary: 'PACKED → DISPATCHED with the carrier and tracking number (both required here)',
        description: 'Both are stored on the order, shown by GET /orders/{externalId} and carried by the order.status_changed event.',
        params: OrderParams,
        body: ConsoleDispatchBody,
        response: responses({ 200: PackOrderResponse }, 404, 409),
      },
    },
    async (request, reply) => orderWrite(request, reply, (tx, tenantId) => dispatchOrder(tx, tenantId, request.params.externalId, request.body)),
  );
};
