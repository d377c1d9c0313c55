import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Executor, Tx } from '../db';
import { inTransaction } from '../db/transaction';
import { emit } from '../events/outbox';
import type { DomainEvent } from '../events/types';
import { completeWave, pickerWaveId, recordPick, startPickerWave } from '../floor/waves';
import { notFound } from '../http/errors';
import type { Clock } from '../http/rate-limit';
import { responses } from '../http/schemas';
import { endSession, signIn } from '../staff/sessions';
import { bodyIsOptional } from '../warehouse/routes';
import { clearSessionCookie, installConsoleAuth, PICKING, setSessionCookie } from './auth';
import { loadPickerWave } from './picker-waves';
import { ConsolePickBody, EmptyBody, MaybePickerWaveResponse, MeResponse, PickerWaveResponse, SignedOutResponse, SignInBody } from './schemas';

export const CONSOLE_API_PREFIX = '/console/api';

/** Every console operation in the OpenAPI document: the console tag and its session cookie. */
export const consoleRoute = { tags: ['console'], security: [{ consoleSession: [] }] };

/** The caller's PICKING wave; 404 when they have none. */
export async function ownWaveId(db: Executor, request: FastifyRequest): Promise<string> {
  const waveId = await pickerWaveId(db, request.staff.tenantId, request.staff.user.id);
  if (!waveId) throw notFound('Your PICKING wave (start picking first)');
  return waveId;
}

/**
 * The console's API (docs/console.md): sessions, and the picking, packing and supervising screens.
 * Each route checks its input, calls the same domain functions as the warehouse API and shapes the
 * answer; the roles and the session are checked by auth.ts before it runs.
 */
export const consoleRoutes = (clock: Clock): FastifyPluginAsyncTypebox => async (app) => {
  const db = app.db;
  await installConsoleAuth(app, clock);
  const secure = app.config.cookieSecure;

  /** Runs one wave write with its events and answers the wave as the console shows it. */
  async function waveWrite(request: FastifyRequest, work: (tx: Tx, tenantId: string) => Promise<{ waveId: string; events: DomainEvent[] }>) {
    const { tenantId } = request.staff;
    const { waveId } = await inTransaction(db, async (tx) => {
      const done = await work(tx, tenantId);
      await emit(tx, tenantId, done.events);
      return done;
    });
    return { success: true as const, data: await loadPickerWave(db, tenantId, waveId), requestId: request.id };
  }

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
      const { token, session } = await signIn(db, { ...request.body, address: request.ip }, clock());
      setSessionCookie(reply, token, secure);
      return { success: true as const, data: { user: session.user, warehouse: session.warehouse }, requestId: request.id };
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
    async (request, reply) => {
      await endSession(db, request.staff.tokenHash);
      clearSessionCookie(reply, secure);
      return { success: true as const, data: { signedOut: true as const }, requestId: request.id };
    },
  );

  app.get(
    '/picking/wave',
    {
      config: { roles: PICKING },
      schema: { ...consoleRoute, operationId: 'getMyWave', summary: "The caller's PICKING wave, or null", response: responses({ 200: MaybePickerWaveResponse }) },
    },
    async (request) => {
      const waveId = await pickerWaveId(db, request.staff.tenantId, request.staff.user.id);
      return { success: true as const, data: waveId ? await loadPickerWave(db, request.staff.tenantId, waveId) : null, requestId: request.id };
    },
  );

  app.post(
    '/picking/wave',
    {
      config: { roles: PICKING },
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'startMyWave', summary: 'Start picking: a new wave the service chooses, or the one the caller already has',
        description: '201 with a new wave (chosen as POST /waves does without `orders`); 200 with the wave the caller is already picking. 409 NOTHING_TO_PICK when no order is free.',
        body: EmptyBody,
        response: responses({ 200: PickerWaveResponse, 201: PickerWaveResponse }, 409),
      },
    },
    async (request, reply) => {
      let created = false;
      const answer = await waveWrite(request, async (tx, tenantId) => {
        const started = await startPickerWave(tx, tenantId, request.staff.user.id, { maxOrders: 8, maxItems: 40, policy: 'optimal' });
        created = started.created;
        return started;
      });
      return reply.status(created ? 201 : 200).send(answer);
    },
  );

  app.post(
    '/picking/wave/picks',
    {
      config: { roles: PICKING },
      schema: {
        ...consoleRoute,
        operationId: 'recordMyPick', summary: "Record the picked quantity of a line of the caller's wave (sets it; a replay changes nothing)",
        description: 'A short pick (less than ordered) needs a `reason`. 404 when the caller has no PICKING wave.',
        body: ConsolePickBody,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request) =>
      waveWrite(request, async (tx, tenantId) => {
        const waveId = await ownWaveId(tx, request);
        await recordPick(tx, tenantId, waveId, request.body, { shortNeedsReason: true });
        return { waveId, events: [] };
      }),
  );

  app.post(
    '/picking/wave/complete',
    {
      config: { roles: PICKING },
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'completeMyWave', summary: "Finish the caller's wave: its orders go to PICKED with the recorded quantities",
        description: '409 PICKS_MISSING, listing the lines, while a line has no pick recorded.',
        body: EmptyBody,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request) =>
      waveWrite(request, async (tx, tenantId) => {
        const waveId = await ownWaveId(tx, request);
        return { waveId, events: await completeWave(tx, tenantId, waveId) };
      }),
  );
};
