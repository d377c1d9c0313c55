import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { buildApp, PUBLIC_PREFIX } from '../../src/app';
import type { Config } from '../../src/config';
import { openDatabase, quoteIdentifier, type DatabaseHandle } from '../../src/db';
import { pgliteDialect } from '../../src/db/pglite-dialect';
import type { Database } from '../../src/db/schema';
import { migrate } from '../../src/db/migrate';
import type { Clock } from '../../src/http/rate-limit';
import { PERMISSIONS, type Permission } from '../../src/tenancy/permissions';
import type { AnswerTo, Method } from './answers';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const usingPostgres = Boolean(process.env.DATABASE_URL);

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    // Each context its own Redis keys: parallel test files and runs never share a window.
    redisKeyPrefix: `test-${randomUUID()}:`,
    adminToken: ADMIN_TOKEN,
    dataDir: join(tmpdir(), `pickport-test-${randomUUID()}`),
    secretKey: randomBytes(32),
    nodeEnv: 'test',
    logLevel: 'silent',
    trustProxy: false,
    runWorker: false,
    webhookTimeoutMs: 2_000,
    webhookRetryDelaysMs: [50, 100, 150, 200, 250],
    // The receivers of the webhook tests listen on loopback.
    webhookAllowPrivate: true,
    cookieSecure: false,
    ...overrides,
  };
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
}

/** An answer of the request `method path`, its body typed as the OpenAPI document says (answers.ts). */
export type TypedResponse<M extends Method, P extends string> = TestResponse<AnswerTo<M, P>>;

/** Sends a request; the body is parsed when the answer is JSON. Its type is the caller's to give. */
export async function send<T = unknown>(app: FastifyInstance, options: InjectOptions): Promise<TestResponse<T>> {
  const response = await app.inject(options);
  const isJson = String(response.headers['content-type'] ?? '').includes('json');
  return { status: response.statusCode, headers: response.headers, body: (isJson ? response.json() : response.body) as T };
}

/** A caller of the public API holding one key. Paths are relative to the public base URL. */
export class ApiClient {
  constructor(
    private readonly app: FastifyInstance,
    readonly key: string,
    private readonly extra: Partial<InjectOptions> = {},
  ) {}

  request<M extends Method, P extends string>(
    method: M,
    path: P,
    options: { body?: unknown; headers?: Record<string, string>; query?: Record<string, string> } = {},
  ): Promise<TypedResponse<M, `${typeof PUBLIC_PREFIX}${P}`>> {
    return send(this.app, {
      ...this.extra,
      method,
      url: `${PUBLIC_PREFIX}${path}`,
      headers: { authorization: `Bearer ${this.key}`, ...options.headers },
      ...(options.query ? { query: options.query } : {}),
      ...(options.body !== undefined ? { payload: options.body as InjectOptions['payload'] } : {}),
    });
  }
  get<P extends string>(path: P, query?: Record<string, string>) {
    return this.request('GET', path, query ? { query } : {});
  }
  post<P extends string>(path: P, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { body, ...(headers ? { headers } : {}) });
  }
  patch<P extends string>(path: P, body?: unknown) {
    return this.request('PATCH', path, { body });
  }
  delete<P extends string>(path: P) {
    return this.request('DELETE', path);
  }
}

export interface TestTenant {
  id: string;
  slug: string;
  key: string;
  keyId: string;
  api: ApiClient;
}

export interface KeyOptions {
  permissions?: Permission[];
  rateLimitPerMinute?: number;
  dailyLimit?: number;
  allowedIps?: string[];
  expiresAt?: string;
}

/** Limits no test file reaches, for tests that are not about rate limiting. */
export const UNLIMITED: KeyOptions = { rateLimitPerMinute: 1_000_000, dailyLimit: 1_000_000_000 };

export interface TestContext {
  app: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  /** Calls the operator API (or the warehouse API) with the admin token. */
  admin<M extends Method, P extends string>(method: M, url: P, body?: unknown): Promise<TypedResponse<M, P>>;
  /** A new tenant with one key (every permission unless told otherwise). */
  tenant(keyOptions?: KeyOptions): Promise<TestTenant>;
  /** Another key for an existing tenant. */
  issueKey(slug: string, keyOptions?: KeyOptions): Promise<{ key: string; id: string; api: ApiClient }>;
  close(): Promise<void>;
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

/**
 * A migrated embedded database as a dump, made once per version of the migrations and shared by
 * every test file through the temp directory: loading it is several times faster than initdb.
 */
async function migratedPGliteTemplate(): Promise<Blob> {
  const hash = createHash('sha256');
  for (const name of (await readdir(MIGRATIONS_DIR)).sort()) hash.update(name).update(await readFile(join(MIGRATIONS_DIR, name)));
  const path = join(tmpdir(), `pickport-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
  try {
    return new Blob([await readFile(path)]);
  } catch {
    const client = await PGlite.create();
    const db = new Kysely<Database>({ dialect: pgliteDialect(client) });
    await migrate(db);
    const dump = await client.dumpDataDir('none');
    await db.destroy();
    const partial = `${path}.${randomUUID()}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, path);
    return dump;
  }
}

/** Opens a fresh database for one test file: its own PGlite, or its own schema on DATABASE_URL. */
export async function openTestDatabase(): Promise<{ database: DatabaseHandle; drop(): Promise<void> }> {
  const schema = `test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const url = process.env.DATABASE_URL;
  const database = url
    ? await openDatabase({ url, schema, poolSize: 10 })
    : await openDatabase({ loadDataDir: await migratedPGliteTemplate() });
  if (url) {
    await sql.raw(`CREATE SCHEMA ${quoteIdentifier(schema)}`).execute(database.db);
    await migrate(database.db);
  }
  return {
    database,
    async drop() {
      if (url) await sql.raw(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`).execute(database.db).catch(() => {});
      await database.close();
    },
  };
}

/**
 * A running app on a fresh database, with helpers to make tenants and keys. `clock` replaces the
 * time rate limits and idempotency expiry read (in memory and on Redis).
 */
export async function createTestContext(overrides: Partial<Config> = {}, { clock }: { clock?: Clock } = {}): Promise<TestContext> {
  const { database, drop } = await openTestDatabase();
  const config = testConfig(overrides);
  const app = await buildApp({ config, database, logger: false, ...(clock ? { clock } : {}) });
  await app.ready();

  const admin = <M extends Method, P extends string>(method: M, url: P, body?: unknown) =>
    send<AnswerTo<M, P>>(app, {
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(body !== undefined ? { payload: body as InjectOptions['payload'] } : {}),
    });

  async function issueKey(slug: string, keyOptions: KeyOptions = {}) {
    const response = await admin('POST', `/api/v1/admin/tenants/${slug}/api-keys`, {
      permissions: [...PERMISSIONS],
      ...keyOptions,
    });
    if (response.status !== 201) throw new Error(`issuing a key failed: ${JSON.stringify(response.body)}`);
    const { key, id } = response.body.data;
    return { key, id, api: new ApiClient(app, key) };
  }

  let tenants = 0;
  async function tenant(keyOptions: KeyOptions = {}): Promise<TestTenant> {
    const slug = `tenant-${++tenants}-${randomUUID().slice(0, 8)}`;
    const created = await admin('POST', '/api/v1/admin/tenants', { slug, name: `Tenant ${tenants}` });
    if (created.status !== 201) throw new Error(`creating a tenant failed: ${JSON.stringify(created.body)}`);
    const { key, id: keyId, api } = await issueKey(slug, keyOptions);
    return { id: created.body.data.id, slug, key, keyId, api };
  }

  return {
    app,
    database,
    config,
    admin,
    tenant,
    issueKey,
    async close() {
      await app.close();
      await drop();
    },
  };
}

/**
 * Two tenants with full keys, for isolation tests: whatever A writes, B must neither see nor
 * change, even under the same externalId or sku.
 */
export async function twoTenants(ctx: TestContext): Promise<[TestTenant, TestTenant]> {
  return [await ctx.tenant(), await ctx.tenant()];
}
