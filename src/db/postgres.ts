import { Kysely } from 'kysely';
import pg from 'pg';
import { parseNumber, quoteIdentifier, type Database, type DatabaseHandle, type DatabaseOptions } from './handle';
import { nodePostgresDialect } from './postgres-dialect';
import { tracedDialect } from './statement-spans';

// The type OIDs of bigint and numeric, which come back as JS numbers (like on the embedded database).
const INT8 = 20;
const NUMERIC = 1700;

/** A pool on a PostgreSQL server (DATABASE_URL); imported by openDatabase only when one is configured. */
export async function openPostgres(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const connectionOptions = options.schema ? `-c search_path=${options.schema}` : undefined;
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8 || oid === NUMERIC ? parseNumber : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 20,
    // settled.ts looks for this service's running transactions by this name; one per schema, so
    // that test files sharing a database do not hold back each other's listings.
    application_name: options.schema ? `pickport/${options.schema}` : 'pickport',
    types,
    // Queries written one after another go out without waiting for each other's answers: a
    // transaction's BEGIN travels with its first statement, COMMIT with its rider (postgres-dialect.ts).
    pipeline: true,
    ...(connectionOptions ? { options: connectionOptions } : {}),
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // JIT compilation pays off for long analytical queries, not for these short ones; but a statement
  // planned on stale statistics (a catalog growing by its first syncs) looks expensive enough to
  // trigger it, and its compilation then cost many times the read it was for. Set per session
  // rather than as a startup option, which connection poolers refuse.
  pool.on('connect', (client) => {
    client.query('SET jit = off').catch(() => {});
  });
  const listeners = new Set<pg.Client>();
  let closing = false;
  return {
    db: new Kysely<Database>({ dialect: tracedDialect(nodePostgresDialect(pool)) }),
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async listen(channel, onNotify, onLost) {
      // keepAlive: a connection whose peer vanished is noticed, rather than waiting for NOTIFYs forever.
      const client = new pg.Client({ connectionString: url, keepAlive: true });
      let ended = false;
      const lost = () => {
        if (ended) return;
        ended = true;
        listeners.delete(client);
        if (!closing) onLost?.();
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (message) => onNotify(message.payload ?? ''));
      try {
        await client.connect();
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        ended = true;
        await client.end().catch(() => {});
        throw error;
      }
      listeners.add(client);
      return async () => {
        ended = true;
        listeners.delete(client);
        await client.end().catch(() => {});
      };
    },
    async close() {
      closing = true;
      const open = [...listeners];
      listeners.clear();
      await Promise.all(open.map((client) => client.end().catch(() => {})));
      await pool.end();
    },
  };
}
