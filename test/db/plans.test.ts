import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedStatements, type NamedStatement } from '../../scripts/generate-sql';
import { quoteIdentifier, type DatabaseHandle } from '../../src/db';
import { openTestDatabase, usingPostgres } from '../helpers/context';

const TENANT = '00000000-0000-7000-8000-00000000000a';
const OTHER = '00000000-0000-7000-8000-00000000000b';

// The indexes each named statement reads its big tables by (products, orders, order_items): a
// probe of a unique key must stay one, whatever the statistics its generic plan was made with.
const PRODUCT_KEYS = ['products_tenant_id_external_id_key', 'products_tenant_id_sku_key'];
const EXPECTED: Record<string, string[]> = {
  batch_insert_products: [],
  batch_insert_products_taking_keys: [],
  batch_lock_named_products: [...PRODUCT_KEYS, 'products_pkey'],
  batch_lock_or_insert_products: [...PRODUCT_KEYS, 'products_pkey'],
  batch_update_products: ['products_pkey'],
  orders_catalog_and_holds: ['products_tenant_id_external_id_key', 'order_items_by_product', 'orders_pkey'],
  orders_create_alone: [],
  orders_insert_with_items: [],
  orders_lookup: ['orders_tenant_id_external_id_key', 'orders_tenant_id_order_number_key', 'order_items_pkey'],
  orders_lookup_taking_keys: ['orders_tenant_id_external_id_key', 'orders_tenant_id_order_number_key', 'order_items_pkey'],
  pickport_store_idempotent_answer: [],
  product_upsert_mh33_location_key: [...PRODUCT_KEYS, 'products_pkey'],
  product_upsert_mh33_location_key_alone: [...PRODUCT_KEYS, 'products_pkey'],
  product_upsert_7_key: [...PRODUCT_KEYS, 'products_pkey'],
  product_upsert_7_key_alone: [...PRODUCT_KEYS, 'products_pkey'],
};
const BIG_TABLES = new Set(['products', 'orders', 'order_items']);
// Inside the window where the unique indexes of ~40-character keys are a level taller than the
// primary key and the heap is still under ten pages.
const GROWN_ROWS = 150;
// Known gap: the batch's UPDATE ... FROM joins its items to the catalog; on an analyzed catalog of
// thousands the planner hashes the whole catalog rather than probing per item.
const KNOWN_SCANS: Record<string, string> = { batch_update_products: 'Seq Scan on products' };

/** The indexes a plan reads its big tables by, and its scans of a big table that use none. */
function readsOf(plan: string): { indexes: Set<string>; scans: string[] } {
  const indexes = new Set<string>();
  const scans: string[] = [];
  for (const [, index, table] of plan.matchAll(/Index (?:Only )?Scan(?: Backward)? using (\w+) on (\w+)/g)) {
    if (BIG_TABLES.has(table!)) indexes.add(index!);
  }
  for (const [, index] of plan.matchAll(/Bitmap Index Scan on (\w+)/g)) if (/^(products|orders|order_items)_/.test(index!)) indexes.add(index!);
  for (const [scan, table] of plan.matchAll(/(?:Seq|Tid) Scan on (\w+)/g)) if (BIG_TABLES.has(table!)) scans.push(scan!.replace(/ \(.*$/, ''));
  return { indexes, scans };
}

/**
 * The queries of the database functions that read by keys (PL/pgSQL caches their plans as it
 * caches a named statement's; a SQL function's is planned inside the query that calls it), by
 * function: where each parameter of the function stands in its queries, and the indexes expected
 * of each query (the statements of its body that are a SELECT), in body order.
 */
const FUNCTION_QUERIES: Record<string, { parameters: string[]; expected: string[][] }> = {
  create_order: {
    parameters: ['p_tenant_id', 'p_order', 'p_lines', 'p_holding'],
    expected: [['products_tenant_id_external_id_key', 'order_items_by_product', 'orders_pkey']],
  },
  held_stock: { parameters: ['p_tenant_id', 'p_product_id', 'p_holding', 'p_except_order_id'], expected: [['order_items_by_product', 'orders_pkey']] },
};
const functionQueryNames = Object.entries(FUNCTION_QUERIES).flatMap(([name, { expected }]) => expected.map((_, i) => `${name}_query${i + 1}`));
const expectedOfFunctionQuery = (name: string) => {
  const [, fn, n] = /^(\w+)_query(\d+)$/.exec(name) ?? [];
  return fn ? FUNCTION_QUERIES[fn]?.expected[Number(n) - 1] : undefined;
};

/** Each function's queries, without their INTO, as named statements of its parameters (`name_query1`, `name_query2`, …). */
async function functionQueries(database: DatabaseHandle): Promise<Planned[]> {
  const { rows } = await sql<{ name: string; body: string; types: string[] }>`
    SELECT proname AS name, prosrc AS body, ARRAY(SELECT format_type(t, NULL) FROM unnest(proargtypes) AS t) AS types FROM pg_proc
    WHERE proname = ANY (${Object.keys(FUNCTION_QUERIES)}::text[]) AND pronamespace = current_schema()::regnamespace`.execute(database.db);
  return rows.flatMap(({ name, body, types }) =>
    body
      .replace(/--.*$/gm, '')
      .split(';')
      .map((statement) => statement.replace(/^\s*(BEGIN|THEN|END IF)?\s*/, ''))
      .filter((statement) => /^SELECT\b/.test(statement))
      .map((statement, i) => {
        let text = statement.replace(/\bINTO\s+\w+/, '');
        FUNCTION_QUERIES[name]!.parameters.forEach((parameter, p) => (text = text.replaceAll(new RegExp(`\\b${parameter}\\b`, 'g'), `$${p + 1}`)));
        return { name: `${name}_query${i + 1}`, sql: text, types };
      }),
  );
}

type Planned = Pick<NamedStatement, 'name' | 'sql'> & { types?: string[] };

/** Each named statement's generic plan, prepared on one connection as the service's are. */
async function genericPlans(database: DatabaseHandle, statements: Planned[]): Promise<Map<string, string>> {
  const plans = new Map<string, string>();
  await database.db.connection().execute(async (connection) => {
    await sql`SET plan_cache_mode = force_generic_plan`.execute(connection);
    for (const { name, sql: text, types } of statements) {
      const parameters = types?.length ?? Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map(([, n]) => Number(n)));
      await sql.raw(`PREPARE plan_${name}${types ? `(${types.join(', ')})` : ''} AS ${text}`).execute(connection);
      // EXPLAIN plans without running: NULL stands for every value, types come from PREPARE.
      const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE plan_${name}(${Array(parameters).fill('NULL').join(', ')})`).execute(connection);
      await sql.raw(`DEALLOCATE plan_${name}`).execute(connection);
      plans.set(name, rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    await sql`RESET plan_cache_mode`.execute(connection);
  });
  return plans;
}

interface ForeignKey {
  name: string;
  /** The referenced table and the unique index its check should read it by. */
  table: string;
  key: string;
  columns: string[];
  types: string[];
}

/** Every foreign key of the schema, with what PostgreSQL's check of it reads. */
async function foreignKeys(database: DatabaseHandle): Promise<ForeignKey[]> {
  const { rows } = await sql<ForeignKey>`
    SELECT c.conname AS name, t.relname AS table, i.relname AS key,
      ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
      ARRAY(SELECT format_type(a.atttypid, a.atttypmod) FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS types
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.confrelid JOIN pg_class i ON i.oid = c.conindid
    WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
    ORDER BY c.conname`.execute(database.db);
  return rows;
}

/**
 * The index each foreign key's check reads its referenced table by, under a generic plan: the
 * query PostgreSQL runs per inserted row (ri_triggers.c), planned once per connection and kept until
 * the table's statistics change.
 */
async function foreignKeyChecks(database: DatabaseHandle, keys: ForeignKey[]): Promise<Map<string, string>> {
  const reads = new Map<string, string>();
  await database.db.connection().execute(async (connection) => {
    await sql`SET plan_cache_mode = force_generic_plan`.execute(connection);
    for (const fk of keys) {
      const where = fk.columns.map((column, i) => `${quoteIdentifier(column)} OPERATOR(pg_catalog.=) $${i + 1}`).join(' AND ');
      await sql.raw(`PREPARE fk_check(${fk.types.join(', ')}) AS SELECT 1 FROM ONLY ${quoteIdentifier(fk.table)} x WHERE ${where} FOR KEY SHARE OF x`).execute(connection);
      const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE fk_check(${fk.columns.map(() => 'NULL').join(', ')})`).execute(connection);
      await sql.raw('DEALLOCATE fk_check').execute(connection);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      // The index it reads, or the scan it makes without one.
      reads.set(fk.name, /Index (?:Only )?Scan using (\w+)/.exec(plan)?.[1] ?? /(Seq|Tid) Scan/.exec(plan)?.[0] ?? plan);
    }
    await sql`RESET plan_cache_mode`.execute(connection);
  });
  return reads;
}

async function seed(database: DatabaseHandle): Promise<void> {
  const db = database.db;
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'plans-a', 'A'), (${OTHER}, 'plans-b', 'B')`.execute(db);
  await sql`INSERT INTO products (tenant_id, external_id, sku, name, stock)
    SELECT ${TENANT}::uuid, 'P-' || g, 'S-' || g, 'Product ' || g, g % 7 FROM generate_series(1, 5000) AS g`.execute(db);
  await sql`INSERT INTO products (tenant_id, external_id, sku, name)
    SELECT ${OTHER}::uuid, 'P-' || g, 'S-' || g, 'Product ' || g FROM generate_series(1, 300) AS g`.execute(db);
  await sql`INSERT INTO orders (tenant_id, external_id, order_number, status)
    SELECT ${TENANT}::uuid, 'O-' || g, 'N-' || g, 'PENDING' FROM generate_series(1, 3000) AS g`.execute(db);
  await sql`INSERT INTO order_items (tenant_id, order_id, position, product_external_id, product_sku, quantity, product_id)
    SELECT o.tenant_id, o.id, k, p.external_id, p.sku, 1, p.id
    FROM orders o CROSS JOIN generate_series(0, 2) AS k
    JOIN products p ON p.tenant_id = o.tenant_id AND p.external_id = 'P-' || ((substr(o.external_id, 3)::int * 3 + k) % 5000 + 1)`.execute(db);
}

/**
 * A fresh import's first rows with long keys, never analyzed (autovacuum off, so that it stays
 * so): the heap under ten pages, which the planner takes for ten, and the unique indexes of long
 * keys already a level taller than the primary key. Every index leading with tenant_id then reads
 * one estimated row, and the shorter one costs less to descend.
 */
async function seedGrownWithoutStatistics(database: DatabaseHandle): Promise<void> {
  const db = database.db;
  for (const table of BIG_TABLES) await sql.raw(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`).execute(db);
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'plans-a', 'A')`.execute(db);
  await sql`INSERT INTO products (tenant_id, external_id, sku, name)
    SELECT ${TENANT}::uuid, 'CATALOG-WEBSHOP-EU-2026-PRODUCT-' || lpad(g::text, 10, '0'), 'SKU-WAREHOUSE-EU-2026-' || lpad(g::text, 10, '0'), 'Product ' || g
    FROM generate_series(1, ${GROWN_ROWS}::int) AS g`.execute(db);
  await sql`INSERT INTO orders (tenant_id, external_id, order_number, status)
    SELECT ${TENANT}::uuid, 'SALESORDER-WEBSHOP-EU-2026-' || lpad(g::text, 12, '0'), 'ORDER-NUMBER-EU-2026-' || lpad(g::text, 12, '0'), 'PENDING'
    FROM generate_series(1, ${GROWN_ROWS}::int) AS g`.execute(db);
}

describe.skipIf(!usingPostgres)('the generic plans of the named statements (PostgreSQL: PGlite caches no plans)', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  let statements: NamedStatement[];
  const plans: Record<'empty' | 'analyzed' | 'grown', Map<string, string>> = { empty: new Map(), analyzed: new Map(), grown: new Map() };
  let keys: ForeignKey[];
  const checks: Record<'empty' | 'analyzed', Map<string, string>> = { empty: new Map(), analyzed: new Map() };

  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase());
    statements = await namedStatements();
    keys = await foreignKeys(database);
    const planned = [...statements, ...(await functionQueries(database))];
    plans.empty = await genericPlans(database, planned);
    checks.empty = await foreignKeyChecks(database, keys);
    await seed(database);
    await sql`ANALYZE`.execute(database.db);
    plans.analyzed = await genericPlans(database, planned);
    checks.analyzed = await foreignKeyChecks(database, keys);
    const grown = await openTestDatabase();
    try {
      await seedGrownWithoutStatistics(grown.database);
      plans.grown = await genericPlans(grown.database, [...statements, ...(await functionQueries(grown.database))]);
    } finally {
      await grown.drop();
    }
  }, 120_000);
  afterAll(() => drop?.());

  it('cover every named statement, and the queries of the functions listed', () => {
    expect(statements.map((s) => s.name).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect([...plans.empty.keys()].filter((name) => /_query\d+$/.test(name)).sort()).toEqual(functionQueryNames.sort());
  });

  const described = {
    empty: 'an empty catalog without statistics',
    analyzed: 'an analyzed catalog of thousands',
    grown: 'a catalog and orders of long keys grown without statistics',
  };
  for (const state of ['empty', 'analyzed', 'grown'] as const) {
    it(`read by the index of the key they name, on ${described[state]}`, () => {
      const wrong: string[] = [];
      for (const [name, plan] of plans[state]) {
        const { indexes, scans } = readsOf(plan);
        const expected = new Set(EXPECTED[name] ?? expectedOfFunctionQuery(name));
        const unexpected = [...indexes].filter((index) => !expected.has(index));
        const missing = [...expected].filter((index) => !indexes.has(index));
        const badScans = scans.filter((scan) => KNOWN_SCANS[name] !== scan);
        // A known scan replaces the index it stands for.
        const excused = scans.some((scan) => KNOWN_SCANS[name] === scan);
        if (unexpected.length > 0 || (!excused && missing.length > 0) || badScans.length > 0) {
          wrong.push(`${name}: reads by [${[...indexes].join(', ')}]${scans.length ? `, ${scans.join(', ')}` : ''}; expected [${[...expected].join(', ')}]\n${plan}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  for (const state of ['empty', 'analyzed'] as const) {
    // A new order's lines are checked against their order this way, one check per line: read by a
    // listing index (orders_by_updated won the tie on a fresh schema), each check read all of the
    // tenant's orders (migration 025).
    it(`check each foreign key by the key it references, on an ${state === 'empty' ? 'empty schema without statistics' : 'analyzed catalog of thousands'}`, () => {
      expect(keys.length).toBeGreaterThan(0);
      // A scan of a small analyzed table (the tenants, a tenant's webhooks) is the planner's right
      // choice; another index than the key, or a scan of a big table, is not.
      const wrong = keys
        .filter((fk) => {
          const read = checks[state].get(fk.name)!;
          return read !== fk.key && (!/^(Seq|Tid) Scan$/.test(read) || BIG_TABLES.has(fk.table));
        })
        .map((fk) => `${fk.name}: reads ${fk.table} by ${checks[state].get(fk.name)}, not ${fk.key}`);
      expect(wrong).toEqual([]);
    });
  }

  it('never read products_by_update or orders_by_updated/orders_by_created for a key', () => {
    for (const plan of [...plans.empty.values(), ...plans.analyzed.values()]) {
      expect(plan).not.toMatch(/products_by_update|orders_by_updated|orders_by_created/);
    }
  });
});
