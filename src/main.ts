import { Command } from 'commander';
import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { openConfiguredDatabase, closeOnSignals, startServer } from './server';
import { addOperatorCommands } from './tenancy/cli';
import { startDeliveryWorker } from './webhooks/worker';
import { SERVICE_VERSION } from './version';

function configOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('pickport').version(SERVICE_VERSION).description('Pickport order-picking service');

  program
    .command('serve')
    .description('run the HTTP API (and the webhook delivery worker unless PICKPORT_NO_WORKER=true)')
    .action(async () => {
      const { config, generatedAdminToken } = configOrExit();
      const server = await startServer(config);
      if (generatedAdminToken) {
        console.log(`\nGenerated an admin token (stored in ${config.dataDir}/admin-token; shown once):\n\n  ${generatedAdminToken}\n`);
      }
      closeOnSignals(server.app.log, server.close);
    });

  program
    .command('worker')
    .description('run the webhook delivery worker only (any number may run against one PostgreSQL)')
    .action(async () => {
      const { config } = configOrExit();
      const log = pino({ level: config.logLevel });
      const database = await openConfiguredDatabase(config);
      const worker = await startDeliveryWorker({ database, config, log });
      log.info('webhook delivery worker started');
      closeOnSignals(log, async () => {
        await worker.stop();
        await database.close();
      });
    });

  program
    .command('migrate')
    .description('apply database migrations (also done by serve and worker at start)')
    .action(async () => {
      const { config } = configOrExit();
      const database = await openConfiguredDatabase(config);
      await database.close();
      console.log('Database is up to date');
    });

  addOperatorCommands(program);
  await program.parseAsync(argv);
}
