import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Command } from 'commander';
import { addBackupCommands } from './backup/cli';
import { ConfigError, embeddedDatabaseDir, loadConfig, StartupError, type Config, type LoadedConfig } from './config';
import { lockDataDir } from './db/data-dir-lock';
import { createPGliteDataDir, embeddedSettings } from './db/pglite-create';
import { addUserCommands } from './staff/cli';
import { startMessage } from './start-message';
import { addOperatorCommands } from './tenancy/cli';
import { SERVICE_VERSION } from './version';

/**
 * The service (Fastify, the database drivers, the worker), imported by the commands that run it
 * only: loading it takes longer than all of `--help` and the operator commands, which never use it.
 * On the embedded database's first start, the child process creating its directory
 * (db/pglite-create.ts) is started first, so that loading the service, and building its app, run
 * beside it; opening the engine waits for that child and reports its failure.
 */
async function loadService(config: Config): Promise<typeof import('./server')> {
  if (!config.databaseUrl) void createPGliteDataDir(embeddedDatabaseDir(config), embeddedSettings(config.embeddedBuffersMb)).catch(() => {});
  return import('./server');
}

/**
 * Runs a command that starts from the configuration. An admin token generated for it is shown once
 * the command has started; if it fails to start, the token is removed again, so that the next
 * start generates one and shows it rather than keeping one nobody has seen.
 */
async function startingFrom(command: string, start: (loaded: LoadedConfig) => Promise<void>): Promise<void> {
  // PGlite is one process's database: a second process on its directory would fork it.
  const loaded = loadConfig(process.env, { lockDataDir: (dataDir) => lockDataDir(dataDir, `pickport ${command}`) });
  try {
    await start(loaded);
  } catch (error) {
    if (loaded.generatedAdminToken) rmSync(join(loaded.config.dataDir, 'admin-token'), { force: true });
    throw error;
  }
  if (loaded.generatedAdminToken) {
    console.log(`\nGenerated an admin token (stored in ${loaded.config.dataDir}/admin-token; shown once):\n\n  ${loaded.generatedAdminToken}\n`);
  }
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('pickport').version(SERVICE_VERSION).description('Pickport order-picking service');

  program
    .command('serve')
    .description('run the HTTP API (and the webhook delivery worker unless PICKPORT_NO_WORKER=true)')
    .action(() =>
      startingFrom('serve', async ({ config }) => {
        const { startServer, closeOnSignals } = await loadService(config);
        const server = await startServer(config);
        closeOnSignals(server.app.log, server.close);
        // The port as bound: PORT=0 takes any free one.
        console.log(startMessage(config.host, (server.app.server.address() as AddressInfo).port));
      }),
    );

  program
    .command('worker')
    .description('run the webhook delivery worker only (any number may run against one PostgreSQL)')
    .action(() =>
      startingFrom('worker', async ({ config }) => {
        const { startWorker, closeOnSignals } = await loadService(config);
        const worker = await startWorker(config);
        closeOnSignals(worker.log, worker.close);
      }),
    );

  program
    .command('migrate')
    .description('apply database migrations (also done by serve and worker at start)')
    .action(() =>
      startingFrom('migrate', async ({ config }) => {
        const { openConfiguredDatabase } = await loadService(config);
        const database = await openConfiguredDatabase(config);
        await database.close();
        console.log('Database is up to date');
      }),
    );

  addOperatorCommands(program);
  addBackupCommands(program);
  addUserCommands(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // What an operator can act on is one line and an exit code; anything else is a bug and keeps its stack.
    if (!(error instanceof StartupError)) throw error;
    console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : error.message);
    process.exit(error.exitCode);
  }
}
