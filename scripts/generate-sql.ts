/**
 * Writes the SQL of every named statement (`prepared` in src/db/prepared.ts) as PostgreSQL
 * receives it, parameters as $1, $2, ..., into src/db/queries/<feature>.sql: those statements are
 * composed from fragments of several modules, and a reviewer should read the one that runs. Run it
 * after changing one: `npm run sql:generate`. test/db/queries.test.ts fails while the committed
 * files differ from what the code builds now, or while a call of `prepared` is never reached here.
 *
 * No database: the real functions run against a scripted one (`scriptedDatabase`) that answers
 * each statement with the rows `STEPS` give it (none unless said), and `observePrepared` hands
 * over each statement as it is named, with where it was built. A step only needs to reach its
 * statements: what the code does afterwards with the scripted answers does not matter, so its
 * errors are ignored. Every step runs twice, with other values and numbers of rows, and a name
 * that stood for two texts fails the run.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type { FastifyReply } from 'fastify';
import { insertProducts, upsertBatch } from '../src/catalog/batch';
import { PRODUCT_FIELDS } from '../src/catalog/fields';
import type { ProductInput } from '../src/catalog/schemas';
import { upsertProduct, upsertProductAlone } from '../src/catalog/upsert';
import type { Db } from '../src/db';
import { postgresDialect } from '../src/db/dialect';
import { observePrepared, preparedName } from '../src/db/prepared';
import type { Database } from '../src/db/schema';
import { answerInsert, type IdempotentRequest } from '../src/http/idempotency';
import { createOrderAlone, upsertOrders } from '../src/orders/intake';
import type { OrderInput } from '../src/orders/schemas';

export const REGENERATE = 'npm run sql:generate';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const QUERIES_DIR = join(ROOT, 'src', 'db', 'queries');

type Row = Record<string, unknown>;

/** What the code is made to do to reach some named statements; `v` (0 or 1) varies its values. */
interface Step {
  /** Says what runs the statements, in their reference file. */
  label: string;
  /** Said of its statements too, in their reference file. */
  note?: string;
  run(db: Db, v: number): Promise<unknown>;
  /** The rows the scripted database answers a named statement with; none for the others. */
  answers?: (v: number) => Record<string, Row[]>;
}

// Every value below differs between the two runs (`v`): one written into a statement's text
// rather than bound would give its name two texts, which fails the run.
const TENANT = ['00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002'] as const;
const uuid = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Only what a product requires; `sku` names another product's sku to share it. */
const minimalProduct = (v: number, id: string, sku = id): ProductInput => ({
  externalId: `P-${v}-${id}`,
  sku: `S-${v}-${sku}`,
  name: `Product ${v}-${id}`,
});

/** Every field of PRODUCT_FIELDS sent, a location code among them. */
function fullProduct(v: number, id: string): ProductInput {
  const sample = { text: `x-${v}-${id}`, numeric: 1 + v, boolean: v === 1, jsonb: { note: `${v}-${id}` } } as const;
  const product = Object.fromEntries(PRODUCT_FIELDS.map(({ field, sqlType }) => [field, sample[sqlType]])) as unknown as ProductInput;
  return { ...product, packagings: [{ name: 'case', quantity: 12 }] };
}

/** v + 1 new orders of v + 1 lines each. */
const ordersOf = (v: number): OrderInput[] =>
  range(v + 1).map((i) => ({
    externalId: `O-${v}-${i}`,
    orderNumber: `N-${v}-${i}`,
    items: range(v + 1).map((j) => ({ productExternalId: `P-${v}-${j}`, productSku: `S-${v}-${j}`, quantity: 1 + v })),
  }));

/** The row of an order just inserted, as intake reads it back. */
const insertedOrder = (input: OrderInput, i: number): Row => ({
  id: uuid(100 + i),
  external_id: input.externalId,
  order_number: input.orderNumber,
  status: 'PENDING',
  issues: [],
  has_issues: false,
});

const BY_FIELD_SET = 'one statement per set of fields sent (named by its bits): the required fields and all of them stand for the rest';

/**
 * Each step reaches a family of statements its builders make. The single upsert has one per set
 * of sent fields (2^16 of them, told apart only by their column lists): the required fields and
 * all fields stand for the others, each in a transaction and alone.
 */
export const STEPS: Step[] = [
  ...[
    { fields: 'the fields a product requires', product: minimalProduct },
    { fields: 'every field', product: fullProduct },
  ].flatMap(({ fields, product }): Step[] => [
    {
      label: `POST /products in a transaction (upsertProduct), ${fields}`,
      note: BY_FIELD_SET,
      run: (db, v) => db.transaction().execute((tx) => upsertProduct(tx, TENANT[v]!, product(v, '0'))),
    },
    {
      label: `POST /products alone (upsertProductAlone), ${fields}`,
      note: BY_FIELD_SET,
      run: (db, v) => upsertProductAlone(db, TENANT[v]!, product(v, '0')),
    },
  ]),
  {
    label: 'POST /products/batch of new products with distinct skus (upsertBatch)',
    run: (db, v) =>
      db.transaction().execute((tx) => upsertBatch(tx, TENANT[v]!, range(v + 1).map((i) => minimalProduct(v, `${i}`)), new Map())),
  },
  {
    label: 'POST /products/batch updating a product, another item claiming its sku (upsertBatch)',
    run: (db, v) =>
      db.transaction().execute((tx) =>
        upsertBatch(tx, TENANT[v]!, [minimalProduct(v, '1'), ...range(v + 1).map((i) => minimalProduct(v, `2${i}`, '1'))], new Map()),
      ),
    answers: (v) => ({ batch_lock_named_products: [{ id: uuid(1 + v), external_id: `P-${v}-1`, sku: `S-${v}-1`, stock: v }] }),
  },
  {
    label: 'POST /products/batch of new products, two claiming one sku (upsertBatch)',
    run: (db, v) =>
      db.transaction().execute((tx) => upsertBatch(tx, TENANT[v]!, range(v + 2).map((i) => minimalProduct(v, `${i}`, '0')), new Map())),
  },
  {
    label: "the bench's baseline of a batch (insertProducts)",
    run: (db, v) => insertProducts(db, TENANT[v]!, range(v + 1).map((i) => fullProduct(v, `${i}`))),
  },
  {
    label: 'order intake of new orders (upsertOrders: POST /orders, POST /orders/batch), then again in a transaction holding their product keys',
    run: (db, v) =>
      db.transaction().execute(async (tx) => {
        await upsertOrders(tx, TENANT[v]!, ordersOf(v));
        await upsertOrders(tx, TENANT[v]!, ordersOf(v));
      }),
    answers: (v) => ({ orders_insert_with_items: ordersOf(v).map(insertedOrder) }),
  },
  {
    label: 'POST /orders of a new order alone (createOrderAlone)',
    run: (db, v) => createOrderAlone(db, TENANT[v]!, ordersOf(v)[0]!),
  },
  {
    label: 'a write with an X-Idempotency-Key storing its answer (answerInsert)',
    run: async (db, v) => {
      const request: IdempotentRequest = {
        tenantId: TENANT[v]!,
        apiKeyId: uuid(v + 10),
        key: `key-${v}`,
        fingerprint: `fingerprint-${v}`,
        requestId: `request-${v}`,
        arrivedAt: Date.UTC(2025, 0, 1 + v),
        settled: false,
      };
      const reply = { statusCode: 201 + v, getHeaders: () => ({ 'content-type': 'application/json' }) } as unknown as FastifyReply;
      return answerInsert(db, request, reply, `{"v":${v}}`, Buffer.alloc(32, v));
    },
  },
];

/** A statement named with `prepared`, as PostgreSQL receives it. */
export interface NamedStatement {
  name: string;
  sql: string;
  /** The module and function that called `prepared`: `src/catalog/upsert.ts`, `upsertStatement`. */
  module: string;
  builtBy: string;
  /** `module:line` of that call, to tell which calls were reached. */
  site: string;
  /** The label of the first step that reached it, and its note. */
  reachedBy: string;
  note?: string | undefined;
}

/** A Kysely instance compiling as the service's does, over a database that answers from `answer`. */
function scriptedDatabase(answer: (query: CompiledQuery) => Row[]): Db {
  const connection: DatabaseConnection = {
    executeQuery: async <R>(query: CompiledQuery) => ({ rows: answer(query) as R[] }) satisfies QueryResult<R>,
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('the scripted database does not stream');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {},
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<Database>({ dialect: postgresDialect(() => driver) });
}

/** The frame of a stack that called `prepared` (or `preparedOnce`): its function, module and line. */
function callerOfPrepared(stack: string): { builtBy: string; module: string; site: string } {
  const frames = stack.split('\n').slice(1);
  const inPrepared = (frame: string) => /[\\/]src[\\/]db[\\/]prepared\.ts:/.test(frame);
  const at = frames.findIndex(inPrepared);
  const frame = at >= 0 ? frames.slice(at).find((f) => !inPrepared(f)) : undefined;
  const match = frame && /at (?:async )?(?:(\S+) \()?(?:file:\/\/)?(.+?):(\d+):\d+\)?$/.exec(frame.trim());
  if (!match) throw new Error(`cannot tell where a statement was named from this stack:\n${stack}`);
  const [, fn, path, line] = match;
  const module = relative(ROOT, path!).split(sep).join('/');
  return { builtBy: fn?.replace(/^Object\./, '') ?? '(top level)', module, site: `${module}:${line}` };
}

/** Every named statement the steps reach, by name; throws when a name stands for two texts or a step reaches none. */
export async function namedStatements(): Promise<NamedStatement[]> {
  const statements = new Map<string, NamedStatement>();
  const problems = new Set<string>();
  let answers: Record<string, Row[]> = {};
  let step: Step | undefined;
  let reached = 0;
  const db = scriptedDatabase((query) => answers[preparedName(query.sql) ?? ''] ?? []);
  const stop = observePrepared((name, statement) => {
    const { sql } = statement.compile(db);
    reached++;
    const known = statements.get(name);
    if (known === undefined) {
      statements.set(name, { name, sql, ...callerOfPrepared(new Error().stack ?? ''), reachedBy: step!.label, note: step!.note });
    } else if (known.sql !== sql) {
      const why = 'a value written into the text rather than bound, or a difference its name does not tell';
      problems.add(`${name} stands for two texts (${why}):\n${known.sql}\n---\n${sql}`);
    }
  });
  try {
    for (const v of [0, 1]) {
      for (step of STEPS) {
        answers = step.answers?.(v) ?? {};
        reached = 0;
        let failure = '';
        try {
          await step.run(db, v);
        } catch (error) {
          // The code went on past its named statements with rows it did not expect: see above.
          failure = `: ${String(error)}`;
        }
        if (reached === 0) problems.add(`the step "${step.label}" named no statement${failure}`);
      }
    }
  } finally {
    stop();
  }
  if (problems.size > 0) throw new Error([...problems].join('\n\n'));
  return [...statements.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The calls of `prepared` and `preparedOnce` in src/ (`module:line`), besides their own module. */
export async function preparedCalls(): Promise<string[]> {
  const files = (await readdir(join(ROOT, 'src'), { recursive: true })).filter((file) => file.endsWith('.ts'));
  const calls: string[] = [];
  for (const file of files.sort()) {
    const module = `src/${file.split(sep).join('/')}`;
    if (module === 'src/db/prepared.ts') continue;
    const lines = (await readFile(join(ROOT, module), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (/(?<![\w.])prepared(?:Once)?\(/.test(line) && !/^\s*(\*|\/\/)/.test(line)) calls.push(`${module}:${i + 1}`);
    });
  }
  return calls;
}

const HEADER = (feature: string) => `-- Generated by \`${REGENERATE}\` (scripts/generate-sql.ts): every named statement of src/${feature}/
-- as PostgreSQL receives it, parameters as $1, $2, ... Do not edit.
`;

/** The reference files, by file name: one per feature (the folder under src/ that builds the statements). */
export function render(statements: NamedStatement[]): Map<string, string> {
  const byFeature = new Map<string, NamedStatement[]>();
  for (const statement of statements) {
    const feature = statement.module.split('/')[1]!;
    byFeature.set(feature, [...(byFeature.get(feature) ?? []), statement]);
  }
  const files = new Map<string, string>();
  for (const feature of [...byFeature.keys()].sort()) {
    const entries = byFeature.get(feature)!.map((s) => {
      const comments = [s.name, `built by ${s.builtBy} (${s.module})`, `run by ${s.reachedBy}`, ...(s.note ? [s.note] : [])];
      // The text as sent but for the closing semicolon and the spaces ending lines (where an empty fragment was spliced).
      const text = s.sql.replace(/[ \t]+$/gm, '').trimEnd();
      return `\n${comments.map((line) => `-- ${line}\n`).join('')}${text};\n`;
    });
    files.set(`${feature}.sql`, HEADER(feature) + entries.join(''));
  }
  return files;
}

/** The committed reference files, by file name. */
export async function committed(): Promise<Map<string, string>> {
  const names = (await readdir(QUERIES_DIR).catch(() => [] as string[])).filter((name) => name.endsWith('.sql')).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(QUERIES_DIR, name), 'utf8')] as const)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = render(await namedStatements());
  for (const name of (await committed()).keys()) if (!files.has(name)) await rm(join(QUERIES_DIR, name));
  for (const [name, text] of files) await writeFile(join(QUERIES_DIR, name), text);
  console.log(`wrote ${[...files.keys()].map((name) => `src/db/queries/${name}`).join(', ')}`);
}
