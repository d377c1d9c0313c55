import Fastify from 'fastify';
import { sql } from 'kysely';
import { insertProducts } from '../../src/catalog/batch';
import { toProduct } from '../../src/catalog/fields';
import { listProducts } from '../../src/catalog/queries';
import type { ListQuery, ProductInput } from '../../src/catalog/schemas';
import { upsertQuery } from '../../src/catalog/upsert';
import { encodeCursor, signedCursor } from '../../src/http/cursor';
import { alternate, load, startBenchService, type Measurement } from '../harness';

const SECONDS = 3;
/** Writes are measured in alternation with their baseline, best of this many rounds each. */
const ROUNDS = 3;
const BATCH_SIZE = 200;
/** Products in the catalog that is listed: a million on PostgreSQL, fewer on the embedded database. */
const CATALOG_SIZE = process.env.DATABASE_URL ? 1_000_000 : 100_000;

let counter = 0;
/** A product with a fresh externalId, as a sync would send it. */
function product(run: string): ProductInput {
  counter++;
  return { externalId: `${run}-${counter}`, sku: `${run}-S${counter}`, name: `Bench product ${counter}`, stock: counter % 50, price: 9.99 };
}

/** The same with a barcode and a case of 12 with its own: each barcode is claimed, one product per code. */
function barcoded(run: string): ProductInput {
  const plain = product(run);
  return { ...plain, barcode: `${run}-B${counter}`, packagings: [{ name: 'case', quantity: 12, barcode: `${run}-C${counter}` }] };
}

const UPDATED_PRODUCTS = 5_000;
/** An existing product (see seedUpdatable) renamed: no stock change, so no event and no order re-check. */
function renamed(run: string): ProductInput {
  counter++;
  const n = counter % UPDATED_PRODUCTS;
  return { externalId: `${run}-u${n}`, sku: `${run}-us${n}`, name: `Renamed ${counter}` };
}

/**
 * The catalog: single upserts at 32 clients, batches of 200 in products/s, and a page of
 * GET /products at the start and deep into a large catalog. Each against a bare Fastify route
 * running the same write or read SQL on the same database (no auth, validation, rate limit or
 * transaction); for the batch that is its insert statement alone.
 */
export default async function catalog(): Promise<Measurement[]> {
  const service = await startBenchService();
  const db = service.database.db;
  const [serviceTenant, bareTenant, listTenant] = [await service.tenant(), await service.tenant(), await service.tenant()];
  const bare = Fastify({ bodyLimit: 5 * 1024 * 1024 });
  bare.post('/products', async (request, reply) => {
    const input = request.body as ProductInput;
    const { rows } = await db.executeQuery(upsertQuery(db, bareTenant.id, input, {}));
    return reply.status(rows[0]?.old_id ? 200 : 201).send({ id: rows[0]?.id });
  });
  // The batch's write statement alone, autocommitted: what the service adds around it (key, lock
  // read, order keys and re-check, transaction) is what the ratio shows.
  bare.post('/products/batch', async (request) => {
    const { products } = request.body as { products: ProductInput[] };
    const inserted = await insertProducts(db, bareTenant.id, products);
    return { createdCount: inserted.size };
  });
  bare.get('/products', async (request) => {
    const page = await listProducts(db, listTenant.id, request.query as ListQuery);
    return { data: page.rows.map(toProduct), nextCursor: page.nextCursor, total: page.total };
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const json = { 'content-type': 'application/json' };
  const auth = (key: string) => ({ ...json, authorization: `Bearer ${key}` });
  const publicUrl = `${service.url}/api/v1/public`;

  try {
    const single = (url: string, headers: Record<string, string>, run: string) =>
      load({ url, method: 'POST', headers, body: () => JSON.stringify(product(run)), connections: 32, durationSeconds: SECONDS });
    const creates = await alternate(ROUNDS, () => single(`${bareUrl}/products`, json, 'bare'), () => single(`${publicUrl}/products`, auth(serviceTenant.key), 'svc'));
    const withBarcodes = (run: string) =>
      load({ url: `${publicUrl}/products`, method: 'POST', headers: auth(serviceTenant.key), body: () => JSON.stringify(barcoded(run)), connections: 32, durationSeconds: SECONDS });
    const claims = await alternate(ROUNDS, () => single(`${publicUrl}/products`, auth(serviceTenant.key), 'plain'), () => withBarcodes('coded'));

    await seedUpdatable(service, bareTenant.id, 'bare');
    await seedUpdatable(service, serviceTenant.id, 'svc');
    const rename = (url: string, headers: Record<string, string>, run: string) =>
      load({ url, method: 'POST', headers, body: () => JSON.stringify(renamed(run)), connections: 32, durationSeconds: SECONDS });
    const renames = await alternate(ROUNDS, () => rename(`${bareUrl}/products`, json, 'bare'), () => rename(`${publicUrl}/products`, auth(serviceTenant.key), 'svc'));

    const batch = (url: string, headers: Record<string, string>, run: string) =>
      load({
        url,
        method: 'POST',
        headers,
        body: () => JSON.stringify({ products: Array.from({ length: BATCH_SIZE }, () => product(run)) }),
        connections: 4,
        durationSeconds: SECONDS,
      });
    const batches = await alternate(ROUNDS, () => batch(`${bareUrl}/products/batch`, json, 'bare'), () => batch(`${publicUrl}/products/batch`, auth(serviceTenant.key), 'svc'));

    await seedCatalog(service, listTenant.id);
    const near = await cursorAt(service, listTenant.id, 50);
    const deep = await cursorAt(service, listTenant.id, Math.floor(CATALOG_SIZE * 0.9));
    const page = (url: string, headers: Record<string, string>) =>
      load({ url, headers, connections: 4, durationSeconds: SECONDS });
    const firstBaseline = await page(`${bareUrl}/products`, {});
    const firstService = await page(`${publicUrl}/products`, auth(listTenant.key));
    // The service's cursors are signed for the listing they belong to; the bare route reads the key alone.
    const signedFor = (key: string) => signedCursor(service.app.config.secretKey, { method: 'GET', url: '/api/v1/public/products', tenantId: listTenant.id, params: {}, filters: { active_only: true } }, key);
    const nearBaseline = await page(`${bareUrl}/products?cursor=${near}`, {});
    const nearService = await page(`${publicUrl}/products?cursor=${signedFor(near)}`, auth(listTenant.key));
    const deepBaseline = await page(`${bareUrl}/products?cursor=${deep}`, {});
    const deepService = await page(`${publicUrl}/products?cursor=${signedFor(deep)}`, auth(listTenant.key));

    for (const result of [firstService, nearService, deepService]) {
      if (result.non2xx > 0) console.warn(`warning: ${result.non2xx} requests failed`);
    }
    const size = CATALOG_SIZE.toLocaleString('en-US');
    return [
      {
        name: 'POST /products creating, 32 connections',
        unit: 'req/s',
        service: creates.service.requestsPerSecond,
        baseline: creates.baseline.requestsPerSecond,
        higherIsBetter: true,
        target: '≥ 60% of baseline',
      },
      {
        name: 'POST /products creating with a barcode and a case barcode vs without, 32 connections',
        unit: 'req/s',
        service: claims.service.requestsPerSecond,
        baseline: claims.baseline.requestsPerSecond,
        higherIsBetter: true,
      },
      {
        name: 'POST /products updating (rename), 32 connections',
        unit: 'req/s',
        service: renames.service.requestsPerSecond,
        baseline: renames.baseline.requestsPerSecond,
        higherIsBetter: true,
        target: '≥ 60% of baseline',
      },
      {
        name: `POST /products/batch of ${BATCH_SIZE}, 4 connections`,
        unit: 'products/s',
        service: batches.service.requestsPerSecond * BATCH_SIZE,
        baseline: batches.baseline.requestsPerSecond * BATCH_SIZE,
        higherIsBetter: true,
        target: '> 30,000 products/s',
      },
      {
        name: `GET /products first page (p50, with its total) of ${size}`,
        unit: 'ms',
        service: firstService.p50Ms,
        baseline: firstBaseline.p50Ms,
        higherIsBetter: false,
      },
      {
        name: `GET /products second page (p50, cursor) of ${size}`,
        unit: 'ms',
        service: nearService.p50Ms,
        baseline: nearBaseline.p50Ms,
        higherIsBetter: false,
      },
      {
        name: `GET /products page at 90% of ${size} (p50, cursor)`,
        unit: 'ms',
        service: deepService.p50Ms,
        baseline: deepBaseline.p50Ms,
        higherIsBetter: false,
        target: `≤ 1.5× first page (${firstService.p50Ms.toFixed(1)} ms; second page ${nearService.p50Ms.toFixed(1)} ms)`,
      },
    ];
  } finally {
    await bare.close();
    await service.close();
  }
}

async function seedUpdatable(service: Awaited<ReturnType<typeof startBenchService>>, tenantId: string, run: string): Promise<void> {
  await sql`
    INSERT INTO products (tenant_id, external_id, sku, name, stock)
    SELECT ${tenantId}::uuid, ${run} || '-u' || g, ${run} || '-us' || g, 'Updatable ' || g, 10
    FROM generate_series(0, ${UPDATED_PRODUCTS - 1}::int) AS g`.execute(service.database.db);
}

/** The listed catalog, set-based; VACUUM so that counts and keyset scans see a settled table. */
async function seedCatalog(service: Awaited<ReturnType<typeof startBenchService>>, tenantId: string): Promise<void> {
  const started = performance.now();
  await sql`
    INSERT INTO products (tenant_id, external_id, sku, name, stock, price, weight, category, brand, metadata)
    SELECT ${tenantId}::uuid, 'E-' || g, 'S-' || g, 'Catalog product ' || g, g % 500, (g % 1000) / 10.0, 0.5,
      'Category ' || (g % 40), 'Brand ' || (g % 300), jsonb_build_object('color', 'c' || (g % 7))
    FROM generate_series(1, ${CATALOG_SIZE}::int) AS g`.execute(service.database.db);
  await sql`VACUUM ANALYZE products`.execute(service.database.db);
  console.log(`  seeded ${CATALOG_SIZE.toLocaleString('en-US')} products in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The cursor a client holds `offset` products into the listing (built here instead of paging there). */
async function cursorAt(service: Awaited<ReturnType<typeof startBenchService>>, tenantId: string, offset: number): Promise<string> {
  const { rows } = await sql<{ id: string; total: number }>`
    SELECT id, (SELECT count(*) FROM products WHERE tenant_id = ${tenantId} AND is_active) AS total
    FROM products WHERE tenant_id = ${tenantId} AND is_active
    ORDER BY id OFFSET ${offset} LIMIT 1`.execute(service.database.db);
  const row = rows[0];
  if (!row) throw new Error('the listed catalog is empty');
  return encodeCursor([row.id, Number(row.total)]);
}
