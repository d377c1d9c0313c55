import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_PATTERN, hashApiKey } from '../tenancy/api-keys';
import { isAddressAllowed } from '../tenancy/ip-allow-list';
import type { Permission } from '../tenancy/permissions';
import { ApiError } from './errors';

export interface ApiKeyContext {
  id: string;
  tenantId: string;
  permissions: readonly string[];
  rateLimitPerMinute: number;
  dailyLimit: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a public route needs; routes without one need no key. */
    permission?: Permission;
  }
  interface FastifyRequest {
    /** The caller's key once it is known to be valid (active, unexpired, from an allowed address). */
    apiKey: ApiKeyContext | null;
    /** Why the key was refused; raised by `authorize`, after the rate limiter has counted the request. */
    authFailure: ApiError | null;
  }
}

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/** Whether the route asks for a key at all (health and the OpenAPI document do not). */
export const needsApiKey = (request: FastifyRequest) => request.routeOptions.config.permission !== undefined;

/**
 * Step one of authentication: find out who is calling. Failures are recorded, not thrown, so that
 * the rate limiter can count the request (per key, or per address when no key is valid) first.
 */
async function identify(request: FastifyRequest): Promise<void> {
  if (!needsApiKey(request)) return;
  const header = request.headers.authorization;
  if (!header) {
    request.authFailure = unauthorized('Missing Authorization header; send Authorization: Bearer <API_KEY>');
    return;
  }
  const match = /^Bearer (\S+)$/.exec(header);
  if (!match?.[1] || !API_KEY_PATTERN.test(match[1])) {
    request.authFailure = unauthorized('Malformed Authorization header; expected Bearer pk_live_ followed by 40 characters');
    return;
  }
  const key = await request.server.apiKeys.find(hashApiKey(match[1]));
  if (!key) {
    request.authFailure = unauthorized('Invalid API key');
  } else if (key.revoked_at) {
    request.authFailure = unauthorized('This API key has been revoked');
  } else if (key.expires_at && key.expires_at.getTime() <= Date.now()) {
    request.authFailure = unauthorized('This API key has expired');
  } else if (key.allowed_ips && key.allowed_ips.length > 0 && !isAddressAllowed(request.ip, key.allowed_ips)) {
    request.authFailure = new ApiError('IP_NOT_ALLOWED', `Requests from ${request.ip} are not allowed for this API key`);
  } else {
    request.apiKey = {
      id: key.id,
      tenantId: key.tenant_id,
      permissions: key.permissions,
      rateLimitPerMinute: key.rate_limit_per_minute,
      dailyLimit: key.daily_limit,
    };
  }
}

/** Step two: refuse the request if the key was refused or lacks the route's permission. */
async function authorize(request: FastifyRequest): Promise<void> {
  const permission = request.routeOptions.config.permission;
  if (!permission) return;
  if (request.authFailure) throw request.authFailure;
  if (!request.apiKey?.permissions.includes(permission)) {
    throw new ApiError('FORBIDDEN', `This API key lacks the ${permission} permission`);
  }
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
