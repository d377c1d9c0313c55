import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { bodyIsOptional, responses } from '../http/schemas';
import { respondWithView } from '../http/write';
import { tenantIdOf } from '../tenancy/tenants';
import { cancelCount, finishCount, listCounts, loadCount, loadCounts, requestCounts } from './counts';
import { CountListQuery, CountPage, CountParams, CountResponse, CountsResponse, FinishCountBody, RequestCountsBody, SlugParams } from './schemas';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** Counts (docs/floor.md, Counts): every product at a location counted, blind, and the slots and stock corrected. */
export const countRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  /** Runs one write of a count of the tenant named in the path, and answers the count as it then stands. */
  async function countWrite(request: FastifyRequest, reply: FastifyReply, slug: string, work: (tx: Tx, tenantId: string) => Promise<{ id: string; events?: DomainEvent[] }>) {
    const tenantId = await tenantIdOf(db, slug);
    return respondWithView(request, reply, tenantId, (tx) => work(tx, tenantId), ({ id }, tx) => loadCount(tx, tenantId, id));
  }

  app.post(
    '/counts',
    {
      schema: {
        ...route,
        operationId: 'requestCounts', summary: 'Ask for counts: one per location named, and per location holding a slot of the products named',
        description:
          '201 with the open count of each of those locations when at least one was made, 200 when each already had one (it is answered as it is). ' +
          '400 naming the field without `locationCodes` and `productExternalIds`, for a location unknown or without a place, or a product without slots; ' +
          '404 for an unknown product. Nothing is made when one is refused.',
        params: SlugParams,
        body: RequestCountsBody,
        response: responses({ 200: CountsResponse, 201: CountsResponse }, 404),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return respondWithView(request, reply, tenantId, (tx) => requestCounts(tx, tenantId, request.body), ({ ids }, tx) => loadCounts(tx, tenantId, ids));
    },
  );

  app.get(
    '/counts',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'listCounts', summary: 'Counts, by location, each location oldest first: the open ones, and the history of those finished',
        params: SlugParams,
        querystring: CountListQuery,
        response: responses({ 200: CountPage }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { limit = 50, cursor, status } = request.query;
      const page = await listCounts(db, tenantId, { limit, cursor, status });
      return { success: true as const, data: page.counts, pagination: page.pagination, requestId: request.id };
    },
  );

  app.get(
    '/counts/:id',
    { schema: { ...route, operationId: 'getCount', summary: 'One count, with what it found once DONE', params: CountParams, response: responses({ 200: CountResponse }, 404) } },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return { success: true as const, data: await loadCount(db, tenantId, request.params.id), requestId: request.id };
    },
  );

  app.post(
    '/counts/:id/finish',
    {
      schema: {
        ...route,
        operationId: 'finishCount', summary: "Finish a count: the location's slots are set to what was counted and the stock changes by the difference",
        description:
          'A line is a product and a lot (`lot`, left out for units without one); every slot at the location not listed counts 0, and a lot found ' +
          'without a slot there gets one (its `expiresOn` from the line). Units picked there by waves still PICKING are added to the slot ' +
          '(completing the wave takes them); the stock changes once per product, by the sum over its lots. ' +
          '400 naming the line for a (product, lot) listed twice, a lot of a product that is not lot-tracked, or a product without any slot; ' +
          '404 for an unknown product; 409 when the count is DONE or CANCELLED.',
        params: CountParams,
        body: FinishCountBody,
        response: responses({ 200: CountResponse }, 404, 409),
      },
    },
    async (request, reply) => countWrite(request, reply, request.params.slug, (tx, tenantId) => finishCount(tx, tenantId, request.params.id, request.body.lines, null)),
  );

  app.post(
    '/counts/:id/cancel',
    {
      schema: {
        ...route,
        operationId: 'cancelCount', summary: 'Cancel a count; nothing changes at the location',
        description: '409 when the count is DONE or CANCELLED already.',
        params: CountParams,
        response: responses({ 200: CountResponse }, 404, 409),
      },
    },
    async (request, reply) => countWrite(request, reply, request.params.slug, (tx, tenantId) => cancelCount(tx, tenantId, request.params.id, null)),
  );
};
