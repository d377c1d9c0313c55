import type { Selectable } from 'kysely';
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { validationError } from '../http/errors';
import { Success, responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { issueApiKey, listApiKeys, revokeApiKey, rotateApiKey, type ApiKeyRow } from './api-keys';
import { invalidAllowListEntries } from './ip-allow-list';
import type { PermissionSchema } from './permissions';
import { CreateTenantBody, IssueKeyBody, IssuedApiKey, KeyParams, ListedApiKey, SlugParams, Tenant } from './schemas';
import type { TenancyTables } from './tables';
import { createTenant, listTenants } from './tenants';

const adminRoute = { tags: ['operator'], security: [{ adminToken: [] }] };

function keyView(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    permissions: row.permissions as Static<typeof PermissionSchema>[],
    rateLimitPerMinute: row.rate_limit_per_minute,
    dailyLimit: row.daily_limit,
    allowedIps: row.allowed_ips,
    expiresAt: row.expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

function keyStatus(row: ApiKeyRow): 'active' | 'revoked' | 'expired' {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at.getTime() <= Date.now()) return 'expired';
  return 'active';
}

const listedKeyView = (row: ApiKeyRow) => ({ ...keyView(row), revokedAt: row.revoked_at?.toISOString() ?? null, status: keyStatus(row) });

const tenantView = (row: Selectable<TenancyTables['tenants']>) => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at.toISOString(),
});

/**
 * Operator API: tenants and their API keys. A key revoked or rotated here is forgotten by this
 * instance once the write commits and before it answers (`committed`), so the key's next request
 * here is refused; other instances forget it when the key's trigger notifies them at commit.
 */
export const tenancyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.post(
    '/tenants',
    { schema: { ...adminRoute, operationId: 'createTenant', summary: 'Create a tenant', body: CreateTenantBody, response: responses({ 201: Success(Tenant) }, 409) } },
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => createTenant(tx, request.body),
        answer: ({ tenant }) => ({ statusCode: 201, body: { success: true as const, data: tenantView(tenant), requestId: request.id } }),
      }),
  );

  app.get(
    '/tenants',
    { schema: { ...adminRoute, operationId: 'listTenants', summary: 'List tenants', response: responses({ 200: Success(Type.Array(Tenant)) }) } },
    async (request) => ({ success: true as const, data: (await listTenants(db)).map(tenantView), requestId: request.id }),
  );

  app.post(
    '/tenants/:slug/api-keys',
    {
      schema: {
        ...adminRoute,
        operationId: 'issueApiKey', summary: 'Issue an API key; the full key is shown only in this response',
        params: SlugParams,
        body: IssueKeyBody,
        response: responses({ 201: Success(IssuedApiKey) }, 404),
      },
    },
    async (request, reply) => {
      const problems = invalidAllowListEntries(request.body.allowedIps ?? []).map((i) => ({ field: `allowedIps[${i}]`, message: 'must be an IP address or CIDR range' }));
      // A key expired from the start would only ever answer 401.
      if (request.body.expiresAt && Date.parse(request.body.expiresAt) <= Date.now()) problems.push({ field: 'expiresAt', message: 'must be in the future' });
      if (problems.length > 0) throw validationError(problems);
      return respondWithWrite(request, reply, {
        work: (tx) => issueApiKey(tx, request.params.slug, request.body),
        answer: ({ row, key }) => ({ statusCode: 201, body: { success: true as const, data: { ...keyView(row), key }, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/tenants/:slug/api-keys',
    {
      schema: {
        ...adminRoute,
        operationId: 'listApiKeys', summary: "List a tenant's API keys (never the secret part)",
        params: SlugParams,
        response: responses({ 200: Success(Type.Array(ListedApiKey)) }, 404),
      },
    },
    async (request) => ({ success: true as const, data: (await listApiKeys(db, request.params.slug)).map(listedKeyView), requestId: request.id }),
  );

  app.post(
    '/api-keys/:id/revoke',
    {
      schema: {
        ...adminRoute,
        operationId: 'revokeApiKey', summary: 'Revoke an API key; it answers 401 from then on',
        params: KeyParams,
        response: responses({ 200: Success(ListedApiKey) }, 404),
      },
    },
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => revokeApiKey(tx, request.params.id),
        committed: ({ keyHash }) => app.apiKeys.forget(keyHash),
        answer: ({ row }) => ({ body: { success: true as const, data: listedKeyView(row), requestId: request.id } }),
      }),
  );

  app.post(
    '/api-keys/:id/rotate',
    {
      schema: {
        ...adminRoute,
        operationId: 'rotateApiKey', summary: 'Issue a new key with the same tenant, permissions and limits, and deactivate the old one',
        params: KeyParams,
        response: responses({ 201: Success(IssuedApiKey) }, 404, 409),
      },
    },
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => rotateApiKey(tx, request.params.id),
        committed: ({ oldKeyHash }) => app.apiKeys.forget(oldKeyHash),
        answer: ({ row, key }) => ({ statusCode: 201, body: { success: true as const, data: { ...keyView(row), key }, requestId: request.id } }),
      }),
  );
};
