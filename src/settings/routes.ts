import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { SlugParams } from '../floor/schemas';
import { tenantIdOf } from '../tenancy/tenants';
import { SettingsBody, SettingsResponse } from './schemas';
import { changeSettings, readSettings } from './store';

const route = { tags: ['warehouse'], security: [{ adminToken: [] }] };

/** The warehouse's console settings (docs/console.md), under the warehouse API's prefix and admin token. */
export const settingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/settings',
    { schema: { ...route, operationId: 'getSettings', summary: "How the warehouse's console works", params: SlugParams, response: responses({ 200: SettingsResponse }, 404) } },
    async (request) => ({ success: true as const, data: await readSettings(db, await tenantIdOf(db, request.params.slug)), requestId: request.id }),
  );

  app.put(
    '/settings',
    {
      schema: {
        ...route,
        operationId: 'putSettings', summary: "Change how the warehouse's console works; answers every setting",
        params: SlugParams,
        body: SettingsBody,
        response: responses({ 200: SettingsResponse }, 404),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      return respondWithWrite(request, reply, {
        work: (tx) => changeSettings(tx, tenantId, request.body),
        answer: ({ settings }) => ({ body: { success: true as const, data: settings, requestId: request.id } }),
      });
    },
  );
};
