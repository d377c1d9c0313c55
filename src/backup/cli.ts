import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { ADMIN_PREFIX } from '../api-prefixes';
import { ConfigError, embeddedDatabaseDir, EMBEDDED_BUFFERS_MB, StartupError } from '../config';
import type { BackupManifest } from '../db/backup';
import { lockDataDir } from '../db/data-dir-lock';
import { embeddedSettings } from '../db/pglite-create';
import { defaultToken, serviceAddress } from '../tenancy/cli';

// `pickport backup FILE` and `pickport restore FILE` (docs/operations.md, "Backups"). The engine
// (db/backup.ts, which loads PGlite) is imported only when a command opens a database itself.

const PG_ROUTE = 'with DATABASE_URL, back up PostgreSQL with pg_dump -Fc and restore with pg_restore (docs/operations.md, Backups)';

interface BackupOptions {
  url?: string;
  token?: string;
}

interface RestoreOptions {
  secretKeyFile?: string;
  newSecretKey?: boolean;
}

const env = (name: string) => process.env[name] || undefined;
const dataDirOf = () => resolve(env('PICKPORT_DATA_DIR') ?? './data');
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const causeOf = (error: unknown) => (error as { cause?: { code?: string; message?: string } }).cause;

/** The embedded engine's start settings, as serve has them (PICKPORT_EMBEDDED_BUFFERS_MB). */
function engineSettings(): string[] {
  const raw = env('PICKPORT_EMBEDDED_BUFFERS_MB');
  const mb = raw === undefined ? EMBEDDED_BUFFERS_MB : Number(raw);
  if (!Number.isInteger(mb) || mb < 1 || mb > 1024) throw new ConfigError(`PICKPORT_EMBEDDED_BUFFERS_MB must be an integer from 1 to 1024, got "${raw}"`);
  return embeddedSettings(mb);
}

/** 32 bytes as the service reads them: 64 hex digits (the data directory's file) or base64 (PICKPORT_SECRET_KEY). */
function secretKeyFrom(text: string, where: string): Buffer {
  const raw = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${where} is not a secret key: it must be 32 bytes, as 64 hex digits or base64`);
  return key;
}

/** The secret key `serve` on this data directory runs with: PICKPORT_SECRET_KEY, else the directory's file; null when neither is there yet. */
function secretKeyOf(dataDir: string): { key: Buffer; where: string } | null {
  const fromEnv = env('PICKPORT_SECRET_KEY');
  if (fromEnv) return { key: secretKeyFrom(fromEnv, 'PICKPORT_SECRET_KEY'), where: 'PICKPORT_SECRET_KEY' };
  const file = join(dataDir, 'secret-key');
  return existsSync(file) ? { key: secretKeyFrom(readFileSync(file, 'utf8'), file), where: file } : null;
}

/** Writes `bytes` (or a stream of them) to `file` whole or not at all: a temporary file beside it, synced, checked, then renamed over it. */
async function writeWhole(file: string, chunks: AsyncIterable<Uint8Array> | Uint8Array, check: (bytes: Buffer) => void): Promise<void> {
  const partial = join(dirname(file), `.${randomUUID()}.partial`);
  try {
    const handle = await open(partial, 'wx', 0o600);
    try {
      for await (const chunk of chunks instanceof Uint8Array ? [chunks] : chunks) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    check(await readFile(partial));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof StartupError) throw error;
    // The file system's refusal names its code; anything else cut the bytes off (the service stopped, the connection broke).
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new ConfigError(`Cannot write the backup to ${file} (${code})`);
    throw new StartupError(`The backup was cut off before it was whole, nothing was written to ${file}: ${causeOf(error)?.message ?? (error as Error).message}`);
  }
}

/**
 * Checks a backup's bytes as `restore` will read them; a refusal names `where`, exit code 2 for a
 * file given to restore (another file is needed), 1 for one just received (a retry may do).
 */
async function checked(where: string, Refusal: typeof StartupError = StartupError): Promise<(bytes: Buffer) => { manifest: BackupManifest; database: Buffer }> {
  const { readBackup, BackupFileError } = await import('../db/backup');
  return (bytes) => {
    try {
      return readBackup(bytes);
    } catch (error) {
      if (error instanceof BackupFileError) throw new Refusal(`${where} cannot be restored: ${error.message}`);
      throw error;
    }
  };
}

/** Asks the running service for its snapshot; 'unreachable' when nothing listens at the address. */
async function backupFromService(file: string, base: string, setting: string, token: string): Promise<BackupManifest | 'unreachable'> {
  let url: URL;
  try {
    url = new URL(`${base.replace(/\/$/, '')}${ADMIN_PREFIX}/backup`);
  } catch {
    throw new ConfigError(`${setting} is not a valid URL: "${base}"`);
  }
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    const cause = causeOf(error);
    if (cause?.code === 'ECONNREFUSED') return 'unreachable';
    throw new StartupError(`Cannot reach the Pickport service at ${base} (${setting}): ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  if (!response.ok || !response.body || response.headers.get('content-type') !== 'application/x-tar') {
    const payload = (await response.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
    if (payload?.error) throw new StartupError(`${payload.error.code}: ${payload.error.message}`);
    throw new StartupError(`The service at ${base} (${setting}) answered ${response.status} without a backup: is it the right address, and a Pickport as new as this command?`);
  }
  const check = await checked(`The backup the service at ${base} sent`);
  let manifest: BackupManifest | undefined;
  await writeWhole(file, Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), (bytes) => ({ manifest } = check(bytes)));
  return manifest!;
}

/** No service runs on the data directory: open it here (taking it, as serve would) and dump it. */
async function backupFromDataDir(file: string, asked: string | undefined): Promise<BackupManifest> {
  const dataDir = dataDirOf();
  const engineDir = embeddedDatabaseDir({ dataDir });
  const noService = asked ? `, and no Pickport service answered at ${asked}` : '';
  if (!existsSync(join(engineDir, 'PG_VERSION'))) throw new ConfigError(`PICKPORT_DATA_DIR (${dataDir}) holds no database to back up${noService}`);
  try {
    lockDataDir(dataDir, 'pickport backup');
  } catch (error) {
    if (!(error instanceof StartupError) || !/is in use/.test(error.message)) throw error;
    const holder = error.message.split(';')[0];
    throw new StartupError(`${holder}${noService || ', and no admin token was found to ask it'}: the running service makes the backup, so point --url (or PORT) at the address it listens on${asked ? '' : ' and pass --token (or ADMIN_TOKEN)'}`);
  }
  const settings = engineSettings();
  const { makeBackup } = await import('../db/backup');
  const { PGlite } = await import('@electric-sql/pglite');
  let engine: InstanceType<typeof PGlite>;
  try {
    engine = await PGlite.create(engineDir, { startParams: [...PGlite.defaultStartParams, ...settings] });
  } catch (error) {
    throw new StartupError(`Cannot open the embedded database in PICKPORT_DATA_DIR (${engineDir}): ${String((error as Error)?.message ?? error).split('\n')[0]}`);
  }
  try {
    const { bytes, manifest } = await makeBackup(engine, secretKeyOf(dataDir)?.key ?? null);
    await writeWhole(file, bytes, await checked('The backup just made'));
    return manifest;
  } finally {
    await engine.close();
  }
}

async function backup(fileArgument: string, options: BackupOptions): Promise<void> {
  if (env('DATABASE_URL')) throw new ConfigError(`DATABASE_URL is set: pickport backup is for the embedded database; ${PG_ROUTE}`);
  const file = resolve(fileArgument);
  const { base, setting } = serviceAddress(options);
  // Told where the service is, it must be there; else a data directory where none runs is read directly.
  const explicit = setting !== 'PORT';
  const token = options.token ?? defaultToken();
  if (!token && explicit) throw new ConfigError('No admin token: pass --token, set ADMIN_TOKEN, or run where PICKPORT_DATA_DIR holds one');
  const fromService = token ? await backupFromService(file, base, setting, token) : 'unreachable';
  if (fromService === 'unreachable' && explicit) throw new StartupError(`Cannot reach the Pickport service at ${base} (${setting}): connection refused`);
  const manifest = fromService === 'unreachable' ? await backupFromDataDir(file, token ? `${base} (${setting})` : undefined) : fromService;
  const source = fromService === 'unreachable' ? `PICKPORT_DATA_DIR (${dataDirOf()}), where no service runs,` : `the service at ${base}`;
  console.log(`Backed up ${source} to ${file} (${megabytes(manifest.database.bytes)}, taken ${manifest.createdAt}, secret key ${manifest.secretKeyFingerprint ?? 'unknown'})`);
}

/**
 * Settles which secret key the restored directory runs with, before anything is written: the one
 * the backup names, found in PICKPORT_SECRET_KEY, the directory's `secret-key` or --secret-key-file
 * (written in once the database is restored). Answers the key to write, if any.
 */
function keyForRestore(dataDir: string, manifest: BackupManifest, options: RestoreOptions, fingerprint: (key: Buffer) => string): Buffer | undefined {
  const present = secretKeyOf(dataDir);
  if (options.secretKeyFile && present) {
    throw new ConfigError(`--secret-key-file is given, but ${present.where} is there already and serve would use it: leave out one of the two`);
  }
  const file = options.secretKeyFile && resolve(options.secretKeyFile);
  const given = file ? { key: secretKeyFrom(readFileSync(file, 'utf8'), file), where: file } : present;
  const wanted = manifest.secretKeyFingerprint;
  if (!wanted || options.newSecretKey) return undefined;
  if (!given) {
    throw new ConfigError(
      `This backup's webhook secrets are encrypted with the secret key of fingerprint ${wanted}, which is not here: pass --secret-key-file with that key (the secret-key file of the data directory it was taken from), put it in ${join(dataDir, 'secret-key')} or set PICKPORT_SECRET_KEY; or pass --new-secret-key to restore without it (its webhook secrets then cannot be read)`,
    );
  }
  if (fingerprint(given.key) !== wanted) {
    throw new ConfigError(
      `The secret key in ${given.where} (fingerprint ${fingerprint(given.key)}) is not the one this backup's webhook secrets are encrypted with (fingerprint ${wanted}); give that one, or pass --new-secret-key to restore without it`,
    );
  }
  return file ? given.key : undefined;
}

async function restore(fileArgument: string, options: RestoreOptions): Promise<void> {
  if (env('DATABASE_URL')) throw new ConfigError(`DATABASE_URL is set: pickport restore is for the embedded database; ${PG_ROUTE}`);
  const file = resolve(fileArgument);
  const dataDir = dataDirOf();
  const engineDir = embeddedDatabaseDir({ dataDir });
  const settings = engineSettings();
  const { restoreBackup, holdsDatabase, secretKeyFingerprint } = await import('../db/backup');
  const refuseFull = () => {
    if (holdsDatabase(engineDir)) {
      throw new ConfigError(
        `PICKPORT_DATA_DIR (${dataDir}) already holds a database (${engineDir}); restore into an empty data directory: set PICKPORT_DATA_DIR to another one, or move this one away first`,
      );
    }
  };
  refuseFull();
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new ConfigError(`Cannot read the backup ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const { manifest, database } = (await checked(file, ConfigError))(bytes);
  const keyToWrite = keyForRestore(dataDir, manifest, options, secretKeyFingerprint);
  // Taken as serve takes it: no Pickport process may open the directory while it is written.
  mkdirSync(dataDir, { recursive: true });
  lockDataDir(dataDir, 'pickport restore');
  refuseFull();
  const { tenants } = await restoreBackup(engineDir, database, settings);
  // As the service writes it (config.ts): hex, readable by its owner only.
  if (keyToWrite) await writeFile(join(dataDir, 'secret-key'), `${keyToWrite.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  const notes = [
    `Restored ${file} (taken ${manifest.createdAt} by Pickport ${manifest.serviceVersion}; ${tenants} tenant${tenants === 1 ? '' : 's'}) into PICKPORT_DATA_DIR (${dataDir}); start it with pickport serve.`,
  ];
  if (keyToWrite) notes.push(`Its secret key (fingerprint ${manifest.secretKeyFingerprint}) is in ${join(dataDir, 'secret-key')}.`);
  if (options.newSecretKey && manifest.secretKeyFingerprint) notes.push(`Without the backup's secret key (fingerprint ${manifest.secretKeyFingerprint}), its webhook secrets cannot be read: tenants must rotate them.`);
  if (!env('ADMIN_TOKEN') && !existsSync(join(dataDir, 'admin-token'))) {
    notes.push('The backup holds no admin token: serve generates a new one, unless you copy admin-token from the old data directory or set ADMIN_TOKEN.');
  }
  console.log(notes.join('\n'));
}

/** `backup` and `restore` of the embedded database. */
export function addBackupCommands(program: Command): void {
  program
    .command('backup <file>')
    .description('write a consistent backup of the embedded database to FILE, made by the running service (or from PICKPORT_DATA_DIR when none runs)')
    .option('--url <url>', 'service address (default $PICKPORT_URL or http://127.0.0.1:$PORT)')
    .option('--token <token>', 'admin token (default $ADMIN_TOKEN or the one in the data directory)')
    .action((file: string, options: BackupOptions) => backup(file, options));
  program
    .command('restore <file>')
    .description('restore a backup into PICKPORT_DATA_DIR, which must hold no database; then start pickport serve on it')
    .option('--secret-key-file <path>', "the secret-key file of the data directory the backup was taken from (copied in)")
    .option('--new-secret-key', "restore without the backup's secret key: its webhook secrets cannot be read")
    .action((file: string, options: RestoreOptions) => restore(file, options));
}
