import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../http/rate-limit';
import { responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { SettingsResponse } from '../settings/schemas';
import { readSettings } from '../settings/store';
import { endSession, startSession, verifySignIn } from '../staff/sessions';
import { clearSessionCookie, consoleRoute, installConsoleAuth, setSessionCookie } from './auth';
import { countingRoutes } from './count-routes';
import { insightRoutes } from './insight-routes';
import { packingRoutes } from './packer-routes';
import { pickingRoutes } from './picker-routes';
import { replenishRoutes } from './replenish-routes';
import { MeResponse, SignedOutResponse, SignInBody } from './schemas';
import { supervisorRoutes } from './supervisor-routes';

export const CONSOLE_API_PREFIX = '/console/api';

/**
 * The console's API (docs/console.md): sessions, and the picking, replenishing, counting, packing and supervising screens.
 * Each route checks its input, calls the same domain functions as the warehouse API and shapes the
 * answer; the Origin, the session and the role are checked by auth.ts before it runs.
 */
export const consoleRoutes =
  (clock: Clock): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = app.db;
    await installConsoleAuth(app, clock);
    const secure = app.config.cookieSecure;

    app.post(
      '/session',
      {
        config: { signIn: true },
        schema: {
          ...consoleRoute,
          security: [],
          operationId: 'signIn', summary: 'Sign in with warehouse, username and PIN; sets the session cookie',
          description: 'Wrong warehouse, user or PIN and a disabled user all answer the same 401. Too many failures answer 429 with Retry-After.',
          body: SignInBody,
          response: responses({ 200: MeResponse }),
        },
      },
      async (request, reply) => {
        const now = clock();
        const verified = await verifySignIn(db, { ...request.body, address: request.ip }, now);
        return respondWithWrite(request, reply, {
          work: (tx) => startSession(tx, verified, now),
          // The cookie names a session that exists: set once the session has committed.
          committed: ({ token }) => setSessionCookie(reply, token, secure),
          answer: ({ session: { user, warehouse } }) => ({ body: { success: true as const, data: { user, warehouse }, requestId: request.id } }),
        });
      },
    );

    app.get(
      '/session',
      { schema: { ...consoleRoute, operationId: 'getSession', summary: 'Who is signed in', response: responses({ 200: MeResponse }) } },
      async (request) => ({ success: true as const, data: { user: request.staff.user, warehouse: request.staff.warehouse }, requestId: request.id }),
    );

    app.delete(
      '/session',
      { schema: { ...consoleRoute, operationId: 'signOut', summary: 'Sign out: the session ends and the cookie is cleared', response: responses({ 200: SignedOutResponse }) } },
      async (request, reply) =>
        respondWithWrite(request, reply, {
          work: async (tx) => {
            await endSession(tx, request.staff.tokenHash);
            return {};
          },
          committed: () => clearSessionCookie(reply, secure),
          answer: () => ({ body: { success: true as const, data: { signedOut: true as const }, requestId: request.id } }),
        }),
    );

    app.get(
      '/settings',
      { schema: { ...consoleRoute, operationId: 'getConsoleSettings', summary: "How the warehouse's console works (every role reads them)", response: responses({ 200: SettingsResponse }) } },
      async (request) => ({ success: true as const, data: await readSettings(db, request.staff.tenantId), requestId: request.id }),
    );

    await app.register(pickingRoutes);
    await app.register(replenishRoutes);
    await app.register(countingRoutes);
    await app.register(packingRoutes);
    await app.register(supervisorRoutes);
    await app.register(insightRoutes);
  };
