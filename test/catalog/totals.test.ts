import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { twoTenants, UNLIMITED, type TestTenant } from '../helpers/context';
import { useTestContext } from '../helpers/setup';

const setup = useTestContext();

const product = (n: number | string, extra: Record<string, unknown> = {}) => ({ externalId: `T-${n}`, sku: `TS-${n}`, name: `Counted ${n}`, ...extra });

/** The `total` of the first page of the whole catalog, active products only or all. */
async function firstPageTotals(tenant: TestTenant): Promise<{ active: number; all: number }> {
  const [active, all] = await Promise.all([tenant.api.get('/products', { limit: '1' }), tenant.api.get('/products', { limit: '1', active_only: 'false' })]);
  expect(active.status).toBe(200);
  expect(all.status).toBe(200);
  return { active: active.body.pagination.total, all: all.body.pagination.total };
}

/** What the tenant's products table holds, counted row by row. */
async function countedRows(tenant: TestTenant): Promise<{ active: number; all: number }> {
  const { rows } = await sql<{ active: string; all: string }>`
    SELECT count(*) FILTER (WHERE is_active) AS active, count(*) AS all FROM products WHERE tenant_id = ${tenant.id}`.execute(setup.ctx.database.db);
  return { active: Number(rows[0]?.active), all: Number(rows[0]?.all) };
}

async function expectTotals(tenant: TestTenant, expected: { active: number; all: number }): Promise<void> {
  expect(await countedRows(tenant)).toEqual(expected);
  expect(await firstPageTotals(tenant)).toEqual(expected);
}

describe('GET /products total of the whole catalog', () => {
  it('follows creates, and updates turning isActive off and on', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    await expectTotals(tenant, { active: 0, all: 0 });

    expect((await tenant.api.post('/products', product(1))).status).toBe(201);
    expect((await tenant.api.post('/products', product(2, { isActive: false }))).status).toBe(201);
    const batch = await tenant.api.post('/products/batch', { products: [3, 4, 5].map((n) => product(n, { isActive: n !== 5 })) });
    expect(batch.body.data.createdCount).toBe(3);
    await expectTotals(tenant, { active: 3, all: 5 });

    expect((await tenant.api.post('/products', product(1, { isActive: false }))).status).toBe(200);
    await expectTotals(tenant, { active: 2, all: 5 });
    // A batch flipping both ways at once, and a rename that changes nothing counted.
    const flips = await tenant.api.post('/products/batch', {
      products: [product(2, { isActive: true }), product(5, { isActive: true }), product(3, { isActive: false }), product(4, { name: 'Renamed' })],
    });
    expect(flips.body.data.updatedCount).toBe(4);
    await expectTotals(tenant, { active: 3, all: 5 });
  });

  it('counts only the items of a batch that succeed', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    await tenant.api.post('/products', product('held'));
    const response = await tenant.api.post('/products/batch', {
      products: [
        product(1),
        { externalId: 'T-2', sku: 'TS-held', name: 'Takes a held sku' },
        product(3, { isActive: false }),
        { externalId: 'T-4', sku: 'TS-4' },
        product(1, { name: 'Repeated' }),
      ],
    });
    expect(response.body.data).toMatchObject({ successCount: 2, createdCount: 2, errorCount: 3 });
    await expectTotals(tenant, { active: 2, all: 3 });
  });

  it('is unchanged by a write whose transaction rolls back', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    await tenant.api.post('/products/batch', { products: [1, 2, 3].map((n) => product(n)) });
    const aborted = setup.ctx.database.db.transaction().execute(async (tx) => {
      await sql`INSERT INTO products (tenant_id, external_id, sku, name) VALUES (${tenant.id}, 'T-9', 'TS-9', 'Rolled back')`.execute(tx);
      await sql`UPDATE products SET is_active = false WHERE tenant_id = ${tenant.id}`.execute(tx);
      throw new Error('abort');
    });
    await expect(aborted).rejects.toThrow('abort');
    // A statement that fails after its insert: the third row takes the first one's sku.
    const failed = sql`
      INSERT INTO products (tenant_id, external_id, sku, name)
      VALUES (${tenant.id}, 'T-10', 'TS-10', 'Fails'), (${tenant.id}, 'T-11', 'TS-1', 'Fails')`.execute(setup.ctx.database.db);
    await expect(failed).rejects.toMatchObject({ code: '23505' });
    await expectTotals(tenant, { active: 3, all: 3 });
  });

  it('keeps each tenant to its own products', async () => {
    const [a, b] = await twoTenants(setup.ctx);
    await a.api.post('/products/batch', { products: [1, 2, 3, 4].map((n) => product(n, { isActive: n % 2 === 0 })) });
    await b.api.post('/products', product(1));
    await expectTotals(a, { active: 2, all: 4 });
    await expectTotals(b, { active: 1, all: 1 });
  });

  it('stays exact under concurrent creates, batches, flips and failing batches', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 8; round++) {
      writes.push(tenant.api.post('/products', product(`single-${round}`, { isActive: round % 3 !== 0 })));
      writes.push(
        tenant.api.post('/products/batch', {
          products: Array.from({ length: 20 }, (_, i) => product(`batch-${round}-${i}`, { isActive: i % 4 !== 0 })),
        }),
      );
      // Shares externalIds with the next round's batch: concurrent upserts of the same products.
      writes.push(tenant.api.post('/products/batch', { products: Array.from({ length: 10 }, (_, i) => product(`batch-${round + 1}-${i}`, { isActive: round % 2 === 0 })) }));
      writes.push(tenant.api.post('/products', product(`single-${Math.max(0, round - 1)}`, { isActive: round % 2 === 0 })));
      writes.push(
        setup.ctx.database.db
          .transaction()
          .execute(async (tx) => {
            await sql`INSERT INTO products (tenant_id, external_id, sku, name) VALUES (${tenant.id}, ${`T-gone-${round}`}, ${`TS-gone-${round}`}, 'Rolled back')`.execute(tx);
            throw new Error('abort');
          })
          .catch(() => undefined),
      );
    }
    await Promise.all(writes);
    const counted = await countedRows(tenant);
    expect(counted.all).toBeGreaterThan(100);
    expect(await firstPageTotals(tenant)).toEqual(counted);
  });
});

describe('GET /products total of a filtered listing', () => {
  it('counts what matches updated_since, not the catalog', async () => {
    const tenant = await setup.ctx.tenant(UNLIMITED);
    await tenant.api.post('/products/batch', { products: [1, 2, 3].map((n) => product(n)) });
    const response = await tenant.api.get('/products', { updated_since: '2999-01-01T00:00:00Z' });
    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(0);
  });
});
