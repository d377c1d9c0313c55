import { Type } from '@sinclair/typebox';

/** The five permissions; a key holds a subset, fixed when it is issued. */
export const PERMISSIONS = ['products:read', 'products:write', 'orders:read', 'orders:write', 'webhooks:manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PermissionSchema = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));
