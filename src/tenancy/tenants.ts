import type { Executor } from '../db';
import { notFound } from '../http/errors';

/** The id of the tenant a path names by slug (operator, warehouse and floor routes); 404 otherwise. */
export async function tenantIdOf(db: Executor, slug: string): Promise<string> {
  const tenant = await db.selectFrom('tenants').select('id').where('slug', '=', slug).executeTakeFirst();
  if (!tenant) throw notFound(`Tenant ${slug}`);
  return tenant.id;
}
