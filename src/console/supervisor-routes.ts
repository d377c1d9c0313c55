import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createWave, releaseWave, waveRequest } from '../floor/wave-commands';
import { recentWaves } from '../floor/wave-reads';
import { findLayout } from '../floor/layout-store';
import { CreateWaveBody } from '../floor/schemas';
import { bodyIsOptional, responses } from '../http/schemas';
import { StockBody } from '../warehouse/schemas';
import { adjustStock, stockChange } from '../warehouse/stock';
import { consoleRoute, SUPERVISING } from './auth';
import { loadBoard, loadFloor } from './supervisor-view';
import { waveWrite, withProgress } from './picker-view';
import { respondWithWrite } from '../http/write';
import {
  BoardResponse,
  ConsoleStockResponse,
  FloorResponse,
  PickerWaveList,
  PickerWaveResponse,
  ProductParams,
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
        operationId: 'getBoard', summary: 'Orders by status, orders with issues, waves in progress, failing webhooks and dead letters',
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
      const [layout, waves] = await Promise.all([findLayout(db, tenantId), recentWaves(db, tenantId, { limit: WAVE_LIST_LIMIT, status: request.query.status })]);
      return { success: true as const, data: waves.map((wave) => withProgress(layout, wave)), requestId: request.id };
    },
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
    async (request, reply) => waveWrite(request, reply, async (tx, tenantId) => ({ ...(await createWave(tx, tenantId, waveRequest(request.body))), created: true })),
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
    '/products/:externalId/stock',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'correctStock', summary: "Set ({stock}) or adjust ({delta}) a product's stock, as the warehouse API does",
        params: ProductParams,
        body: StockBody,
        response: responses({ 200: ConsoleStockResponse }, 404, 409),
      },
    },
    async (request, reply) => {
      const change = stockChange(request.body);
      const { tenantId } = request.staff;
      return respondWithWrite(request, reply, {
        tenantId,
        work: (tx) => adjustStock(tx, tenantId, request.params.externalId, change),
        answer: ({ adjustment: { externalId, sku, name, stock } }) => ({ body: { success: true as const, data: { externalId, sku, name, stock }, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/floor',
    {
      config,
      schema: { ...consoleRoute, operationId: 'getFloorPlan', summary: 'The layout, the placed locations and each PICKING wave drawn as a route over them', response: responses({ 200: FloorResponse }) },
    },
    async (request) => ({ success: true as const, data: await loadFloor(db, request.staff.tenantId), requestId: request.id }),
  );
};
