import type { FastifyPluginAsync } from 'fastify';
import { makeBackup } from '../db/backup';
import { conflict } from '../http/errors';

/** What an operator of a service on PostgreSQL is told to use instead of `pickport backup`. */
export const USE_PG_DUMP =
  'This service runs on PostgreSQL (DATABASE_URL): back it up with pg_dump -Fc and restore with pg_restore (docs/operations.md, Backups); pickport backup is for the embedded database';

/**
 * Operator API: `GET /backup`, a consistent snapshot of the embedded database while the service
 * runs and writes go on (db/backup.ts), as the backup file `pickport backup` writes. Only the
 * process holding the data directory can read it: no other may open it while this one runs.
 * Left out of the OpenAPI document: its answer is a file for the CLI, not JSON for a client.
 */
export const backupRoutes: FastifyPluginAsync = async (app) => {
  // No HEAD route: it would make a backup to send nothing of it.
  app.get('/backup', { schema: { hide: true }, exposeHeadRoute: false }, async (request, reply) => {
    const engine = app.database.embeddedEngine;
    if (!engine) throw conflict(USE_PG_DUMP);
    const started = Date.now();
    const { bytes, manifest } = await makeBackup(await engine(), app.config.secretKey);
    request.log.info({ bytes: bytes.length, ms: Date.now() - started }, 'backup made');
    const name = `pickport-${manifest.createdAt.replace(/[:.]/g, '-')}.tar`;
    return reply.type('application/x-tar').header('content-disposition', `attachment; filename="${name}"`).send(bytes);
  });
};
