import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './helpers/context';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '..', 'bin', 'pickport.js');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForHealth(url: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/api/v1/public/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the service did not answer at ${url}`);
}

/**
 * The README's quick start, as a new user runs it: `pickport serve` on a fresh data directory (the
 * embedded database, or a schema of DATABASE_URL), the CLI to make a tenant and a key, then curl.
 */
describe('pickport CLI and the quick start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pickport-cli-'));
  const schema = `cli_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PICKPORT_DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  delete env.ADMIN_TOKEN;
  let server: ChildProcess;
  let output = '';
  let url = '';

  beforeAll(async () => {
    if (process.env.DATABASE_URL) {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      env.DATABASE_URL = `${process.env.DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      env.ADMIN_TOKEN = ADMIN_TOKEN;
    }
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout?.on('data', (chunk) => (output += String(chunk)));
    server.stderr?.on('data', (chunk) => (output += String(chunk)));
    await waitForHealth(url, 45_000);
  }, 60_000);

  afterAll(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    if (process.env.DATABASE_URL) {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  const cli = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [BIN, ...args, '--url', url, '--json'], { env });
    return JSON.parse(stdout);
  };

  it('prints the generated admin token once on the embedded default', () => {
    if (process.env.DATABASE_URL) {
      expect(output).not.toContain('Generated an admin token');
    } else {
      expect(output).toMatch(/Generated an admin token[\s\S]*adm_/);
    }
  });

  it('creates a tenant and a key from the CLI, and the key works against the API', async () => {
    const tenant = await cli('tenants', 'create', '--slug', 'acme', '--name', 'Acme Ltd');
    expect(tenant.data).toMatchObject({ slug: 'acme', name: 'Acme Ltd' });
    const issued = await cli('keys', 'create', 'acme', '--permissions', 'products:read,products:write', '--name', 'ERP');
    const key: string = issued.data.key;
    expect(key).toMatch(/^pk_live_[A-Za-z0-9]{40}$/);

    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/v1/public/products`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ externalId: 'SKU-1', sku: 'SKU-1', name: 'Blue mug', stock: 12 }),
    });
    expect(created.status).toBe(201);
    const listed = (await (await fetch(`${url}/api/v1/public/products`, { headers })).json()) as { data: { externalId: string }[] };
    expect(listed.data.map((p) => p.externalId)).toEqual(['SKU-1']);

    const keys = await cli('keys', 'list', 'acme');
    expect(keys.data).toHaveLength(1);
    const rotated = await cli('keys', 'rotate', issued.data.id);
    expect(rotated.data.key).not.toBe(key);
    const revoked = await cli('keys', 'revoke', rotated.data.id);
    expect(revoked.data.status).toBe('revoked');
    expect((await fetch(`${url}/api/v1/public/products`, { headers: { authorization: `Bearer ${rotated.data.key}` } })).status).toBe(401);
  });

  it('exits non-zero with the API error when a command fails', async () => {
    await expect(run(process.execPath, [BIN, 'tenants', 'create', '--slug', 'acme', '--name', 'Again', '--url', url], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('CONFLICT'),
    });
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses to start on a bad configuration with a readable message', async () => {
    await expect(run(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: 'eighty' } })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('PORT must be an integer'),
    });
  });
});
