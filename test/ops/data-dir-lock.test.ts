import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/db/data-dir-lock';
import { ADMIN_TOKEN, usingPostgres } from '../helpers/context';
import { PickportProcesses, type PickportProcess } from '../helpers/processes';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pickport.js');

/** Runs `pickport <command>` on the data directory to its end; never rejects. */
function pickport(command: string, dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, PICKPORT_DATA_DIR: dataDir, ADMIN_TOKEN, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, command], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const tenants = async (url: string) => {
  const response = await fetch(`${url}/api/v1/admin/tenants`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return ((await response.json()) as { data: { slug: string }[] }).data.map((tenant) => tenant.slug);
};

if (usingPostgres) console.log('data directory lock test skipped: it is about the embedded database, and DATABASE_URL is set (no data directory is locked then)');

/**
 * Issue 24: the embedded database belongs to one process. A second `serve`, `worker` or `migrate`
 * on its data directory refuses to start; a lock left by a killed process does not block the next.
 */
describe.skipIf(usingPostgres)('one process per data directory of the embedded database', { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'pickport-lock-'));
  const dataDir = join(root, 'data');
  const processes = PickportProcesses.embedded(dataDir);
  // As `npm start` runs: the delivery worker inside serve.
  const serve = () => processes.serve({ PICKPORT_NO_WORKER: 'false' });

  let first: { process: PickportProcess; url: string };

  afterAll(() => {
    processes.killAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a second serve, worker or migrate with one line naming the directory and the holder; the first keeps serving its data', async () => {
    first = await serve();
    const created = await fetch(`${first.url}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'acme', name: 'Acme Ltd' }),
    });
    expect(created.status).toBe(201);
    const lock = readFileSync(join(dataDir, LOCK_FILE), 'utf8');
    const files = readdirSync(dataDir).sort();

    for (const command of ['serve', 'worker', 'migrate']) {
      const refused = await pickport(command, dataDir);
      expect(refused.code, refused.stderr).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines, refused.stderr).toHaveLength(1);
      expect(lines[0]).toBe(
        `PICKPORT_DATA_DIR (${dataDir}) is in use by another Pickport process: pid ${first.process.child.pid} (pickport serve, started ${JSON.parse(lock).startedAt}); stop it first, or give this one another PICKPORT_DATA_DIR`,
      );
    }
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(lock);
    expect(readdirSync(dataDir).sort()).toEqual(files);
    expect(await tenants(first.url)).toEqual(['acme']);
  });

  it('starts at once after the holder was killed (SIGKILL: its lock left behind), and sees its data', async () => {
    first.process.child.kill('SIGKILL');
    await first.process.exited;
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    const next = await serve();
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(next.process.child.pid);
    expect(await tenants(next.url)).toEqual(['acme']);
    next.process.child.kill('SIGKILL');
    await next.process.exited;
  });

  it('releases the directory on SIGTERM, and the next start works', async () => {
    const running = await serve();
    // Answering a request: past start-up, where the signals are handled.
    expect(await tenants(running.url)).toEqual(['acme']);
    running.process.child.kill('SIGTERM');
    expect(await running.process.exited).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const next = await serve();
    expect(await tenants(next.url)).toEqual(['acme']);
    next.process.child.kill('SIGINT');
    expect(await next.process.exited).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it.skipIf(!existsSync('/proc/self/stat'))('takes over a lock whose pid now belongs to another process (a reused pid: its start time differs)', async () => {
    // This test's own process is alive, but did not start at tick 1.
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: process.pid, command: 'pickport serve', startedAt: '2020-01-01T00:00:00.000Z', ticks: 1 }));
    const migrated = await pickport('migrate', dataDir);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('names the embedded database\'s path when a file stands where its directory goes, and exits 1', async () => {
    const blocked = join(root, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'pglite'), 'not a database');
    const refused = await pickport('serve', blocked);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr.trim()).toBe(`Cannot open the embedded database in PICKPORT_DATA_DIR (${join(blocked, 'pglite')}): ${join(blocked, 'pglite')} is a file, not a directory`);
  });
});
