import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SlugParams } from '../floor/schemas';
import { responses } from '../http/schemas';
import { tenantIdOf } from '../tenancy/tenants';
import { checkedPeriod } from '../http/period';
import { loadCharts, loadHeatMap, MAX_PERIOD_DAYS } from './insight';
import { ChartsQuery, ChartsResponse, HeatMapQuery, HeatMapResponse } from './schemas';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** The supervisor's insight over a period (docs/floor.md): the heat map of picks and the charts. Under the warehouse API's prefix and admin token. */
export const insightRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/insight/heat-map',
    {
      schema: {
        ...route,
        operationId: 'getPickHeatMap', summary: 'Picks and units per placed location over a period (at most 92 days)',
        params: SlugParams,
        querystring: HeatMapQuery,
        response: responses({ 200: HeatMapResponse }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const period = checkedPeriod(request.query, MAX_PERIOD_DAYS.heatMap);
      return { success: true as const, data: await loadHeatMap(db, tenantId, period), requestId: request.id };
    },
  );

  app.get(
    '/insight/charts',
    {
      schema: {
        ...route,
        operationId: 'getInsightCharts', summary: 'Orders received, picked, packed and dispatched, picking rates, walking and short picks per hour or day',
        description: 'Hour buckets cover at most 7 days, day buckets at most 92.',
        params: SlugParams,
        querystring: ChartsQuery,
        response: responses({ 200: ChartsResponse }, 404),
      },
    },
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const period = checkedPeriod(request.query, MAX_PERIOD_DAYS[request.query.bucket]);
      return { success: true as const, data: await loadCharts(db, tenantId, period, request.query.bucket), requestId: request.id };
    },
  );
};
