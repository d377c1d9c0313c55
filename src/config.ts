import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** A second listener on HOST serving GET /metrics without the admin token; unset: none. */
  metricsPort?: number | undefined;
  /** Unset: the embedded PostgreSQL (PGlite) under `dataDir`. */
  databaseUrl: string | undefined;
  /** Connections of this process's PostgreSQL pool (PICKPORT_DATABASE_POOL_SIZE, default 20); unused by the embedded database. */
  databasePoolSize?: number;
  redisUrl: string | undefined;
  /** Put before every Redis key (deployments or test runs sharing one Redis); default `pickport:`. */
  redisKeyPrefix?: string;
  /** Per-key rate limits (docs/limits.md); default true. Off only to measure their cost. */
  rateLimiting?: boolean;
  adminToken: string;
  dataDir: string;
  /** 32 bytes for AES-256-GCM encryption of secrets at rest. */
  secretKey: Buffer;
  nodeEnv: 'development' | 'production' | 'test';
  logLevel: string;
  trustProxy: boolean;
  /** Runs the webhook delivery worker inside `serve`. */
  runWorker: boolean;
  webhookTimeoutMs: number;
  webhookRetryDelaysMs: number[];
  /**
   * Lets webhooks reach private, loopback and other non-public addresses (local development,
   * tests); default false: a tenant must not make the service call into its own network.
   */
  webhookAllowPrivate: boolean;
  /**
   * Days events, settled delivery attempts and dead letters are kept (PICKPORT_RETENTION_DAYS,
   * default 30); unset (`off`): kept forever.
   */
  retentionDays?: number;
  /**
   * Marks the console's session cookie Secure (sent over HTTPS only): PICKPORT_COOKIE_SECURE,
   * default true when NODE_ENV=production. Off only where the console is reached over plain HTTP.
   */
  cookieSecure: boolean;
  /**
   * Shared buffers of the embedded database in MB (PICKPORT_EMBEDDED_BUFFERS_MB, default 16). All
   * of it is resident from the start; ignored with DATABASE_URL.
   */
  embeddedBuffersMb?: number;
  /** The floor planner's threads, queue, deadline and priority (PLANNER_THREADS, PLANNER_QUEUE, PLANNER_DEADLINE_MS, PLANNER_NICE); see `plannerSettings`. */
  planner?: PlannerSettings;
  /**
   * Where traces go (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT) and the
   * service's name in them; unset: no tracing, and nothing of the OpenTelemetry SDK is loaded.
   */
  tracing?: TracingSettings | undefined;
}

export interface TracingSettings {
  /** The OTLP/HTTP traces URL spans are POSTed to (`…/v1/traces`). */
  endpoint: string;
  /** `service.name` of the spans: OTEL_SERVICE_NAME, else the one in OTEL_RESOURCE_ATTRIBUTES, else `pickport`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (`key=value,…`, values percent-decoded), added to every span's resource. */
  resourceAttributes: Record<string, string>;
}

/**
 * Tracing from the standard OpenTelemetry variables (docs/operations.md, Traces): on only when an
 * OTLP endpoint is set, and not with OTEL_SDK_DISABLED=true. OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
 * the traces URL as it is; OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base, `/v1/traces` added.
 */
export function tracingSettings(env: Env): TracingSettings | undefined {
  if (boolean(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const tracesEndpoint = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  const baseEndpoint = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const endpoint = tracesEndpoint ?? (baseEndpoint === undefined ? undefined : `${baseEndpoint.replace(/\/+$/, '')}/v1/traces`);
  if (endpoint === undefined) return undefined;
  const resourceAttributes: Record<string, string> = {};
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new ConfigError(`OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas, got "${pair.trim()}"`);
    try {
      resourceAttributes[decodeURIComponent(pair.slice(0, equals).trim())] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_RESOURCE_ATTRIBUTES has a badly percent-encoded pair: "${pair.trim()}"`);
    }
  }
  const serviceName = env.OTEL_SERVICE_NAME || resourceAttributes['service.name'] || 'pickport';
  return { endpoint, serviceName, resourceAttributes };
}

export interface PlannerSettings {
  /** Threads running routes, plans of carts and slotting replays: default the machine's cores less one, at least 1. */
  threads: number;
  /** Tasks waiting for a thread, at most: past it a route gets the quick walk, other planning 503. */
  queue: number;
  /** How long a request's planning may take, in ms: past it the search answers with the best walk found. */
  deadlineMs: number;
  /**
   * The planner threads' nice value (0 to 19, default 10): above the request thread's 0, so that
   * when they compete for a core, requests run first.
   */
  nice: number;
}

/** The planner's settings from the environment (docs/operations.md, The planner). */
export function plannerSettings(env: Env): PlannerSettings {
  const threads = integer(env, 'PLANNER_THREADS', Math.max(1, availableParallelism() - 1), 1, 256);
  return {
    threads,
    queue: integer(env, 'PLANNER_QUEUE', 64, 1, 100_000),
    deadlineMs: integer(env, 'PLANNER_DEADLINE_MS', 2_000, 10, 600_000),
    nice: integer(env, 'PLANNER_NICE', 10, 0, 19),
  };
}

/**
 * A start (or a CLI call) that cannot go on: the one line an operator reads, naming the setting
 * involved, and the exit code (2 when a setting must change, 1 when what it names did not answer).
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** A setting that is invalid or names something that does not exist; exit code 2. */
export class ConfigError extends StartupError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Default shared buffers of the embedded database, MB (docs/operations.md, "Memory"). */
export const EMBEDDED_BUFFERS_MB = 16;

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DEFAULT_RETRY_DELAYS_MS = [60_000, 15 * 60_000, 60 * 60_000, 3 * 60 * 60_000, 6 * 60 * 60_000];

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** PICKPORT_RETENTION_DAYS: whole days, or `off` to keep everything. */
function retentionDays(env: Env): number | undefined {
  if (env.PICKPORT_RETENTION_DAYS?.toLowerCase() === 'off') return undefined;
  return integer(env, 'PICKPORT_RETENTION_DAYS', 30, 1, 36_500);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function retryDelays(env: Env): number[] {
  const raw = env.PICKPORT_WEBHOOK_RETRY_DELAYS_MS;
  if (raw === undefined || raw === '') return DEFAULT_RETRY_DELAYS_MS;
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new ConfigError(`PICKPORT_WEBHOOK_RETRY_DELAYS_MS must be comma-separated milliseconds, got "${raw}"`);
  }
  return delays;
}

/** Where the embedded database lives: `pglite/` in the data directory. */
export const embeddedDatabaseDir = (config: Pick<Config, 'dataDir'>) => join(config.dataDir, 'pglite');

export const dataDirError = (dataDir: string, error: unknown) =>
  new ConfigError(`PICKPORT_DATA_DIR (${dataDir}) cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);

/** Reads a secret from the data directory, creating it on first use; `created` says whether it is new. */
function persistedSecret(dataDir: string, file: string, make: () => string): { value: string; created: boolean } {
  const path = join(dataDir, file);
  try {
    return { value: readFileSync(path, 'utf8').trim(), created: false };
  } catch (error) {
    // Nothing to read (ENOTDIR: a file stands where a folder should be; writing reports it).
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new ConfigError(`PICKPORT_DATA_DIR (${dataDir}): cannot read ${file} (${code})`);
  }
  const value = make();
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, `${value}\n`, { mode: 0o600 });
  } catch (error) {
    throw dataDirError(dataDir, error);
  }
  return { value, created: true };
}

/** The embedded database lives under the data directory: refuse to start where it cannot be written. */
function writableDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
  } catch (error) {
    throw dataDirError(dataDir, error);
  }
}

/** PICKPORT_SECRET_KEY when set; undefined means it comes from the data directory. */
function secretKeyFromEnv(env: Env, production: boolean, databaseUrl: string | undefined): Buffer | undefined {
  const raw = env.PICKPORT_SECRET_KEY;
  if (raw) {
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('PICKPORT_SECRET_KEY must be 32 bytes, as 64 hex digits or base64');
    return key;
  }
  if (production && databaseUrl) {
    throw new ConfigError('PICKPORT_SECRET_KEY is required in production with DATABASE_URL (every instance must share it)');
  }
  return undefined;
}

export interface LoadedConfig {
  config: Config;
  /** Set when the admin token was generated now, so the caller can print it once. */
  generatedAdminToken?: string;
}

/**
 * Turns the environment into a typed config; throws ConfigError with a readable message on a bad
 * value. Every setting is checked before anything is written to the data directory, so a refused
 * start leaves a fresh directory empty and the next good start still shows the generated token.
 * `lockDataDir` takes the embedded database's data directory before anything is written to it, so a
 * second process on it refuses without touching it.
 */
export function loadConfig(env: Env = process.env, { lockDataDir }: { lockDataDir?: (dataDir: string) => void } = {}): LoadedConfig {
  const nodeEnv = (env.NODE_ENV || 'development') as Config['nodeEnv'];
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${env.NODE_ENV}"`);
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const dataDir = resolve(env.PICKPORT_DATA_DIR || './data');

  const adminToken = env.ADMIN_TOKEN || undefined;
  if (env.ADMIN_TOKEN !== undefined && env.ADMIN_TOKEN.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  }
  if (!adminToken && databaseUrl) throw new ConfigError('ADMIN_TOKEN is required with DATABASE_URL (every instance must share it)');

  const port = integer(env, 'PORT', 3000, 0, 65535);
  const metricsPort = env.PICKPORT_METRICS_PORT ? integer(env, 'PICKPORT_METRICS_PORT', 0, 0, 65535) : undefined;
  if (metricsPort === port && port !== 0) throw new ConfigError(`PICKPORT_METRICS_PORT must differ from PORT (both are ${port})`);
  const settings = {
    port,
    metricsPort,
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    databasePoolSize: integer(env, 'PICKPORT_DATABASE_POOL_SIZE', 20, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.PICKPORT_REDIS_KEY_PREFIX || 'pickport:',
    rateLimiting: boolean(env, 'PICKPORT_RATE_LIMITING', true),
    dataDir,
    nodeEnv,
    logLevel,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    runWorker: !boolean(env, 'PICKPORT_NO_WORKER', false),
    webhookTimeoutMs: integer(env, 'PICKPORT_WEBHOOK_TIMEOUT_MS', 10_000, 1, 120_000),
    webhookRetryDelaysMs: retryDelays(env),
    webhookAllowPrivate: boolean(env, 'PICKPORT_WEBHOOK_ALLOW_PRIVATE', false),
    retentionDays: retentionDays(env),
    cookieSecure: boolean(env, 'PICKPORT_COOKIE_SECURE', nodeEnv === 'production'),
    embeddedBuffersMb: integer(env, 'PICKPORT_EMBEDDED_BUFFERS_MB', EMBEDDED_BUFFERS_MB, 1, 1024),
    planner: plannerSettings(env),
    tracing: tracingSettings(env),
  };
  const secretKey = secretKeyFromEnv(env, nodeEnv === 'production', databaseUrl);

  // Every setting passed: only now may the data directory be written.
  if (!databaseUrl) {
    writableDataDir(dataDir);
    lockDataDir?.(dataDir);
  }
  const persistedToken = adminToken
    ? { value: adminToken, created: false }
    : persistedSecret(dataDir, 'admin-token', () => `adm_${randomBytes(24).toString('base64url')}`);
  const config: Config = {
    ...settings,
    adminToken: persistedToken.value,
    secretKey: secretKey ?? Buffer.from(persistedSecret(dataDir, 'secret-key', () => randomBytes(32).toString('hex')).value, 'hex'),
  };
  return persistedToken.created ? { config, generatedAdminToken: persistedToken.value } : { config };
}
