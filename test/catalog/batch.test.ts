import { sql, type Transaction } from 'kysely';
import type { Database } from '../../src/db/schema';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait';
import { twoTenants, usingPostgres } from '../helpers/context';
import { useTenant } from '../helpers/setup';

const setup = useTenant();
let seq = 0;
const fresh = (extra: Record<string, unknown> = {}) => {
  seq++;
  return { externalId: `B-${seq}`, sku: `BSKU-${seq}`, name: `Batch product ${seq}`, ...extra };
};
const batch = (products: unknown[], api = setup.tenant.api) => api.post('/products/batch', { products });
const get = (externalId: string) => setup.tenant.api.get(`/products/${encodeURIComponent(externalId)}`);

describe('POST /products/batch', () => {
  it('creates and updates in one request, with counters', async () => {
    const existing = fresh({ stock: 1 });
    await setup.tenant.api.post('/products', existing);
    const created = [fresh(), fresh()];
    const response = await batch([...created, { ...existing, stock: 2 }]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { successCount: 3, createdCount: 2, updatedCount: 1, errorCount: 0 },
      errors: [],
      warnings: [],
      requestId: expect.any(String),
    });
    expect((await get(created[1]!.externalId)).body.data).toMatchObject({ sku: created[1]!.sku, stock: 0, isActive: true });
    expect((await get(existing.externalId)).body.data.stock).toBe(2);
  });

  it('is partial: valid products are saved, each failure reported with index, externalId, code and message', async () => {
    const good = [fresh(), fresh()];
    const response = await batch([good[0], fresh({ stock: -1, weight: 0 }), good[1], { sku: 'no-id', name: 'x' }, 'not an object']);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ successCount: 2, createdCount: 2, updatedCount: 0, errorCount: 3 });
    const [negative, missingId, notObject] = response.body.errors;
    expect(negative).toMatchObject({ index: 1, externalId: expect.stringMatching(/^B-/), code: 'VALIDATION_ERROR' });
    expect(negative?.details?.map((d: { field: string }) => d.field).sort()).toEqual(['products[1].stock', 'products[1].weight']);
    expect(negative?.error).toContain('products[1].stock');
    expect(missingId).toMatchObject({ index: 3, externalId: null, code: 'VALIDATION_ERROR', details: [{ field: 'products[3].externalId' }] });
    expect(notObject).toMatchObject({ index: 4, externalId: null, code: 'VALIDATION_ERROR' });
    for (const product of good) expect((await get(product.externalId)).status).toBe(200);
  });

  it('keeps the fields an item does not send (partial update, like the single upsert)', async () => {
    const product = fresh({ stock: 8, price: 3, brand: 'Keep', metadata: { k: 'v' } });
    await setup.tenant.api.post('/products', product);
    await batch([{ externalId: product.externalId, sku: product.sku, name: 'Renamed', price: null }]);
    expect((await get(product.externalId)).body.data).toMatchObject({ name: 'Renamed', stock: 8, price: null, brand: 'Keep', metadata: { k: 'v' } });
  });

  it('answers 413 PAYLOAD_TOO_LARGE over 200 products, before any work', async () => {
    const products = Array.from({ length: 201 }, () => fresh());
    const response = await batch(products);
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await get(products[0]!.externalId)).status).toBe(404);
    expect((await batch(products.slice(0, 200))).body.data.successCount).toBe(200);
  });

  it('answers 413 PAYLOAD_TOO_LARGE over 5 MB, and takes bodies above the 1 MB of single requests', async () => {
    const padding = 'x'.repeat(27_000);
    const huge = Array.from({ length: 200 }, () => fresh({ metadata: { padding } }));
    expect(JSON.stringify({ products: huge }).length).toBeGreaterThan(5 * 1024 * 1024);
    const response = await batch(huge);
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await get(huge[0]!.externalId)).status).toBe(404);

    const large = huge.slice(0, 100);
    expect(JSON.stringify({ products: large }).length).toBeGreaterThan(2 * 1024 * 1024);
    expect((await batch(large)).body.data.successCount).toBe(100);
  });

  it('answers 400 when the body has no products array', async () => {
    for (const body of [{}, { products: 'x' }, { products: { a: 1 } }]) {
      const response = await setup.tenant.api.post('/products/batch', body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('fails a repeated externalId from its second occurrence; the first is saved', async () => {
    const product = fresh({ stock: 1 });
    const response = await batch([product, fresh(), { ...product, stock: 9 }]);
    expect(response.body.data).toMatchObject({ successCount: 2, errorCount: 1 });
    expect(response.body.errors).toEqual([
      expect.objectContaining({ index: 2, externalId: product.externalId, code: 'VALIDATION_ERROR', error: expect.stringContaining('products[0]') }),
    ]);
    expect((await get(product.externalId)).body.data.stock).toBe(1);
  });

  it('gives a sku claimed by two new items to the first; the second fails DUPLICATE_SKU', async () => {
    const first = fresh();
    const second = fresh({ sku: first.sku });
    const response = await batch([first, second]);
    expect(response.body.data).toMatchObject({ successCount: 1, createdCount: 1, errorCount: 1 });
    expect(response.body.errors).toEqual([
      expect.objectContaining({ index: 1, externalId: second.externalId, code: 'DUPLICATE_SKU', error: expect.stringContaining('products[0]') }),
    ]);
    expect((await get(second.externalId)).status).toBe(404);
  });

  it('fails DUPLICATE_SKU for a sku another product holds, while the holder itself is updated', async () => {
    const holder = fresh();
    await setup.tenant.api.post('/products', holder);
    const intruder = fresh({ sku: holder.sku });
    const response = await batch([intruder, { ...holder, stock: 4 }]);
    expect(response.body.data).toEqual({ successCount: 1, createdCount: 0, updatedCount: 1, errorCount: 1 });
    expect(response.body.errors).toEqual([
      expect.objectContaining({ index: 0, externalId: intruder.externalId, code: 'DUPLICATE_SKU', error: expect.stringContaining(holder.externalId) }),
    ]);
    expect((await get(holder.externalId)).body.data.stock).toBe(4);
  });

  it('reports unknown location codes as warnings with index and externalId, and saves the products', async () => {
    await setup.ctx.database.db.insertInto('warehouse_locations').values({ tenant_id: setup.tenant.id, code: 'B-01' }).execute();
    const products = [fresh({ locationCode: 'B-01' }), fresh({ locationCode: 'NOPE-1' }), fresh({ locationCode: 'NOPE-1' })];
    const response = await batch(products);
    expect(response.body.data.successCount).toBe(3);
    expect(response.body.warnings).toEqual([
      { index: 1, externalId: products[1]!.externalId, warning: expect.stringContaining('NOPE-1') },
      { index: 2, externalId: products[2]!.externalId, warning: expect.stringContaining('NOPE-1') },
    ]);
  });

  it('reports each field a saved product was sent with that is not a product field, by index; a refused one gets its error only', async () => {
    await setup.ctx.database.db.insertInto('warehouse_locations').values({ tenant_id: setup.tenant.id, code: 'C-01' }).execute();
    const products = [fresh({ stok: 5 }), fresh({ stock: -1, colour: 'red' }), fresh({ locationCode: 'NOPE-2', Name: 'x', updatedAt: 'now' })];
    const response = await batch(products);
    expect(response.body.data).toMatchObject({ successCount: 2, errorCount: 1 });
    expect(response.body.warnings).toEqual([
      { index: 0, externalId: products[0]!.externalId, warning: 'products[0].stok is not a field of a product (did you mean products[0].stock?); it was ignored' },
      { index: 2, externalId: products[2]!.externalId, warning: expect.stringContaining('NOPE-2') },
      { index: 2, externalId: products[2]!.externalId, warning: 'products[2].Name is not a field of a product (did you mean products[2].name?); it was ignored' },
      { index: 2, externalId: products[2]!.externalId, warning: 'products[2].updatedAt is set by the service, not by a request; it was ignored' },
    ]);
    expect((await get(products[0]!.externalId)).body.data.stock).toBe(0);
  });

  it('raises product.stock_updated for changed stock of existing products only, in the same request', async () => {
    const changed = fresh({ stock: 10 });
    const unchanged = fresh({ stock: 3 });
    await batch([changed, unchanged]);
    const created = fresh({ stock: 6 });
    await batch([{ ...changed, stock: 4 }, unchanged, created]);
    const { rows } = await sql<{ data: { sku: string; previousStock: number; newStock: number; reason: string } }>`
      SELECT data FROM events WHERE tenant_id = ${setup.tenant.id} AND event = 'product.stock_updated'
        AND data->>'sku' IN (${changed.sku}, ${unchanged.sku}, ${created.sku})`.execute(setup.ctx.database.db);
    expect(rows.map((r) => r.data)).toEqual([
      { productId: expect.any(String), sku: changed.sku, previousStock: 10, newStock: 4, reason: 'INVENTORY_SYNC' },
    ]);
  });

  it('keeps tenants apart: B’s batch with A’s externalIds and skus creates B’s own products', async () => {
    const [a, b] = await twoTenants(setup.ctx);
    const product = fresh({ stock: 5 });
    await batch([product], a.api);
    const response = await batch([{ ...product, stock: 1 }], b.api);
    expect(response.body.data).toMatchObject({ createdCount: 1, errorCount: 0 });
    expect((await a.api.get(`/products/${product.externalId}`)).body.data.stock).toBe(5);
  });

  /**
   * Sends the batch while another request's transaction holds rows it wrote, uncommitted, and
   * commits that transaction once the batch waits for it: the batch read the names before.
   */
  async function batchRacing(otherWrites: (trx: Transaction<Database>) => Promise<unknown>, products: unknown[]) {
    const other = await setup.ctx.database.db.startTransaction().execute();
    try {
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(other);
      await otherWrites(other);
      const pending = batch(products);
      await waitFor('the batch to wait for the other transaction', async () => {
        const blocked = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${rows[0]!.pid}::int = ANY (pg_blocking_pids(pid))`.execute(setup.ctx.database.db);
        return blocked.rows[0]!.n > 0;
      });
      await other.commit().execute();
      return await pending;
    } finally {
      await other.rollback().execute().catch(() => undefined);
    }
  }

  // On the embedded database transactions run one after another, so two cannot overlap like this.
  it.skipIf(!usingPostgres)('runs again when a concurrent request creates its new products meanwhile, and then updates them', async () => {
    const [racedId, racedSku, alone] = [fresh({ stock: 1 }), fresh({ stock: 1 }), fresh()];
    // The other request creates one of the batch's products and binds another's sku to a product of its own.
    const response = await batchRacing(
      (other) => sql`INSERT INTO products (tenant_id, external_id, sku, name) VALUES
        (${setup.tenant.id}, ${racedId.externalId}, ${racedId.sku}, 'theirs'),
        (${setup.tenant.id}, 'THEIRS', ${racedSku.sku}, 'theirs')`.execute(other),
      [alone, { ...racedId, stock: 7 }, racedSku],
    );
    expect(response.body.data).toEqual({ successCount: 2, createdCount: 1, updatedCount: 1, errorCount: 1 });
    expect(response.body.errors).toEqual([expect.objectContaining({ index: 2, code: 'DUPLICATE_SKU', error: expect.stringContaining('THEIRS') })]);
    expect((await get(racedId.externalId)).body.data).toMatchObject({ name: racedId.name, stock: 7 });
    expect((await get(alone.externalId)).status).toBe(200);
  });

  it.skipIf(!usingPostgres)('runs again when a concurrent request takes the sku it moves a product to, and then fails that item', async () => {
    const [moving, other] = [fresh(), fresh()];
    await setup.tenant.api.post('/products', moving);
    const newSku = `${moving.sku}-NEW`;
    const response = await batchRacing(
      (trx) => sql`INSERT INTO products (tenant_id, external_id, sku, name) VALUES (${setup.tenant.id}, 'TAKER', ${newSku}, 'theirs')`.execute(trx),
      [{ ...moving, sku: newSku }, other],
    );
    expect(response.body.data).toEqual({ successCount: 1, createdCount: 1, updatedCount: 0, errorCount: 1 });
    expect(response.body.errors).toEqual([expect.objectContaining({ index: 0, code: 'DUPLICATE_SKU', error: expect.stringContaining('TAKER') })]);
    expect((await get(moving.externalId)).body.data.sku).toBe(moving.sku);
  });
});
