import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import { bodyIsOptional, responses } from '../http/schemas';
import { respondWithView } from '../http/write';
import { tenantIdOf } from '../tenancy/tenants';
import { cancelReplenishment, completeReplenishment, listReplenishments, loadReplenishment } from './replenishment';
import { CompleteReplenishmentBody, ReplenishmentListQuery, ReplenishmentPage, ReplenishmentParams, ReplenishmentResponse, SlugParams } from './schemas';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** Runs one write of a task of the tenant, and answers the task as it then stands (the warehouse API and the console). */
export function respondWithTask(request: FastifyRequest, reply: FastifyReply, tenantId: string, work: (tx: Tx) => Promise<{ id: string }>) {
  return respondWithView(request, reply, tenantId, work, ({ id }, tx) => loadReplenishment(tx, tenantId, id));
}

/** Replenishment (docs/floor.md, Replenishment): tasks that move units from reserve slots to pick faces. */
export const replenishmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  /** Runs one write of a task of the tenant named in the path. */
  async function taskWrite(request: FastifyRequest, reply: FastifyReply, slug: string, work: (tx: Tx, tenantId: string) => Promise<{ id: string }>) {
    const tenantId = await tenantIdOf(db, slug);
    return respondWithTask(request, reply, tenantId, (tx) => work(tx, tenantId));
  }

  app.get(
    '/replenishments',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'listReplenishments', summary: 'Replenishment tasks, first in line first: those orders wait for, then top-ups, each oldest first',
        params: SlugParams,
        querystring: ReplenishmentListQuery,
        response: responses({ 200: ReplenishmentPage }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { limit = 50, cursor, status } = request.query;
      const page = await listReplenishments(db, tenantId, { limit, cursor, status });
      return { success: true as const, data: page.tasks, pagination: page.pagination, requestId: request.id };
    },
  );

  app.get(
    '/replenishments/:id',
    {
      schema: { ...route, operationId: 'getReplenishment', summary: 'One replenishment task', params: ReplenishmentParams, response: responses({ 200: ReplenishmentResponse }, 404) },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return { success: true as const, data: await loadReplenishment(db, tenantId, request.params.id), requestId: request.id };
    },
  );

  app.post(
    '/replenishments/:id/complete',
    {
      schema: {
        ...route,
        operationId: 'completeReplenishment', summary: "Complete a task: the units of its lot move from its reserve slot to the face's slot of that lot (stock unchanged)",
        description:
          '409 (nothing changed) when the task is DONE or CANCELLED, when the reserve slot holds fewer units than `quantity`, ' +
          'when either slot is no longer what the task names, or when its lot now expires before the first day a line may take.',
        params: ReplenishmentParams,
        body: CompleteReplenishmentBody,
        response: responses({ 200: ReplenishmentResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      taskWrite(request, reply, request.params.slug, (tx, tenantId) => completeReplenishment(tx, tenantId, request.params.id, request.body.quantity)),
  );

  app.post(
    '/replenishments/:id/cancel',
    {
      schema: {
        ...route,
        operationId: 'cancelReplenishment', summary: 'Cancel a task; no slot changes',
        description: '409 when the task is DONE or CANCELLED already.',
        params: ReplenishmentParams,
        response: responses({ 200: ReplenishmentResponse }, 404, 409),
      },
    },
    async (request, reply) => taskWrite(request, reply, request.params.slug, (tx, tenantId) => cancelReplenishment(tx, tenantId, request.params.id)),
  );
};
