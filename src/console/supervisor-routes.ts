import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { loadCartPlan } from '../floor/pool';
import { assignWave, cartLimits, newWave, releaseWave, waveRequest, withFreshPlan } from '../floor/wave-commands';
import { recentWaves } from '../floor/wave-reads';
import { expiringLotsAnswer } from '../floor/lot-routes';
import { CartPlanQuery, CartPlanResponse, CreateWaveBody, ExpiringLotPage, ExpiringLotsQuery, SlottingProposalBody, SlottingProposalResponse } from '../floor/schemas';
import { respondWithAppliedProposal, respondWithNewProposal } from '../floor/slotting-routes';
import { bodyIsOptional, responses } from '../http/schemas';
import { StockBody } from '../warehouse/schemas';
import { adjustStock, stockChange } from '../warehouse/stock';
import { consoleRoute, SUPERVISING } from './auth';
import { productByRef } from './product-ref';
import { loadBoard, loadFloor } from './supervisor-view';
import { asPickerWaves, loadPickerWave, waveWrite } from './picker-view';
import { respondWithWrite } from '../http/write';
import { SettingsBody, SettingsResponse } from '../settings/schemas';
import { changeSettings } from '../settings/store';
import {
  AssignWaveBody,
  BoardResponse,
  ConsoleStockResponse,
  FloorResponse,
  PickerWaveList,
  PickerWaveResponse,
  ProductRefParams,
  SlottingProposalIdParams,
  WaveIdParams,
  WaveStatusQuery,
} from './schemas';

/** How many waves GET /waves lists, newest first. */
const WAVE_LIST_LIMIT = 50;

const config = { roles: SUPERVISING };

/** The supervisor's desk: the board, waves, stock corrections and the plan (supervisors only). */
export const supervisorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/board',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'getBoard', summary: 'Orders by status, orders with issues, waves in progress, failing webhooks, dead letters and slots that disagree with stock',
        response: responses({ 200: BoardResponse }),
      },
    },
    async (request) => ({ success: true as const, data: await loadBoard(db, request.staff.tenantId), requestId: request.id }),
  );

  app.get(
    '/waves',
    {
      config,
      schema: { ...consoleRoute, operationId: 'listRecentWaves', summary: 'The latest 50 waves, newest first', querystring: WaveStatusQuery, response: responses({ 200: PickerWaveList }) },
    },
    async (request) => {
      const { tenantId } = request.staff;
      const waves = await recentWaves(db, tenantId, { limit: WAVE_LIST_LIMIT, status: request.query.status });
      return { success: true as const, data: await asPickerWaves(db, tenantId, waves), requestId: request.id };
    },
  );

  app.get(
    '/waves/plan',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'getConsoleCartPlan', summary: 'The plan of carts for the whole pool, as GET /waves/plan of the warehouse API answers it',
        querystring: CartPlanQuery,
        response: responses({ 200: CartPlanResponse }, 409),
      },
    },
    async (request) => ({ success: true as const, data: await loadCartPlan(db, app.planner, request.staff.tenantId, cartLimits(request.query), app.planner.deadline()), requestId: request.id }),
  );

  app.get(
    '/waves/:id',
    {
      config,
      schema: { ...consoleRoute, operationId: 'getConsoleWave', summary: 'One wave, with its stops in walking order (its printed pick list)', params: WaveIdParams, response: responses({ 200: PickerWaveResponse }, 404) },
    },
    async (request) => ({ success: true as const, data: await loadPickerWave(db, request.staff.tenantId, request.params.id), requestId: request.id }),
  );

  app.post(
    '/waves',
    {
      config,
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'createUnassignedWave', summary: 'Make a wave not assigned to anyone, as POST /waves of the warehouse API does',
        body: CreateWaveBody,
        response: responses({ 201: PickerWaveResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const deadline = app.planner.deadline();
      const { tenantId } = request.staff;
      return withFreshPlan(waveRequest(request.body), { db, planner: app.planner, tenantId, deadline }, (planned) => waveWrite(request, reply, newWave(tenantId, planned)));
    },
  );

  app.post(
    '/waves/:id/release',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'releaseStuckWave', summary: 'Release a wave: its orders not picked yet go back to PENDING',
        params: WaveIdParams,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request, reply) => waveWrite(request, reply, async (tx, tenantId) => ({ waveId: request.params.id, events: await releaseWave(tx, tenantId, request.params.id) })),
  );

  app.post(
    '/waves/:id/assign',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'assignWave', summary: 'Give a PICKING wave to a picker: it is what their Start picking opens',
        description: '404 for an unknown wave or a user who is not an active picker or supervisor; 409 while they have another PICKING wave.',
        params: WaveIdParams,
        body: AssignWaveBody,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request, reply) => waveWrite(request, reply, (tx, tenantId) => assignWave(tx, tenantId, request.params.id, request.body.pickerId)),
  );

  app.post(
    '/products/:ref/stock',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'correctStock', summary: "Set ({stock}) or adjust ({delta}) a product's stock, as the warehouse API does",
        description: 'The product is named by what a supervisor reads or scans on it: its externalId, its sku or its barcode. 404 when no product has the code; 409 when several products share it (a barcode), or when the change would take the stock below 0.',
        params: ProductRefParams,
        body: StockBody,
        response: responses({ 200: ConsoleStockResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const change = stockChange(request.body);
      const { tenantId } = request.staff;
      return respondWithWrite(request, reply, {
        tenantId,
        work: async (tx) => adjustStock(tx, tenantId, await productByRef(tx, tenantId, request.params.ref), change),
        answer: ({ adjustment: { externalId, sku, name, stock } }) => ({ body: { success: true as const, data: { externalId, sku, name, stock }, requestId: request.id } }),
      });
    },
  );

  app.put(
    '/settings',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'changeConsoleSettings', summary: "Change how the warehouse's console works, as PUT /settings of the warehouse API does",
        body: SettingsBody,
        response: responses({ 200: SettingsResponse }),
      },
    },
    async (request, reply) => {
      const { tenantId } = request.staff;
      return respondWithWrite(request, reply, {
        work: (tx) => changeSettings(tx, tenantId, request.body),
        answer: ({ settings }) => ({ body: { success: true as const, data: settings, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/lots',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'listConsoleExpiringLots', summary: 'The lots at the slots that expire within a period, soonest first (expired ones included), as GET /lots of the warehouse API answers it',
        querystring: ExpiringLotsQuery,
        response: responses({ 200: ExpiringLotPage }),
      },
    },
    async (request) => expiringLotsAnswer(db, request.staff.tenantId, request.query, request.id),
  );

  app.get(
    '/floor',
    {
      config,
      schema: { ...consoleRoute, operationId: 'getFloorPlan', summary: 'The layout, the placed locations and each PICKING wave drawn as a route over them', response: responses({ 200: FloorResponse }) },
    },
    async (request) => ({ success: true as const, data: await loadFloor(db, request.staff.tenantId), requestId: request.id }),
  );
  app.post(
    '/slotting/proposals',
    {
      config,
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'createConsoleSlottingProposal', summary: 'Propose moves of products, as POST /slotting/proposals of the warehouse API does',
        body: SlottingProposalBody,
        response: responses({ 201: SlottingProposalResponse }, 409),
      },
    },
    async (request, reply) => respondWithNewProposal(request, reply, request.staff.tenantId, request.body),
  );

  app.post(
    '/slotting/proposals/:id/apply',
    {
      config,
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'applyConsoleSlottingProposal', summary: "Move a proposal's products, as POST /slotting/proposals/{id}/apply of the warehouse API does",
        params: SlottingProposalIdParams,
        response: responses({ 200: SlottingProposalResponse }, 404),
      },
    },
    async (request, reply) => respondWithAppliedProposal(request, reply, request.staff.tenantId, request.params.id),
  );
};
