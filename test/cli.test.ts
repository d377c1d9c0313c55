import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './helpers/context';
import { freePort } from './helpers/ports';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '..', 'bin', 'pickport.js');

/** Runs the command to its end; never rejects, so a test can look at the exit code and both outputs. */
function pickport(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

/** What an operator must see when a start fails: one line naming the setting, no stack trace. */
function expectOneLine(stderr: string, ...parts: (string | RegExp)[]): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  for (const part of parts) expect(lines[0]).toMatch(part);
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

/** Start-up and CLI failures an operator meets, each one line on stderr with a documented exit code. */
describe('pickport start-up failures', { timeout: 60_000 }, () => {
  /** The environment of a start on the embedded database, whatever database the test run uses. */
  const embedded = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.ADMIN_TOKEN;
    delete env.PICKPORT_SECRET_KEY;
    return { ...env, ...extra };
  };

  it('a bad PORT on a fresh data directory writes nothing, and the next good start prints the generated token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pickport-fresh-'));
    const refused = await pickport(['migrate'], embedded({ PICKPORT_DATA_DIR: dataDir, PORT: 'eighty' }));
    expect(refused.code).toBe(2);
    expectOneLine(refused.stderr, 'Configuration error: PORT must be an integer');
    expect(readdirSync(dataDir)).toEqual([]);

    const started = await pickport(['migrate'], embedded({ PICKPORT_DATA_DIR: dataDir }));
    expect(started.code, started.stderr).toBe(0);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(started.stdout).toContain(`Generated an admin token`);
    expect(started.stdout).toContain(token);
  });

  it('a PICKPORT_DATA_DIR that cannot be written: exit 2 naming it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'pickport-blocked-'));
    // A file where the folder should be: refused even for root, who may write anywhere else.
    writeFileSync(join(parent, 'file'), '');
    const dataDir = join(parent, 'file', 'data');
    const result = await pickport(['serve'], embedded({ PICKPORT_DATA_DIR: dataDir }));
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, `Configuration error: PICKPORT_DATA_DIR (${dataDir}) cannot be written`);
  });

  it('a DATABASE_URL where nothing listens: exit 1 naming it, without the password', async () => {
    const port = await freePort();
    const result = await pickport(
      ['serve'],
      embedded({ PICKPORT_DATA_DIR: mkdtempSync(join(tmpdir(), 'pickport-nodb-')), DATABASE_URL: `postgres://pickport:hunter2@127.0.0.1:${port}/x`, ADMIN_TOKEN }),
    );
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, `Cannot connect to the database at DATABASE_URL (postgres://pickport:***@127.0.0.1:${port}/x): connection refused`);
    expect(result.stderr).not.toContain('hunter2');
  });

  it.skipIf(!process.env.DATABASE_URL)('a DATABASE_URL naming a database that does not exist: exit 2 naming it', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/missing_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const result = await pickport(['serve'], embedded({ PICKPORT_DATA_DIR: mkdtempSync(join(tmpdir(), 'pickport-nodb-')), DATABASE_URL: url.toString(), ADMIN_TOKEN }));
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, /^Configuration error: Cannot use the database at DATABASE_URL \(postgres:\/\/.*\/missing_\w+\): database "missing_\w+" does not exist$/);
  });

  it('a PORT already in use: exit 1 naming it, and the token generated for that start is not kept unseen', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const dataDir = mkdtempSync(join(tmpdir(), 'pickport-busy-'));
    try {
      const result = await pickport(['serve'], embedded({ PICKPORT_DATA_DIR: dataDir, PORT: String(port) }));
      expect(result.code).toBe(1);
      expectOneLine(result.stderr, `Cannot listen on PORT ${port} on HOST 127.0.0.1: the port is already in use`);
      expect(result.stdout).not.toContain('Generated an admin token');
      expect(readdirSync(dataDir)).not.toContain('admin-token');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('the CLI pointed at an address where nothing listens: exit 1 naming --url', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await pickport(['tenants', 'list', '--url', url, '--token', ADMIN_TOKEN], embedded());
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, `Cannot reach the Pickport service at ${url} (--url): connection refused`);
  });
});
