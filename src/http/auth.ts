import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from './errors';

/*
 * API key authentication on the public API, as the HTTP core sees it: a route names the permission
 * it needs, something identifies the caller, and the core refuses what must be refused. How keys
 * look, where they are kept and which addresses may use them belong to the feature that issues
 * them, which provides `identifyApiKey`; the app wires it.
 */

export interface ApiKeyContext {
  id: string;
  tenantId: string;
  permissions: readonly string[];
  rateLimitPerMinute: number;
  dailyLimit: number;
}

/**
 * The permissions a route may ask for, as the keys of this interface. The core lists none: the
 * feature that issues keys adds its own (declaration merging), so that a route naming an unknown
 * permission does not compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RoutePermissions {}
export type RoutePermission = keyof RoutePermissions & string;

/** Who sends this request: the caller's valid key, or the error that refuses it (401, 403). */
export type IdentifyApiKey = (request: FastifyRequest) => Promise<ApiKeyContext | ApiError>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Identifies the caller of a route that needs a key; provided by the app. */
    identifyApiKey: IdentifyApiKey;
  }
  interface FastifyContextConfig {
    /** The permission a public route needs; routes without one need no key. */
    permission?: RoutePermission;
  }
  interface FastifyRequest {
    /** The caller's key once it is known to be valid (active, unexpired, from an allowed address). */
    apiKey: ApiKeyContext | null;
    /** Why the key was refused; raised by `authorize`, after the rate limiter has counted the request. */
    authFailure: ApiError | null;
  }
}

/** Whether the route asks for a key at all (health and the OpenAPI document do not). */
export const needsApiKey = (request: FastifyRequest) => request.routeOptions.config.permission !== undefined;

/**
 * Step one of authentication: find out who is calling. Failures are recorded, not thrown, so that
 * the rate limiter can count the request (per key, or per address when no key is valid) first.
 */
async function identify(request: FastifyRequest): Promise<void> {
  if (!needsApiKey(request)) return;
  const identified = await request.server.identifyApiKey(request);
  if (identified instanceof ApiError) request.authFailure = identified;
  else request.apiKey = identified;
}

/** Step two: refuse the request if the key was refused or lacks the route's permission. */
function authorize(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(refusalOf(request));
}

function refusalOf(request: FastifyRequest): ApiError | undefined {
  const permission = request.routeOptions.config.permission;
  if (!permission) return undefined;
  if (request.authFailure) return request.authFailure;
  if (!request.apiKey?.permissions.includes(permission)) return new ApiError('FORBIDDEN', `This API key lacks the ${permission} permission`);
  return undefined;
}

/**
 * Installs key authentication on the public API scope. `between` runs after the caller is
 * identified and before anything is refused: that is where rate limiting belongs.
 */
export function installApiKeyAuth(scope: FastifyInstance, between: (scope: FastifyInstance) => void = () => {}): void {
  scope.decorateRequest('apiKey', null);
  scope.decorateRequest('authFailure', null);
  scope.addHook('onRequest', identify);
  between(scope);
  scope.addHook('onRequest', authorize);
}

/** The tenant of the authenticated caller; only for routes that declare a permission. */
export function tenantOf(request: FastifyRequest): string {
  if (!request.apiKey) throw new Error('tenantOf called on a route without an authenticated key');
  return request.apiKey.tenantId;
}
