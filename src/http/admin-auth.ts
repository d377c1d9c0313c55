import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A token in the right form that is not this service's: where to find the right one (never what it is). */
const UNRECOGNISED_TOKEN =
  'The admin token is not recognised: send the ADMIN_TOKEN the service was started with or, when it generated ' +
  'its own, the token stored in PICKPORT_DATA_DIR/admin-token (data/admin-token by default)';

/** Guards a scope (operator and warehouse APIs) with `Authorization: Bearer <ADMIN_TOKEN>`. */
export function installAdminAuth(scope: FastifyInstance): void {
  const expected = digest(scope.config.adminToken);
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    if (!match?.[1]) throw new ApiError('UNAUTHORIZED', 'This API needs Authorization: Bearer <ADMIN_TOKEN>');
    // Comparing digests keeps the comparison constant-time whatever the token's length.
    if (!timingSafeEqual(digest(match[1]), expected)) throw new ApiError('UNAUTHORIZED', UNRECOGNISED_TOKEN);
  });
}
