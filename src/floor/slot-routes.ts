import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bodyIsOptional, responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { tenantIdOf } from '../tenancy/tenants';
import {
  ProductSlotsBody,
  ProductSlotsParams,
  ProductSlotsResponse,
  SlotListQuery,
  SlotMismatchPage,
  SlotMismatchQuery,
  SlotPage,
  SlotsBody,
  SlotsReplaced,
  SlugParams,
} from './schemas';
import { listSlots, replaceProductSlots, replaceSlots, slotMismatches } from './slots';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** Slots (docs/floor.md, Slots): where the units of products kept at several locations stand. */
export const slotRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.put(
    '/slots',
    {
      // The whole set of a large warehouse is several megabytes of JSON.
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        ...route,
        operationId: 'putSlots', summary: "Set where the warehouse's units stand: units of a product at a placed location (replaces every slot)",
        description: 'A product without slots keeps all its stock at its own location. 404 for an unknown product; 400 naming the field for a location unknown or without a place.',
        params: SlugParams,
        body: SlotsBody,
        response: responses({ 200: SlotsReplaced }, 404),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return respondWithWrite(request, reply, {
        work: async (tx) => replaceSlots(tx, tenantId, request.body.slots),
        answer: (counts) => ({ body: { success: true as const, data: counts, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/slots',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'listSlots', summary: "The warehouse's slots, each product's together by location code, or one product's",
        params: SlugParams,
        querystring: SlotListQuery,
        response: responses({ 200: SlotPage }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { limit = 100, cursor, productExternalId } = request.query;
      const page = await listSlots(db, tenantId, { limit, cursor, productExternalId });
      return { success: true as const, data: page.slots, pagination: page.pagination, requestId: request.id };
    },
  );

  app.get(
    '/slots/mismatches',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'listSlotMismatches', summary: 'Products whose slots hold other than their stock',
        params: SlugParams,
        querystring: SlotMismatchQuery,
        response: responses({ 200: SlotMismatchPage }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { limit = 50, cursor } = request.query;
      const page = await slotMismatches(db, tenantId, { limit, cursor });
      return { success: true as const, data: page.mismatches, pagination: page.pagination, requestId: request.id };
    },
  );

  app.put(
    '/products/:externalId/slots',
    {
      schema: {
        ...route,
        operationId: 'putProductSlots', summary: "Set one product's slots (replaces them)",
        description: '404 for an unknown product; 400 naming the field for a location unknown or without a place.',
        params: ProductSlotsParams,
        body: ProductSlotsBody,
        response: responses({ 200: ProductSlotsResponse }, 404),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return respondWithWrite(request, reply, {
        work: async (tx) => ({ slots: await replaceProductSlots(tx, tenantId, request.params.externalId, request.body.slots) }),
        answer: ({ slots }) => ({ body: { success: true as const, data: slots, requestId: request.id } }),
      });
    },
  );
};
