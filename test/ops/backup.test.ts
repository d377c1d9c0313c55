import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyWebhook } from '@pickport/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackup, restoreBackup, secretKeyFingerprint } from '../../src/db/backup';
import { embeddedSettings } from '../../src/db/pglite-create';
import { PERMISSIONS } from '../../src/tenancy/permissions';
import { ADMIN_TOKEN, createTestContext, usingPostgres, type TestContext } from '../helpers/context';
import { freePort } from '../helpers/ports';
import { PickportProcesses } from '../helpers/processes';
import { waitFor } from '../helpers/wait';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pickport.js');
const SECRET = 'whsec_backup_0123456789abcdef0123456789';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What an operator reads on stderr: its last line (a first may say dist/ is older than the sources being edited). */
const lastLine = (stderr: string) => stderr.trim().split('\n').at(-1);

/** `pickport backup|restore …` as an operator runs it, to its end; never rejects. */
function runPickport(args: string[], env: Record<string, string>): Promise<Outcome> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
  for (const name of ['DATABASE_URL', 'PORT', 'PICKPORT_URL'].filter((name) => !(name in env))) delete childEnv[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: childEnv, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** A webhook receiver answering 200 to a delivery signed with SECRET and 401 to any other. */
async function receiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        verifyWebhook(Buffer.concat(chunks), request.headers as Record<string, string>, SECRET);
        response.writeHead(200).end();
      } catch {
        response.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/** Calls a running service with a bearer token. */
const call = async (url: string, token: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as { data: never; pagination?: { nextCursor: string | null } } };
};

/** Every externalId of the tenant's catalog, page by page. */
async function externalIds(url: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await call(url, key, 'GET', `/api/v1/public/products?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    ids.push(...(page.body.data as { externalId: string }[]).map((product) => product.externalId));
    cursor = page.body.pagination?.nextCursor;
  } while (cursor);
  return ids;
}

if (usingPostgres) console.log('backup and restore of a running embedded service skipped: DATABASE_URL is set (PostgreSQL is backed up with pg_dump)');

/**
 * Issue 46: `pickport backup FILE` while the embedded service runs and writes go on, and
 * `pickport restore FILE` into an empty data directory. Every write acknowledged before the backup
 * started is in the restored database, which is a cut between writes (a prefix of them, as they
 * were made one after another), with its webhook secrets readable under the secret key restored.
 */
describe.skipIf(usingPostgres)('backup and restore of the embedded database, as an operator runs them', { timeout: 300_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'pickport-backup-'));
  const dataDir = join(root, 'data');
  const restoredDir = join(root, 'restored');
  const file = join(root, 'backup.tar');
  const processes = PickportProcesses.embedded(dataDir);
  // As `npm start` runs (the delivery worker inside serve), with a receiver on loopback.
  const serve = (env: Record<string, string> = {}) => processes.serve({ PICKPORT_NO_WORKER: 'false', PICKPORT_WEBHOOK_ALLOW_PRIVATE: 'true', ...env });
  let hook: { server: Server; url: string };
  let key: string;
  let webhookId: string;
  const acked: number[] = [];
  let ackedWhenBackupStarted = 0;
  let ackedWhenBackupEnded = 0;
  let sent = 0;

  beforeAll(async () => {
    hook = await receiver();
  });

  afterAll(() => {
    processes.killAll();
    hook.server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('backs up the running service while products are written one after another', async () => {
    const { process: service, url } = await serve();
    expect((await call(url, ADMIN_TOKEN, 'POST', '/api/v1/admin/tenants', { slug: 'acme', name: 'Acme Ltd' })).status).toBe(201);
    const issued = await call(url, ADMIN_TOKEN, 'POST', '/api/v1/admin/tenants/acme/api-keys', {
      permissions: [...PERMISSIONS],
      rateLimitPerMinute: 1_000_000,
      dailyLimit: 1_000_000_000,
    });
    key = (issued.body.data as { key: string }).key;
    const webhook = await call(url, key, 'POST', '/api/v1/public/webhooks', { url: hook.url, events: ['product.stock_updated'], secret: SECRET });
    expect(webhook.status).toBe(201);
    webhookId = (webhook.body.data as { id: string }).id;

    let writing = true;
    const writer = (async () => {
      while (writing) {
        const n = ++sent;
        const response = await call(url, key, 'POST', '/api/v1/public/products', { externalId: `P-${n}`, sku: `SKU-${n}`, name: `Product ${n}`, stock: n });
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
        acked.push(n);
      }
    })();
    await waitFor('20 writes acknowledged', () => acked.length >= 20);

    ackedWhenBackupStarted = acked.length;
    const port = new URL(url).port;
    const backup = await runPickport(['backup', file], { PICKPORT_DATA_DIR: dataDir, PORT: port, ADMIN_TOKEN });
    ackedWhenBackupEnded = acked.length;
    await waitFor('5 writes acknowledged after the backup', () => acked.length >= ackedWhenBackupEnded + 5);
    writing = false;
    await writer;

    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`Backed up the service at http://127.0.0.1:${port} to ${file}`);
    // Asked at an address where the service does not listen, it does not open the directory under it.
    const elsewhere = await freePort();
    const missed = await runPickport(['backup', join(root, 'missed.tar')], { PICKPORT_DATA_DIR: dataDir, PORT: String(elsewhere), ADMIN_TOKEN });
    expect(missed.code, missed.stderr).toBe(1);
    expect(lastLine(missed.stderr)).toMatch(
      new RegExp(`^PICKPORT_DATA_DIR \\(${dataDir}\\) is in use by another Pickport process: pid ${service.child.pid} .*, and no Pickport service answered at http://127.0.0.1:${elsewhere} \\(PORT\\): the running service makes the backup, so point --url \\(or PORT\\) at the address it listens on$`),
    );
    expect(existsSync(join(root, 'missed.tar'))).toBe(false);
    // Writes went on while the backup was made.
    expect(ackedWhenBackupEnded).toBeGreaterThan(ackedWhenBackupStarted);
    const { manifest } = readBackup(readFileSync(file));
    expect(manifest.secretKeyFingerprint).toBe(secretKeyFingerprint(Buffer.from(readFileSync(join(dataDir, 'secret-key'), 'utf8').trim(), 'hex')));
    expect(backup.stdout).toContain(`secret key ${manifest.secretKeyFingerprint}`);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('refuses to restore without the secret key the backup names, saying which one it needs', async () => {
    const refused = await runPickport(['restore', file], { PICKPORT_DATA_DIR: restoredDir });
    expect(refused.code, refused.stderr).toBe(2);
    const { manifest } = readBackup(readFileSync(file));
    expect(lastLine(refused.stderr)).toMatch(
      new RegExp(`^Configuration error: This backup's webhook secrets are encrypted with the secret key of fingerprint ${manifest.secretKeyFingerprint}, which is not here: pass --secret-key-file`),
    );
  });

  it('restores into an empty data directory; the service started there has every write acknowledged before the backup started, and reads the webhook secrets', async () => {
    const restored = await runPickport(['restore', file, '--secret-key-file', join(dataDir, 'secret-key')], { PICKPORT_DATA_DIR: restoredDir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`into PICKPORT_DATA_DIR (${restoredDir}); start it with pickport serve.`);
    expect(readFileSync(join(restoredDir, 'secret-key'), 'utf8')).toBe(readFileSync(join(dataDir, 'secret-key'), 'utf8'));

    const { process: service, url } = await serve({ PICKPORT_DATA_DIR: restoredDir });
    const ids = await externalIds(url, key);
    const present = ids.map((id) => Number(id.slice('P-'.length))).sort((a, b) => a - b);
    // A cut between writes: P-1 … P-k, nothing missing before k, nothing after it.
    expect(present).toEqual(Array.from({ length: present.length }, (_, i) => i + 1));
    expect(present.length).toBeGreaterThanOrEqual(ackedWhenBackupStarted);
    expect(present.length).toBeLessThan(sent);

    const test = await call(url, key, 'POST', `/api/v1/public/webhooks/${webhookId}/test`, { event: 'product.stock_updated' });
    expect(test.status).toBe(200);
    expect(test.body.data).toMatchObject({ delivered: true, statusCode: 200 });

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('refuses a data directory that already holds a database, naming it, exit code 2', async () => {
    for (const dir of [dataDir, restoredDir]) {
      const refused = await runPickport(['restore', file, '--new-secret-key'], { PICKPORT_DATA_DIR: dir });
      expect(refused.code, refused.stderr).toBe(2);
      expect(lastLine(refused.stderr)).toBe(
        `Configuration error: PICKPORT_DATA_DIR (${dir}) already holds a database (${join(dir, 'pglite')}); restore into an empty data directory: set PICKPORT_DATA_DIR to another one, or move this one away first`,
      );
    }
  });

  it('backs up a data directory no service runs on by opening it itself', async () => {
    const direct = join(root, 'direct.tar');
    const backup = await runPickport(['backup', direct], { PICKPORT_DATA_DIR: restoredDir, PORT: String(await freePort()), ADMIN_TOKEN });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`Backed up PICKPORT_DATA_DIR (${restoredDir}), where no service runs, to ${direct}`);
    expect(readBackup(readFileSync(direct)).manifest.secretKeyFingerprint).toBe(readBackup(readFileSync(file)).manifest.secretKeyFingerprint);
  });
});

/** The operator route `GET /api/v1/admin/backup` in process, and the refusals on PostgreSQL. */
describe('the backup route, and PostgreSQL', () => {
  let ctx: TestContext;
  let root: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    root = mkdtempSync(join(tmpdir(), 'pickport-backup-route-'));
  });

  afterAll(async () => {
    await ctx.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('needs the admin token', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/admin/backup' });
    expect(response.statusCode).toBe(401);
  });

  it.skipIf(usingPostgres)('answers the embedded database as a backup file, which restores', { timeout: 120_000 }, async () => {
    const tenant = await ctx.tenant();
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/admin/backup', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-tar');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="pickport-.+\.tar"$/);
    const { manifest, database } = readBackup(response.rawPayload);
    expect(manifest).toMatchObject({ format: 'pickport-backup', version: 1, secretKeyFingerprint: secretKeyFingerprint(ctx.config.secretKey) });
    expect(await restoreBackup(join(root, 'pglite'), database, embeddedSettings())).toEqual({ tenants: 1 });
    await expect(restoreBackup(join(root, 'pglite'), database, embeddedSettings())).rejects.toThrow('already holds a database');
    expect(tenant.slug).toBeTruthy();
  });

  it.runIf(usingPostgres)('on PostgreSQL answers 409 saying to use pg_dump', async () => {
    const response = await ctx.admin('GET', '/api/v1/admin/backup');
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ success: false, error: { code: 'CONFLICT', message: expect.stringContaining('pg_dump -Fc') } });
  });

  it('pickport backup against a service on PostgreSQL prints its refusal; with DATABASE_URL set, backup and restore point to pg_dump and pg_restore', async () => {
    if (usingPostgres) {
      const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const refused = await runPickport(['backup', join(root, 'pg.tar'), '--url', address, '--token', ADMIN_TOKEN], {});
      expect(refused.code, refused.stderr).toBe(1);
      expect(lastLine(refused.stderr)).toMatch(/^CONFLICT: This service runs on PostgreSQL \(DATABASE_URL\): back it up with pg_dump -Fc/);
    }
    for (const command of ['backup', 'restore']) {
      const refused = await runPickport([command, join(root, 'x.tar')], { DATABASE_URL: 'postgres://pickport@127.0.0.1:5432/pickport', PICKPORT_DATA_DIR: join(root, 'data') });
      expect(refused.code, refused.stderr).toBe(2);
      expect(lastLine(refused.stderr)).toBe(
        `Configuration error: DATABASE_URL is set: pickport ${command} is for the embedded database; with DATABASE_URL, back up PostgreSQL with pg_dump -Fc and restore with pg_restore (docs/operations.md, Backups)`,
      );
    }
  });
});
