import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { cancelReplenishment, completeReplenishment, releaseReplenishment, startReplenishment, type Replenisher } from '../floor/replenishment';
import { respondWithTask } from '../floor/replenishment-routes';
import { loadTrip } from '../floor/replenishment-trip';
import { CompleteReplenishmentBody, ReplenishmentResponse } from '../floor/schemas';
import { responses } from '../http/schemas';
import { consoleRoute, PICKING } from './auth';
import { ReplenishmentIdParams, TripResponse } from './schemas';

/** Who acts: the signed-in user. */
const replenisher = (request: FastifyRequest): Replenisher => ({
  id: request.staff.user.id,
  username: request.staff.user.username,
  supervisor: request.staff.user.role === 'supervisor',
});

/** Whoever picks replenishes too: pickers and supervisors. */
const config = { roles: PICKING };

/** The replenishment screen: the caller's next trip, and taking, putting back, completing and cancelling a task. */
export const replenishRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/replenishments/trip',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'getReplenishmentTrip', summary: "The caller's next replenishment trip: their task in hand and the first open tasks in line, in walking order",
        response: responses({ 200: TripResponse }),
      },
    },
    async (request) => ({
      success: true as const,
      data: await loadTrip(db, app.planner, request.staff.tenantId, request.staff.user.id, app.planner.deadline()),
      requestId: request.id,
    }),
  );

  app.post(
    '/replenishments/:id/take',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'takeReplenishment', summary: 'Take a task in hand: IN_PROGRESS, held by the caller (taking it again changes nothing)',
        description: '409 when someone else holds it (the message names them), when it is DONE or CANCELLED, or when the caller holds another task.',
        params: ReplenishmentIdParams,
        response: responses({ 200: ReplenishmentResponse }, 404, 409),
      },
    },
    async (request, reply) => respondWithTask(request, reply, request.staff.tenantId, (tx) => startReplenishment(tx, request.staff.tenantId, request.params.id, replenisher(request))),
  );

  app.post(
    '/replenishments/:id/put-back',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'putBackReplenishment', summary: 'Put a task back: OPEN again, for anyone to take',
        description: '409 unless it is IN_PROGRESS and held by the caller; a supervisor may put back a task anyone holds.',
        params: ReplenishmentIdParams,
        response: responses({ 200: ReplenishmentResponse }, 404, 409),
      },
    },
    async (request, reply) => respondWithTask(request, reply, request.staff.tenantId, (tx) => releaseReplenishment(tx, request.staff.tenantId, request.params.id, replenisher(request))),
  );

  app.post(
    '/replenishments/:id/complete',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'completeConsoleReplenishment', summary: 'Complete a task as POST /replenishments/{id}/complete of the warehouse API does; its doneBy is the caller',
        description:
          '409 (nothing changed) when someone else holds it, when it is DONE or CANCELLED, when the reserve slot holds fewer units than `quantity`, ' +
          'when either slot is no longer what the task names, or when its lot now expires before the first day a line may take.',
        params: ReplenishmentIdParams,
        body: CompleteReplenishmentBody,
        response: responses({ 200: ReplenishmentResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      respondWithTask(request, reply, request.staff.tenantId, (tx) => completeReplenishment(tx, request.staff.tenantId, request.params.id, request.body.quantity, replenisher(request))),
  );

  app.post(
    '/replenishments/:id/cancel',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'cancelConsoleReplenishment', summary: 'Cancel a task; no slot changes; its doneBy is the caller',
        description: '409 when it is DONE or CANCELLED, or when someone else holds it (a supervisor may cancel it anyway).',
        params: ReplenishmentIdParams,
        response: responses({ 200: ReplenishmentResponse }, 404, 409),
      },
    },
    async (request, reply) => respondWithTask(request, reply, request.staff.tenantId, (tx) => cancelReplenishment(tx, request.staff.tenantId, request.params.id, replenisher(request))),
  );
};
