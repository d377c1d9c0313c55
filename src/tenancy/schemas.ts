import { Type } from '@fastify/type-provider-typebox';
import { PATTERN_RULE } from '../http/errors';
import { IsoDateTime } from '../http/schemas';
import { PermissionSchema } from './permissions';

export const Tenant = Type.Object({
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
export const IssuedApiKey = Type.Object({ ...ApiKeyBase, key: Type.String({ description: 'Shown only in this response' }) });
export const ListedApiKey = Type.Object({
  ...ApiKeyBase,
  revokedAt: Type.Union([IsoDateTime, Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
});

export const CreateTenantBody = Type.Object({
  slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$',
    [PATTERN_RULE]: 'must be 2 to 63 lowercase letters, digits and hyphens, not starting with a hyphen',
    description: 'lowercase letters, digits and hyphens' }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
});

export const IssueKeyBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255 })),
  permissions: Type.Array(PermissionSchema, { minItems: 1, uniqueItems: true }),
  rateLimitPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  dailyLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
  allowedIps: Type.Optional(Type.Array(Type.String({ description: 'IPv4/IPv6 address or CIDR range' }), { maxItems: 100 })),
  expiresAt: Type.Optional(IsoDateTime),
});

export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 63 }) });
export const KeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
