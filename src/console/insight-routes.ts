import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { responses } from '../http/schemas';
import { checkedPeriod } from '../http/period';
import { loadCharts, loadHeatMap, MAX_PERIOD_DAYS } from '../insight/insight';
import { ChartsQuery, ChartsResponse, HeatMapQuery, HeatMapResponse } from '../insight/schemas';
import { consoleRoute, SUPERVISING } from './auth';

const config = { roles: SUPERVISING };

/** The Insight screen (supervisors only): the same reads as the warehouse API's /insight, for the signed-in warehouse. */
export const insightRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/insight/heat-map',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'getConsolePickHeatMap', summary: 'Picks per placed location over a period, as GET /insight/heat-map of the warehouse API answers it',
        querystring: HeatMapQuery,
        response: responses({ 200: HeatMapResponse }),
      },
    },
    async (request) => {
      const period = checkedPeriod(request.query, MAX_PERIOD_DAYS.heatMap);
      return { success: true as const, data: await loadHeatMap(db, request.staff.tenantId, period), requestId: request.id };
    },
  );

  app.get(
    '/insight/charts',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'getConsoleInsightCharts', summary: 'The charts of a period, as GET /insight/charts of the warehouse API answers them',
        querystring: ChartsQuery,
        response: responses({ 200: ChartsResponse }),
      },
    },
    async (request) => {
      const period = checkedPeriod(request.query, MAX_PERIOD_DAYS[request.query.bucket]);
      return { success: true as const, data: await loadCharts(db, request.staff.tenantId, period, request.query.bucket), requestId: request.id };
    },
  );
};
