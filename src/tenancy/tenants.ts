import type { Executor, Tx } from '../db';
import { conflict, notFound } from '../http/errors';

/** The id of the tenant a path names by slug (operator, warehouse and floor routes); 404 otherwise. */
export async function tenantIdOf(db: Executor, slug: string): Promise<string> {
  const tenant = await db.selectFrom('tenants').select('id').where('slug', '=', slug).executeTakeFirst();
  if (!tenant) throw notFound(`Tenant ${slug}`);
  return tenant.id;
}

export async function listTenants(db: Executor) {
  return db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id').execute();
}

/** A new tenant; 409 when its slug is taken. Only the two fields: id and created_at are the service's. */
export async function createTenant(tx: Tx, input: { slug: string; name: string }) {
  const tenant = await tx
    .insertInto('tenants')
    .values({ slug: input.slug, name: input.name })
    .onConflict((oc) => oc.column('slug').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!tenant) throw conflict(`Tenant slug ${input.slug} is taken`);
  return { tenant };
}
