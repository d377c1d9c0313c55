import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import type { Config } from './config';
import { openDatabase, type DatabaseHandle } from './db';
import { migrate } from './db/migrate';
import { startDeliveryWorker } from './webhooks/worker';

/** Opens the configured database (PGlite under the data directory unless DATABASE_URL is set) and migrates it. */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, 'pglite') });
  try {
    await migrate(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

export interface RunningServer {
  app: FastifyInstance;
  address: string;
  /** Stops taking requests and the delivery worker, lets those in flight finish, then closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const database = await openConfiguredDatabase(config);
  const app = await buildApp({ config, database });
  const worker = config.runWorker ? await startDeliveryWorker({ database, config, log: app.log }) : undefined;
  app.addHook('onClose', async () => {
    // The worker records its attempts in flight before the database goes away.
    await worker?.stop();
    await database.close();
  });
  const address = await app.listen({ port: config.port, host: config.host });
  return { app, address, close: () => app.close() };
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
