import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, serviceMetrics } from './app';
import { ConfigError, embeddedDatabaseDir, StartupError, type Config } from './config';
import { openDatabase, openPGliteLater, type DatabaseHandle } from './db';
import { migrate } from './db/migrate';
import { startHousekeeping } from './housekeeping';
import { startMetricsListener, type Metrics, type MetricsListener } from './http/metrics';
import { startTracing } from './http/tracing';
import { FIRST_CLAIM_DELAY_MS, startDeliveryWorker } from './webhooks/worker';

/** How long start waits for PostgreSQL to accept a connection before giving up. */
const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

/** DATABASE_URL as it can be printed: the password and the query string (which may hold one) left out. */
export function printableDatabaseUrl(raw: string): string {
  const url = new URL(raw);
  const user = url.username ? `${url.username}${url.password ? ':***' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}`;
}

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split('\n')[0];

/** Why PostgreSQL refused or did not answer, as a StartupError naming DATABASE_URL. */
function databaseError(databaseUrl: string, error: unknown): StartupError {
  const { code, message } = error as { code?: string; message?: string };
  const at = `the database at DATABASE_URL (${printableDatabaseUrl(databaseUrl)})`;
  switch (code) {
    case 'ECONNREFUSED':
      return new StartupError(`Cannot connect to ${at}: connection refused`);
    case 'ETIMEDOUT':
      return new StartupError(`Cannot connect to ${at}: no answer`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new StartupError(`Cannot connect to ${at}: ${code}`);
    case 'ENOTFOUND':
      return new ConfigError(`Cannot connect to ${at}: host not found`);
    case '3D000': // invalid_catalog_name: the database does not exist
    case '28P01': // invalid_password
    case '28000': // invalid_authorization_specification
      return new ConfigError(`Cannot use ${at}: ${message}`);
    default:
      return new StartupError(`Cannot connect to ${at}: ${firstLine(error)}`);
  }
}

/** One connection before the pool opens, so an unreachable or missing database fails start in bounded time with one line. */
async function checkDatabaseAnswers(databaseUrl: string): Promise<void> {
  // Loaded here, not at the top: the embedded default never needs node-postgres.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  // An error after connect (the server going away meanwhile) is reported by the query that meets it.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    const timedOut = /timeout/i.test((error as Error).message) ? { code: 'ETIMEDOUT' } : error;
    throw databaseError(databaseUrl, timedOut);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Opens the configured database (PGlite under the data directory unless DATABASE_URL is set) and migrates it. */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  const { database, ready } = await openConfiguredDatabaseLater(config);
  await ready;
  return database;
}

/**
 * The configured database's handle, and `ready` once it is open and migrated. The embedded engine's
 * handle comes at once, its engine opening behind it, so that the service builds its app meanwhile
 * (on a first start, while the child creates the directory); a PostgreSQL server's after it has
 * answered, opened and migrated. If opening or migrating fails, `ready` rejects with a
 * StartupError, the database closed.
 */
export async function openConfiguredDatabaseLater(config: Config): Promise<{ database: DatabaseHandle; ready: Promise<void> }> {
  const where = config.databaseUrl
    ? `the database at DATABASE_URL (${printableDatabaseUrl(config.databaseUrl)})`
    : `the embedded database in PICKPORT_DATA_DIR (${embeddedDatabaseDir(config)})`;
  const cannotOpen = (error: unknown) => new StartupError(`Cannot open ${where}: ${firstLine(error)}`);
  let database: DatabaseHandle;
  let opened: Promise<void>;
  if (config.databaseUrl) {
    await checkDatabaseAnswers(config.databaseUrl);
    try {
      database = await openDatabase({ url: config.databaseUrl, poolSize: config.databasePoolSize });
    } catch (error) {
      throw cannotOpen(error);
    }
    opened = Promise.resolve();
  } else {
    ({ database, opened } = openPGliteLater({ dataDir: embeddedDatabaseDir(config), sharedBuffersMb: config.embeddedBuffersMb }));
  }
  const ready = (async () => {
    try {
      await opened;
    } catch (error) {
      await database.close();
      throw cannotOpen(error);
    }
    try {
      await migrate(database.db);
    } catch (error) {
      await database.close();
      throw new StartupError(`Cannot migrate ${where}: ${firstLine(error)}`);
    }
  })();
  return { database, ready };
}

/** Why the server could not listen, as a StartupError naming PORT and HOST. */
function listenError(config: Config, error: unknown): StartupError {
  const code = (error as NodeJS.ErrnoException).code;
  const at = `PORT ${config.port} on HOST ${config.host}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`Cannot listen on ${at}: the port is already in use`);
    case 'EACCES':
      return new ConfigError(`Cannot listen on ${at}: permission denied (ports below 1024 need privileges)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ConfigError(`Cannot listen on ${at}: HOST is not an address of this machine`);
    default:
      return new StartupError(`Cannot listen on ${at}: ${firstLine(error)}`);
  }
}

export interface RunningServer {
  app: FastifyInstance;
  address: string;
  /** The PICKPORT_METRICS_PORT listener's address, when it is set. */
  metricsAddress?: string;
  /** Stops taking requests and the delivery worker, lets those in flight finish, then closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  // Before the database opens and the app is built: both are traced only if tracing runs by then.
  const tracing = config.tracing ? await startTracing(config.tracing, pino({ level: config.logLevel })) : undefined;
  const { database, ready } = await openConfiguredDatabaseLater(config);
  // The app is built while the database opens; nothing in it queries before it is ready.
  const [built, opened] = await Promise.allSettled([buildApp({ config, database }), ready]);
  if (opened.status === 'rejected') {
    if (built.status === 'fulfilled') await built.value.close();
    throw opened.reason;
  }
  if (built.status === 'rejected') {
    await database.close();
    throw built.reason;
  }
  const app = built.value;
  const worker = config.runWorker ? await startDeliveryWorker({ database, config, log: app.log, metrics: app.metrics, firstClaimDelayMs: FIRST_CLAIM_DELAY_MS }) : undefined;
  const housekeeping = config.runWorker ? startHousekeeping({ db: database.db, config, log: app.log }) : undefined;
  let metricsListener: MetricsListener | undefined;
  app.addHook('onClose', async () => {
    await metricsListener?.close();
    // The worker records its attempts in flight before the database goes away.
    await Promise.all([worker?.stop(), housekeeping?.stop()]);
    await database.close();
    // Last: the spans of all the above are sent before the process exits.
    await tracing?.shutdown();
  });
  try {
    const address = await app.listen({ port: config.port, host: config.host });
    metricsListener = await listenForMetrics(config, app.metrics, app.log);
    return { app, address, ...(metricsListener ? { metricsAddress: metricsListener.address } : {}), close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error instanceof StartupError ? error : listenError(config, error);
  }
}

/** `pickport worker`: webhook deliveries and housekeeping without the HTTP API. */
export async function startWorker(config: Config): Promise<{ log: FastifyInstance['log']; close(): Promise<void> }> {
  const log = pino({ level: config.logLevel });
  const tracing = await startTracing(config.tracing, log);
  const database = await openConfiguredDatabase(config);
  const metrics = serviceMetrics(database);
  const worker = await startDeliveryWorker({ database, config, log, metrics });
  const housekeeping = startHousekeeping({ db: database.db, config, log });
  const stop = () => Promise.all([worker.stop(), housekeeping.stop()]);
  const metricsListener = await listenForMetrics(config, metrics, log).catch(async (error: unknown) => {
    await stop();
    await database.close();
    throw error;
  });
  log.info({ metrics: metricsListener?.address }, 'webhook delivery worker started');
  return {
    log,
    async close() {
      await metricsListener?.close();
      await stop();
      await database.close();
      await tracing?.shutdown();
    },
  };
}

/** The PICKPORT_METRICS_PORT listener, when that is set. */
export async function listenForMetrics(config: Config, metrics: Metrics, log: FastifyInstance['log']): Promise<MetricsListener | undefined> {
  if (config.metricsPort === undefined) return undefined;
  try {
    return await startMetricsListener(metrics, config.metricsPort, config.host, log);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const at = `PICKPORT_METRICS_PORT ${config.metricsPort} on HOST ${config.host}`;
    if (code === 'EADDRINUSE') throw new StartupError(`Cannot listen on ${at}: the port is already in use`);
    throw new ConfigError(`Cannot listen on ${at}: ${code ?? firstLine(error)}`);
  }
}

/** Closes `close` once on SIGTERM or SIGINT, and exits when it is done. */
export function closeOnSignals(log: FastifyInstance['log'], close: () => Promise<void>): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down: finishing requests in flight');
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
