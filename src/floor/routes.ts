import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import type { DomainEvent } from '../events/types';
import { notFound } from '../http/errors';
import { bodyIsOptional, responses } from '../http/schemas';
import { respondWithView, respondWithWrite } from '../http/write';
import { tenantIdOf } from '../tenancy/tenants';
import { findLayout, saveLayout } from './layout-store';
import { listLocations, planRoute, replaceLocations } from './locations';
import {
  CartPlanQuery,
  CartPlanResponse,
  CreateWaveBody,
  LayoutBody,
  LayoutResponse,
  LocationsBody,
  LocationsResponse,
  PickBody,
  RouteBody,
  RouteResponse,
  SlugParams,
  WaveListQuery,
  WavePage,
  WaveParams,
  WaveResponse,
} from './schemas';
import { countRoutes } from './count-routes';
import { replenishmentRoutes } from './replenishment-routes';
import { slotRoutes } from './slot-routes';
import { lotRoutes } from './lot-routes';
import { slottingRoutes } from './slotting-routes';
import { loadCartPlan } from './pool';
import { cartLimits, completeWave, newWave, recordPick, releaseWave, waveRequest, withFreshPlan } from './wave-commands';
import { listWaves, loadWave } from './wave-reads';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/**
 * The warehouse floor (docs/floor.md): the layout, where locations stand on it, routes through
 * them, and waves of orders picked together. Under the warehouse API's prefix and admin token.
 */
export const floorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;
  await app.register(slotRoutes);
  await app.register(lotRoutes);
  await app.register(slottingRoutes);
  await app.register(replenishmentRoutes);
  await app.register(countRoutes);

  /** Runs one wave write of the tenant named in the path, and answers the wave as it then stands (201 when it made it). */
  async function waveWrite(
    request: FastifyRequest,
    reply: FastifyReply,
    slug: string,
    work: (tx: Tx, tenantId: string) => Promise<{ waveId: string; events: DomainEvent[]; created?: boolean }>,
  ) {
    const tenantId = await tenantIdOf(db, slug);
    return respondWithView(request, reply, tenantId, (tx) => work(tx, tenantId), ({ waveId }, tx) => loadWave(tx, tenantId, waveId));
  }

  app.put(
    '/layout',
    {
      schema: {
        ...route,
        operationId: 'putLayout', summary: "Describe the warehouse's floor: aisles, positions, spacings and the depot",
        description: 'Refused with 409 while placed locations would fall off the new layout.',
        params: SlugParams,
        body: LayoutBody,
        response: responses({ 200: LayoutResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return respondWithWrite(request, reply, {
        work: async (tx) => ({ layout: await saveLayout(tx, tenantId, request.body) }),
        answer: ({ layout }) => ({ body: { success: true as const, data: layout, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/layout',
    { schema: { ...route, operationId: 'getLayout', summary: "The warehouse's layout", params: SlugParams, response: responses({ 200: LayoutResponse }, 404) } },
    async (request) => {
      const layout = await findLayout(db, await tenantIdOf(db, request.params.slug));
      if (!layout) throw notFound('Layout');
      return { success: true as const, data: layout, requestId: request.id };
    },
  );

  app.put(
    '/locations',
    {
      // A large warehouse's whole set of places is several megabytes of JSON.
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        ...route,
        operationId: 'putLocations', summary: "Set the warehouse's locations, with or without a place on the layout (replaces them all)",
        description: 'Places must lie on the stored layout. Concurrent replacements run one after the other.',
        params: SlugParams,
        body: LocationsBody,
        response: responses({ 200: LocationsResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { codes = [], locations = [] } = request.body;
      return respondWithWrite(request, reply, {
        work: async (tx) => ({ locations: await replaceLocations(tx, tenantId, codes, locations) }),
        answer: ({ locations }) => ({ body: { success: true as const, data: locations, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/locations',
    { schema: { ...route, operationId: 'listLocations', summary: "The warehouse's locations", params: SlugParams, response: responses({ 200: LocationsResponse }, 404) } },
    async (request) => ({ success: true as const, data: await listLocations(db, await tenantIdOf(db, request.params.slug)), requestId: request.id }),
  );

  app.post(
    '/routes',
    {
      schema: {
        ...route,
        operationId: 'planRoute', summary: 'The walk from the depot and back through the given locations, or picking the given items from their slots',
        description:
          'Codes unknown or without a place are listed in `unplaced`. With `items`, each product is taken from its slots (a product without ' +
          'slots from its own location, holding its stock); what they cannot cover is `short`. 409 while no layout is stored.',
        params: SlugParams,
        body: RouteBody,
        response: responses({ 200: RouteResponse }, 404, 409),
      },
    },
    async (request) => {
      const deadline = app.planner.deadline();
      const tenantId = await tenantIdOf(db, request.params.slug);
      const data = await planRoute(db, app.planner, tenantId, request.body, deadline);
      return { success: true as const, data, requestId: request.id };
    },
  );

  app.post(
    '/waves',
    {
      preValidation: bodyIsOptional,
      schema: {
        ...route,
        operationId: 'createWave', summary: 'Make a wave: a pick list for a cart of several orders, routed through the warehouse',
        description:
          'Without `orders`, takes the first cart of the plan for the whole pool of PENDING orders without issues (`GET /waves/plan`), ' +
          'within the limits. The orders go PENDING → IN_PICKING. 409 NOTHING_TO_PICK when no order is free.',
        params: SlugParams,
        body: CreateWaveBody,
        response: responses({ 201: WaveResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const deadline = app.planner.deadline();
      const tenantId = await tenantIdOf(db, request.params.slug);
      return withFreshPlan(waveRequest(request.body), { db, planner: app.planner, tenantId, deadline }, (planned) =>
        waveWrite(request, reply, request.params.slug, newWave(tenantId, planned)),
      );
    },
  );

  app.get(
    '/waves',
    {
      preValidation: bodyIsOptional,
      schema: { ...route, operationId: 'listWaves', summary: 'Waves, oldest first', params: SlugParams, querystring: WaveListQuery, response: responses({ 200: WavePage }, 404) },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const { limit = 20, cursor, status } = request.query;
      const page = await listWaves(db, tenantId, { limit, cursor, status });
      return { success: true as const, data: page.waves, pagination: page.pagination, requestId: request.id };
    },
  );

  app.get(
    '/waves/plan',
    {
      schema: {
        ...route,
        operationId: 'getCartPlan', summary: 'The plan of carts for the whole pool of PENDING orders: what the next waves made without `orders` take',
        description:
          'Made from the pool as it stands, with the limits of `POST /waves` (same defaults): its first cart is the wave `POST /waves` ' +
          'without `orders` would make now. 409 while no layout is stored.',
        params: SlugParams,
        querystring: CartPlanQuery,
        response: responses({ 200: CartPlanResponse }, 404, 409),
      },
    },
    async (request) => {
      const deadline = app.planner.deadline();
      const tenantId = await tenantIdOf(db, request.params.slug);
      return { success: true as const, data: await loadCartPlan(db, app.planner, tenantId, cartLimits(request.query), deadline), requestId: request.id };
    },
  );

  app.get(
    '/waves/:id',
    { schema: { ...route, operationId: 'getWave', summary: 'One wave with its stops in walking order', params: WaveParams, response: responses({ 200: WaveResponse }, 404) } },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return { success: true as const, data: await loadWave(db, tenantId, request.params.id), requestId: request.id };
    },
  );

  app.post(
    '/waves/:id/picks',
    {
      schema: {
        ...route,
        operationId: 'recordPick', summary: 'Record the picked quantity of one line (sets it; repeatable)',
        params: WaveParams,
        body: PickBody,
        response: responses({ 200: WaveResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      waveWrite(request, reply, request.params.slug, async (tx, tenantId) => {
        await recordPick(tx, tenantId, request.params.id, request.body);
        return { waveId: request.params.id, events: [] };
      }),
  );

  app.post(
    '/waves/:id/complete',
    {
      schema: {
        ...route,
        operationId: 'completeWave', summary: "Complete the wave: its orders go to PICKED with the recorded quantities, as complete-picking does",
        description: '409 PICKS_MISSING, listing the lines in `details`, while a line has no pick recorded.',
        params: WaveParams,
        response: responses({ 200: WaveResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      waveWrite(request, reply, request.params.slug, async (tx, tenantId) => ({
        waveId: request.params.id,
        events: await completeWave(tx, tenantId, request.params.id),
      })),
  );

  app.post(
    '/waves/:id/release',
    {
      schema: {
        ...route,
        operationId: 'releaseWave', summary: 'Release the wave: its orders not picked yet go back to PENDING',
        params: WaveParams,
        response: responses({ 200: WaveResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      waveWrite(request, reply, request.params.slug, async (tx, tenantId) => ({
        waveId: request.params.id,
        events: await releaseWave(tx, tenantId, request.params.id),
      })),
  );
};
