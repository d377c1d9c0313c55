import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db';
import { openTestDatabase, usingPostgres } from '../helpers/context';
import { holdTransaction, waitsForLock, type HeldTransaction } from '../helpers/wait';

/**
 * Products and events are checked against their tenant once per statement (migration 011), not
 * per row by a foreign key; these are the guarantees of the foreign key they replaced.
 */
describe('rows of products and events always belong to an existing tenant', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  const missingTenant = '0190a6c4-0000-7000-8000-000000000000';
  beforeAll(async () => ({ database, drop } = await openTestDatabase()));
  afterAll(() => drop());

  async function newTenant(slug: string): Promise<string> {
    const { rows } = await sql<{ id: string }>`INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id`.execute(database.db);
    return rows[0]!.id;
  }
  const insertProducts = (tenantIds: string[]) =>
    sql`INSERT INTO products (tenant_id, external_id, sku, name)
      SELECT t, 'P-' || n, 'S-' || n || '-' || t, 'Product' FROM unnest(${tenantIds}::uuid[]) WITH ORDINALITY AS u(t, n)`.execute(database.db);
  const productCount = async () => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM products`.execute(database.db)).rows[0]!.n);

  it('refuses a statement whose rows name a tenant that does not exist, writing none of them', async () => {
    const tenant = await newTenant('integrity-a');
    const before = await productCount();
    await expect(insertProducts([tenant, missingTenant, tenant])).rejects.toMatchObject({ code: '23503' });
    await expect(
      sql`INSERT INTO events (tenant_id, event, data) VALUES (${missingTenant}, 'product.stock_updated', '{}')`.execute(database.db),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await productCount()).toBe(before);

    await insertProducts([tenant, tenant]);
    expect(await productCount()).toBe(before + 2);
  });

  it('refuses moving a product or an event to another tenant', async () => {
    const [from, to] = [await newTenant('integrity-from'), await newTenant('integrity-to')];
    await insertProducts([from]);
    await sql`INSERT INTO events (tenant_id, event, data) VALUES (${from}, 'product.stock_updated', '{}')`.execute(database.db);
    await expect(sql`UPDATE products SET tenant_id = ${to} WHERE tenant_id = ${from}`.execute(database.db)).rejects.toMatchObject({ code: '23503' });
    await expect(sql`UPDATE events SET tenant_id = ${to} WHERE tenant_id = ${from}`.execute(database.db)).rejects.toMatchObject({ code: '23503' });
    // Naming the column without changing it is no move.
    await sql`UPDATE products SET tenant_id = tenant_id, name = 'Renamed' WHERE tenant_id = ${from}`.execute(database.db);
  });

  it('refuses deleting, or changing the id of, a tenant that products or events refer to', async () => {
    const withProducts = await newTenant('integrity-products');
    const withEvents = await newTenant('integrity-events');
    const unused = await newTenant('integrity-unused');
    await insertProducts([withProducts]);
    await sql`INSERT INTO events (tenant_id, event, data) VALUES (${withEvents}, 'product.stock_updated', '{}')`.execute(database.db);

    for (const tenant of [withProducts, withEvents]) {
      await expect(sql`DELETE FROM tenants WHERE id = ${tenant}`.execute(database.db)).rejects.toMatchObject({ code: '23503' });
      await expect(sql`UPDATE tenants SET id = gen_random_uuid() WHERE id = ${tenant}`.execute(database.db)).rejects.toMatchObject({ code: '23503' });
    }
    await sql`UPDATE tenants SET name = 'Renamed', id = id WHERE id = ${withProducts}`.execute(database.db);
    await sql`DELETE FROM tenants WHERE id = ${unused}`.execute(database.db);
  });

  /**
   * Runs `first` in a transaction held open, then `second` in another, which must wait for a lock
   * `first` holds (PostgreSQL shows it waiting); then `first` commits. How `second` ended:
   * 'done', or the SQLSTATE it failed with.
   */
  async function waitingBehind(first: (tx: HeldTransaction) => Promise<unknown>, second: (tx: HeldTransaction) => Promise<unknown>): Promise<string | undefined> {
    const holder = await holdTransaction(database.db);
    const waiter = await holdTransaction(database.db);
    try {
      await first(holder.trx);
      const outcome = second(waiter.trx).then(
        () => 'done',
        (error: { code?: string }) => error.code,
      );
      await waitsForLock(database.db, waiter.pid);
      await holder.trx.commit().execute();
      return await outcome;
    } finally {
      await holder.trx.rollback().execute().catch(() => undefined);
      await waiter.trx.rollback().execute().catch(() => undefined);
    }
  }
  const insertProduct = (tenant: string) => (tx: HeldTransaction) =>
    sql`INSERT INTO products (tenant_id, external_id, sku, name) VALUES (${tenant}, 'P-1', 'S-1', 'Product')`.execute(tx);
  const deleteTenant = (tenant: string) => (tx: HeldTransaction) => sql`DELETE FROM tenants WHERE id = ${tenant}`.execute(tx);

  it.skipIf(!usingPostgres)('makes a tenant deletion wait for a write to that tenant, then refuses it', async () => {
    const tenant = await newTenant('integrity-concurrent');
    // The deletion is blocked by the insert's lock on the tenant, then refused once the insert commits.
    expect(await waitingBehind(insertProduct(tenant), deleteTenant(tenant))).toBe('23503');
  });

  it.skipIf(!usingPostgres)('makes a write to a tenant wait for a deletion of that tenant under way, then refuses it', async () => {
    const tenant = await newTenant('integrity-deleting');
    const before = await productCount();
    expect(await waitingBehind(deleteTenant(tenant), insertProduct(tenant))).toBe('23503');
    expect(await productCount()).toBe(before);
  });
});
