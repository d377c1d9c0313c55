import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Db, Tx } from '../db';
import { writeEmitting } from '../events/outbox';
import type { DomainEvent } from '../events/types';
import { responses } from '../http/schemas';
import type { OrderRow } from '../orders/store';
import { dispatchOrder, orderByRef, packOrder, packOrderView } from '../warehouse/shipping';
import { consoleRoute, PACKING } from './auth';
import { ConsoleDispatchBody, OrderParams, OrderRefParams, PackOrderResponse } from './schemas';

/** Runs one order write of the caller's tenant with its events and answers the order as the packer sees it. */
async function orderWrite(db: Db, request: FastifyRequest, work: (tx: Tx, tenantId: string) => Promise<{ order: OrderRow; events: DomainEvent[] }>) {
  const { tenantId } = request.staff;
  const { order } = await writeEmitting(db, tenantId, (tx) => work(tx, tenantId));
  return { success: true as const, data: await packOrderView(db, tenantId, order), requestId: request.id };
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
    async (request) => orderWrite(db, request, (tx, tenantId) => packOrder(tx, tenantId, request.params.externalId)),
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
    async (request) => orderWrite(db, request, (tx, tenantId) => dispatchOrder(tx, tenantId, request.params.externalId, request.body)),
  );
};
