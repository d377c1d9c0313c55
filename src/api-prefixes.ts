/**
 * Where each API is mounted. A module of its own, importing nothing, so that the operator CLI can
 * build its URLs without loading the app it talks to.
 */
export const PUBLIC_PREFIX = '/api/v1/public';
export const ADMIN_PREFIX = '/api/v1/admin';
export const WAREHOUSE_PREFIX = '/api/v1/warehouse/tenants/:slug';
