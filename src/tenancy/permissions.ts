import { Type } from '@sinclair/typebox';

/** The five permissions of the public API; a key holds a subset, fixed when it is issued. */
export const PERMISSIONS = ['products:read', 'products:write', 'orders:read', 'orders:write', 'webhooks:manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PermissionSchema = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));

// Routes name their permission from this list; the HTTP core checks it without knowing the list.
declare module '../http/auth' {
  interface RoutePermissions extends Record<Permission, true> {}
}
