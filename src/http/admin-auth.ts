import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Guards a scope (operator and warehouse APIs) with `Authorization: Bearer <ADMIN_TOKEN>`. */
export function installAdminAuth(scope: FastifyInstance): void {
  const expected = digest(scope.config.adminToken);
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    // Comparing digests keeps the comparison constant-time whatever the token's length.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      throw new ApiError('UNAUTHORIZED', 'This API needs Authorization: Bearer <ADMIN_TOKEN>');
    }
  });
}
