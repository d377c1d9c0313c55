import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bodyIsOptional, responses } from '../http/schemas';
import { respondWithView } from '../http/write';
import { tenantIdOf } from '../tenancy/tenants';
import { SlottingProposalBody, SlottingProposalParams, SlottingProposalResponse, SlugParams } from './schemas';
import { applyProposal, readProposal, storeProposal, workOutProposal, type ProposalRequest } from './slotting';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** Works out a proposal (reading only), then keeps it: 201 with it. The warehouse API and the console share this. */
export async function respondWithNewProposal(request: FastifyRequest, reply: FastifyReply, tenantId: string, sent: ProposalRequest | undefined) {
  const worked = await workOutProposal(request.server.db, request.server.planner, tenantId, sent ?? {});
  return respondWithView(
    request,
    reply,
    tenantId,
    async (tx) => ({ ...(await storeProposal(tx, tenantId, worked)), created: true }),
    ({ id }, db) => readProposal(db, tenantId, id),
  );
}

/** Applies a proposal (again: nothing changes): 200 with it as applied. */
export async function respondWithAppliedProposal(request: FastifyRequest, reply: FastifyReply, tenantId: string, id: string) {
  return respondWithView(request, reply, tenantId, (tx) => applyProposal(tx, tenantId, id), (done, db) => readProposal(db, tenantId, done.id));
}

/** Slotting advice (docs/floor.md, Slotting): which products to move where, from the period's orders. */
export const slottingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.post(
    '/slotting/proposals',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'createSlottingProposal', summary: "Propose moves of products that shorten the walking of the period's orders, replayed with exact routes",
        description:
          "Reads the orders of the waves completed in the period and replays them over today's placement and over the proposal's, planned into carts again for each (see `basis`), with the saving by the number of moves; nothing moves until it is applied. 409 without a layout.",
        params: SlugParams,
        body: SlottingProposalBody,
        response: responses({ 201: SlottingProposalResponse }, 404, 409),
      },
    },
    async (request, reply) => respondWithNewProposal(request, reply, await tenantIdOf(db, request.params.slug), request.body),
  );

  app.get(
    '/slotting/proposals/:id',
    {
      schema: { ...route, operationId: 'getSlottingProposal', summary: 'One slotting proposal, and what applying it did', params: SlottingProposalParams, response: responses({ 200: SlottingProposalResponse }, 404) },
    },
    async (request) => ({ success: true as const, data: await readProposal(db, await tenantIdOf(db, request.params.slug), request.params.id), requestId: request.id }),
  );

  app.post(
    '/slotting/proposals/:id/apply',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'applySlottingProposal', summary: "Move the proposal's products to their new locations, in one transaction",
        description: 'A move whose product changed since the proposal, or whose location has no place now, is skipped and listed. Applying again changes nothing. No event is emitted.',
        params: SlottingProposalParams,
        response: responses({ 200: SlottingProposalResponse }, 404),
      },
    },
    async (request, reply) => respondWithAppliedProposal(request, reply, await tenantIdOf(db, request.params.slug), request.params.id),
  );
};
