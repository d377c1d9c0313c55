import { createHash, createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { SERVICE_VERSION } from '../version';

// Backups of the embedded database (docs/operations.md, "Backups"). A backup file is a tar of two
// entries: `pickport-backup.json` (the manifest below) and `pglite.tar.gz`, the engine's data
// directory as PGlite's dumpDataDir() writes it and its loadDataDir reads it back. It holds the
// database only: not the secret key nor the admin token, which live beside the database in the
// data directory; the manifest names the secret key by a fingerprint, so that a restore can tell
// whether the key it will run with reads the backup's webhook secrets.

export const MANIFEST_ENTRY = 'pickport-backup.json';
export const DATABASE_ENTRY = 'pglite.tar.gz';

export interface BackupManifest {
  format: 'pickport-backup';
  version: 1;
  createdAt: string;
  serviceVersion: string;
  database: { entry: typeof DATABASE_ENTRY; bytes: number; sha256: string };
  /** The fingerprint of the secret key the backup's webhook secrets are encrypted with; null when it was not known. */
  secretKeyFingerprint: string | null;
}

/** Why a file cannot be restored: not a Pickport backup, damaged, or of a format this version does not read. */
export class BackupFileError extends Error {}

/**
 * Names a secret key without revealing it: an HMAC under the key of a fixed text, 16 hex digits.
 * Two keys with the same fingerprint are the same key for every practical purpose.
 */
export const secretKeyFingerprint = (key: Buffer) => createHmac('sha256', key).update('pickport secret key fingerprint').digest('hex').slice(0, 16);

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The engine's data directory, consistent while writes go on, as a backup file's bytes.
 *
 * Why this is a consistent snapshot: PGlite runs PostgreSQL in this process, on this thread, as a
 * single session, with no background processes. `dumpDataDir` copies the data directory's files
 * while holding PGlite's query mutex, so no statement runs during the copy; it is taken here inside
 * a PGlite transaction, which holds the transaction mutex as well, so no other transaction is open
 * either (the service's transactions are PGlite transactions, pglite-dialect.ts): the copy is cut
 * between two transactions, and every transaction committed before it has its WAL written to those
 * files (PGlite runs with fsync off, but commits still write their WAL; synchronous_commit is on).
 * The CHECKPOINT first writes the dirty shared buffers to the data files, so that the restored
 * engine has almost no WAL to replay; without it the copy would still be whole, as after a crash.
 * Writes wait while the files are copied (under a second for a small warehouse; the copy is held
 * in memory, about the data directory's size). It is compressed after the mutexes are released.
 */
export async function makeBackup(engine: PGlite, secretKey: Buffer | null): Promise<{ bytes: Buffer; manifest: BackupManifest }> {
  const tar = await engine.transaction(async (tx) => {
    await tx.exec('CHECKPOINT');
    return engine.dumpDataDir('none');
  });
  const compressed = await promisify(gzip)(new Uint8Array(await tar.arrayBuffer()));
  const manifest: BackupManifest = {
    format: 'pickport-backup',
    version: 1,
    createdAt: new Date().toISOString(),
    serviceVersion: SERVICE_VERSION,
    database: { entry: DATABASE_ENTRY, bytes: compressed.length, sha256: sha256(compressed) },
    secretKeyFingerprint: secretKey ? secretKeyFingerprint(secretKey) : null,
  };
  const bytes = tarOf([
    [MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)],
    [DATABASE_ENTRY, compressed],
  ]);
  return { bytes, manifest };
}

/** A backup file's manifest and its database, checked whole: the format and the database's checksum. */
export function readBackup(bytes: Buffer): { manifest: BackupManifest; database: Buffer } {
  const entries = untar(bytes);
  const manifestBytes = entries.get(MANIFEST_ENTRY);
  if (!manifestBytes) throw new BackupFileError(`it is not a Pickport backup (no ${MANIFEST_ENTRY} in it)`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as BackupManifest;
  } catch {
    throw new BackupFileError(`its ${MANIFEST_ENTRY} is not JSON`);
  }
  if (manifest.format !== 'pickport-backup') throw new BackupFileError('it is not a Pickport backup');
  if (manifest.version !== 1) throw new BackupFileError(`it is a backup of format ${manifest.version}, which Pickport ${SERVICE_VERSION} does not read`);
  const database = entries.get(DATABASE_ENTRY);
  if (!database || database.length !== manifest.database.bytes || sha256(database) !== manifest.database.sha256) {
    throw new BackupFileError(`it is damaged: its database (${DATABASE_ENTRY}) is not the one its manifest describes`);
  }
  return { manifest, database };
}

/** Whether the engine's directory already holds anything (a database, or what a failed start left). */
export const holdsDatabase = (engineDir: string) => existsSync(engineDir) && readdirSync(engineDir).length > 0;

/**
 * Writes a backup's database into `engineDir`, which must not hold one, and answers how many
 * tenants it holds. The engine loads it into a directory beside `engineDir` and replays what WAL
 * the snapshot carries, as after a crash, then closes (a clean shutdown); only then is that
 * directory renamed to `engineDir`, so that a restore that fails leaves nothing a start would open.
 */
export async function restoreBackup(engineDir: string, database: Buffer, startParams: string[]): Promise<{ tenants: number }> {
  if (holdsDatabase(engineDir)) throw new Error(`${engineDir} already holds a database`);
  const loading = `${engineDir}.restoring-${randomUUID()}`;
  mkdirSync(join(loading, '..'), { recursive: true });
  try {
    // Unzipped here: PGlite's own unzip goes by the Blob's type, and a File's name.
    const tar = await promisify(gunzip)(database);
    const engine = await PGlite.create(loading, { startParams: [...PGlite.defaultStartParams, ...startParams], loadDataDir: new Blob([new Uint8Array(tar)]) });
    let tenants: number;
    try {
      tenants = (await engine.query<{ count: number }>('SELECT count(*)::int AS count FROM tenants')).rows[0]!.count;
    } finally {
      await engine.close();
    }
    rmSync(engineDir, { recursive: true, force: true }); // an empty directory, checked above
    renameSync(loading, engineDir);
    return { tenants };
  } finally {
    rmSync(loading, { recursive: true, force: true });
  }
}

// A tar (POSIX ustar) of regular files, written and read whole: `tar -tvf FILE` lists a backup,
// and `tar -xOf FILE pickport-backup.json` prints its manifest.

const BLOCK = 512;
const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, '0')}\0`;
  header.write(name, 0, 100, 'utf8');
  header.write(octal(0o600, 8), 100);
  header.write(octal(0, 8), 108);
  header.write(octal(0, 8), 116);
  header.write(octal(size, 12), 124);
  header.write(octal(Math.floor(Date.now() / 1000), 12), 136);
  header.write(' '.repeat(8), 148); // the checksum counts its own field as spaces
  header.write('0', 156); // a regular file
  header.write('ustar\u000000', 257);
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148);
  return header;
}

function tarOf(entries: [string, Buffer][]): Buffer {
  const parts = entries.flatMap(([name, data]) => [tarHeader(name, data.length), data, Buffer.alloc(padding(data.length))]);
  return Buffer.concat([...parts, Buffer.alloc(2 * BLOCK)]);
}

function untar(bytes: Buffer): Map<string, Buffer> {
  if (bytes.toString('latin1', 257, 262) !== 'ustar') throw new BackupFileError('it is not a Pickport backup (not a tar file)');
  const entries = new Map<string, Buffer>();
  for (let offset = 0; offset + BLOCK <= bytes.length; ) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return entries;
    if (header.toString('latin1', 257, 262) !== 'ustar') throw new BackupFileError('it is damaged (an entry of its tar is not)');
    const field = (start: number, length: number) => header.toString('utf8', start, start + length).replace(/\0.*$/s, '').trim();
    const size = parseInt(field(124, 12), 8);
    const start = offset + BLOCK;
    if (!Number.isInteger(size) || start + size > bytes.length) throw new BackupFileError('it is cut short');
    entries.set(field(0, 100), bytes.subarray(start, start + size));
    offset = start + size + padding(size);
  }
  throw new BackupFileError('it is cut short');
}
