import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import type { Clock } from '../http/rate-limit';
import { SESSION_MAX_MS, sessionOf, type Session } from '../staff/sessions';
import type { StaffRole } from '../staff/tables';

export const SESSION_COOKIE = 'pickport_session';
const COOKIE_PATH = '/console';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console user's session; set on every console route but sign-in. */
    staff: Session;
  }
  interface FastifyContextConfig {
    /** Console roles allowed on the route; unset: any signed-in user. */
    roles?: readonly StaffRole[];
    /** The sign-in route: no session needed yet. */
    signIn?: boolean;
  }
}

/** Every console operation in the OpenAPI document: the console tag and its session cookie. */
export const consoleRoute = { tags: ['console'], security: [{ consoleSession: [] }] };

export const PICKING: readonly StaffRole[] = ['picker', 'supervisor'];
export const PACKING: readonly StaffRole[] = ['packer', 'supervisor'];
export const SUPERVISING: readonly StaffRole[] = ['supervisor'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The service's own origin as the browser sees it (TRUST_PROXY makes X-Forwarded-Proto and -Host count). */
function ownOrigin(request: FastifyRequest): string | undefined {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return undefined;
  }
}

/** Whether the request's Origin header names the service itself (a cross-site form or script cannot forge it). */
function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).origin === ownOrigin(request);
  } catch {
    return false;
  }
}

/**
 * Guards the console's API: a state-changing request must come from the console's own origin (403
 * otherwise, before anything else), every route but sign-in needs a live session (401) and a role
 * the route allows (403).
 */
export async function installConsoleAuth(scope: FastifyInstance, clock: Clock): Promise<void> {
  await scope.register(cookie);
  scope.decorateRequest('staff', null as unknown as Session);
  scope.addHook('onRequest', async (request) => {
    if (!SAFE_METHODS.has(request.method) && !sameOrigin(request)) {
      throw new ApiError('FORBIDDEN', "A console request that changes something must carry the console's own Origin");
    }
    const config = request.routeOptions.config;
    if (config.signIn) return;
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await sessionOf(scope.db, token, clock()) : undefined;
    if (!session) throw new ApiError('UNAUTHORIZED', 'Sign in to the console first (no session, or it ended)');
    if (config.roles && !config.roles.includes(session.user.role)) {
      throw new ApiError('FORBIDDEN', `A ${session.user.role} cannot use this part of the console`);
    }
    request.staff = session;
  });
}

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, { path: COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure, maxAge: SESSION_MAX_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure });
}
