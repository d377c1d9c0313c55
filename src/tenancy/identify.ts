import type { ApiKeyContext, IdentifyApiKey } from '../http/auth';
import { ApiError } from '../http/errors';
import { API_KEY_PATTERN, hashApiKey } from './api-keys';
import { isAddressAllowed } from './ip-allow-list';
import type { ApiKeyCache } from './key-cache';

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/**
 * Identifies the caller of the public API by its API key (`Authorization: Bearer pk_live_...`),
 * looked up by hash through the cache: the key if it is active, unexpired and used from an allowed
 * address, otherwise the 401 or 403 that refuses it.
 */
export function apiKeyIdentifier(apiKeys: ApiKeyCache): IdentifyApiKey {
  return async (request): Promise<ApiKeyContext | ApiError> => {
    const header = request.headers.authorization;
    if (!header) return unauthorized('Missing Authorization header; send Authorization: Bearer <API_KEY>');
    const match = /^Bearer (\S+)$/.exec(header);
    if (!match?.[1] || !API_KEY_PATTERN.test(match[1])) {
      return unauthorized('Malformed Authorization header; expected Bearer pk_live_ followed by 40 characters');
    }
    const key = await apiKeys.find(hashApiKey(match[1]));
    if (!key) return unauthorized('Invalid API key');
    if (key.revoked_at) return unauthorized('This API key has been revoked');
    if (key.expires_at && key.expires_at.getTime() <= Date.now()) return unauthorized('This API key has expired');
    if (key.allowed_ips && key.allowed_ips.length > 0 && !isAddressAllowed(request.ip, key.allowed_ips)) {
      return new ApiError('IP_NOT_ALLOWED', `Requests from ${request.ip} are not allowed for this API key`);
    }
    return {
      id: key.id,
      tenantId: key.tenant_id,
      permissions: key.permissions,
      rateLimitPerMinute: key.rate_limit_per_minute,
      dailyLimit: key.daily_limit,
    };
  };
}
