import { sql, type Selectable } from 'kysely';
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { conflict, notFound, validationError } from '../http/errors';
import { IsoDateTime, Success, responses } from '../http/schemas';
import { generateApiKey, hashApiKey, shownPrefix } from './api-keys';
import { invalidAllowListEntries } from './ip-allow-list';
import { PermissionSchema } from './permissions';
import { tenantIdOf } from './tenants';
import type { TenancyTables } from './tables';

const Tenant = Type.Object({
  id: Type.String({ format: 'uuid' }),
  slug: Type.String(),
  name: Type.String(),
  createdAt: IsoDateTime,
});

const ApiKeyBase = {
  id: Type.String({ format: 'uuid' }),
  name: Type.Union([Type.String(), Type.Null()]),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  permissions: Type.Array(PermissionSchema),
  rateLimitPerMinute: Type.Integer(),
  dailyLimit: Type.Integer(),
  allowedIps: Type.Union([Type.Array(Type.String()), Type.Null()]),
  expiresAt: Type.Union([IsoDateTime, Type.Null()]),
  createdAt: IsoDateTime,
};
const IssuedApiKey = Type.Object({ ...ApiKeyBase, key: Type.String({ description: 'Shown only in this response' }) });
const ListedApiKey = Type.Object({
  ...ApiKeyBase,
  revokedAt: Type.Union([IsoDateTime, Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
});

const CreateTenantBody = Type.Object({
  slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$', description: 'lowercase letters, digits and hyphens' }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
});

const IssueKeyBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255 })),
  permissions: Type.Array(PermissionSchema, { minItems: 1, uniqueItems: true }),
  rateLimitPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  dailyLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
  allowedIps: Type.Optional(Type.Array(Type.String({ description: 'IPv4/IPv6 address or CIDR range' }), { maxItems: 100 })),
  expiresAt: Type.Optional(IsoDateTime),
});

const SlugParams = Type.Object({ slug: Type.String({ maxLength: 63 }) });
const KeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

const adminRoute = { tags: ['operator'], security: [{ adminToken: [] }] };

const KEY_COLUMNS = [
  'id',
  'name',
  'prefix',
  'permissions',
  'rate_limit_per_minute',
  'daily_limit',
  'allowed_ips',
  'expires_at',
  'revoked_at',
  'created_at',
] as const;

type ApiKeyRow = Pick<Selectable<TenancyTables['api_keys']>, (typeof KEY_COLUMNS)[number]>;

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

const tenantView = (row: Selectable<TenancyTables['tenants']>) => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at.toISOString(),
});

/** Operator API: tenants and their API keys (DESIGN.md §2). */
export const tenancyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.post(
    '/tenants',
    { schema: { ...adminRoute, operationId: 'createTenant', summary: 'Create a tenant', body: CreateTenantBody, response: responses({ 201: Success(Tenant) }, 409) } },
    async (request, reply) => {
      const { slug, name } = request.body;
      // Only the two fields: unknown ones are ignored, and id and created_at are the service's.
      const tenant = await db
        .insertInto('tenants')
        .values({ slug, name })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!tenant) throw conflict(`Tenant slug ${slug} is taken`);
      return reply.status(201).send({ success: true, data: tenantView(tenant), requestId: request.id });
    },
  );

  app.get(
    '/tenants',
    { schema: { ...adminRoute, operationId: 'listTenants', summary: 'List tenants', response: responses({ 200: Success(Type.Array(Tenant)) }) } },
    async (request) => {
      const tenants = await db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id').execute();
      return { success: true as const, data: tenants.map(tenantView), requestId: request.id };
    },
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
      const { body } = request;
      const badIps = invalidAllowListEntries(body.allowedIps ?? []);
      if (badIps.length > 0) {
        throw validationError(badIps.map((i) => ({ field: `allowedIps[${i}]`, message: 'must be an IP address or CIDR range' })));
      }
      const tenantId = await tenantIdOf(db, request.params.slug);
      const key = generateApiKey();
      const row = await db
        .insertInto('api_keys')
        .values({
          tenant_id: tenantId,
          name: body.name ?? null,
          key_hash: hashApiKey(key),
          prefix: shownPrefix(key),
          permissions: body.permissions,
          rate_limit_per_minute: body.rateLimitPerMinute ?? 60,
          daily_limit: body.dailyLimit ?? 10_000,
          allowed_ips: body.allowedIps?.length ? body.allowedIps : null,
          expires_at: body.expiresAt ? new Date(body.expiresAt) : null,
        })
        .returning(KEY_COLUMNS)
        .executeTakeFirstOrThrow();
      return reply.status(201).send({ success: true, data: { ...keyView(row), key }, requestId: request.id });
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
    async (request) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const rows = await db
        .selectFrom('api_keys')
        .select(KEY_COLUMNS)
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const data = rows.map((row) => ({ ...keyView(row), revokedAt: row.revoked_at?.toISOString() ?? null, status: keyStatus(row) }));
      return { success: true as const, data, requestId: request.id };
    },
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
    async (request) => {
      const row = await db
        .updateTable('api_keys')
        .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
        .where('id', '=', request.params.id)
        .returning([...KEY_COLUMNS, 'key_hash'])
        .executeTakeFirst();
      if (!row) throw notFound('API key');
      // Other instances hear of it through the key's trigger; this one forgets it before answering.
      app.apiKeys.forget(row.key_hash);
      return { success: true as const, data: { ...keyView(row), revokedAt: row.revoked_at?.toISOString() ?? null, status: keyStatus(row) }, requestId: request.id };
    },
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
    async (request, reply) => {
      const key = generateApiKey();
      const { row, oldKeyHash } = await db.transaction().execute(async (tx) => {
        const old = await tx
          .updateTable('api_keys')
          .set({ revoked_at: sql<Date>`now()` })
          .where('id', '=', request.params.id)
          .where('revoked_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (!old) {
          const exists = await tx.selectFrom('api_keys').select('id').where('id', '=', request.params.id).executeTakeFirst();
          throw exists ? conflict('A revoked key cannot be rotated; issue a new key instead') : notFound('API key');
        }
        const issued = await tx
          .insertInto('api_keys')
          .values({
            tenant_id: old.tenant_id,
            name: old.name,
            key_hash: hashApiKey(key),
            prefix: shownPrefix(key),
            permissions: old.permissions,
            rate_limit_per_minute: old.rate_limit_per_minute,
            daily_limit: old.daily_limit,
            allowed_ips: old.allowed_ips,
            expires_at: old.expires_at,
          })
          .returning(KEY_COLUMNS)
          .executeTakeFirstOrThrow();
        return { row: issued, oldKeyHash: old.key_hash };
      });
      app.apiKeys.forget(oldKeyHash);
      return reply.status(201).send({ success: true, data: { ...keyView(row), key }, requestId: request.id });
    },
  );
};
