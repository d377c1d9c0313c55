import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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

interface RunningService {
  url: string;
  port: number;
  /** The environment the service runs with (data directory, database, token). */
  env: NodeJS.ProcessEnv;
  /** What it printed so far. */
  output(): string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * `pickport serve` as a new user starts it: on a fresh data directory, on the embedded database or
 * on a schema of its own in DATABASE_URL (where the admin token must be given).
 */
async function startService(dataDir: string): Promise<RunningService> {
  const env: NodeJS.ProcessEnv = { ...process.env, PICKPORT_DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  delete env.ADMIN_TOKEN;
  const schema = `cli_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  if (process.env.DATABASE_URL) {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    env.DATABASE_URL = `${process.env.DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    env.ADMIN_TOKEN = ADMIN_TOKEN;
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const server = spawn(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout?.on('data', (chunk) => (output += String(chunk)));
  server.stderr?.on('data', (chunk) => (output += String(chunk)));
  await waitForHealth(url, 45_000);
  return {
    url,
    port,
    env,
    output: () => output,
    process: server,
    async stop() {
      if (server.exitCode === null) server.kill('SIGKILL');
      if (process.env.DATABASE_URL) {
        const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      }
    },
  };
}

/**
 * The quick start's steps through the CLI and the API, each answer checked: `pickport serve` on a
 * fresh data directory, the CLI to make a tenant and a key, then the API.
 */
// Each CLI call starts Node and loads the sources: seconds apiece on a loaded machine.
describe('pickport CLI and the quick start', { timeout: 120_000 }, () => {
  let service: RunningService;
  let env: NodeJS.ProcessEnv;
  let url = '';

  beforeAll(async () => {
    service = await startService(mkdtempSync(join(tmpdir(), 'pickport-cli-')));
    ({ env, url } = service);
  }, 60_000);

  afterAll(() => service.stop());

  const cli = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [BIN, ...args, '--url', url, '--json'], { env });
    return JSON.parse(stdout);
  };

  it('prints the generated admin token once on the embedded default', () => {
    if (process.env.DATABASE_URL) {
      expect(service.output()).not.toContain('Generated an admin token');
    } else {
      expect(service.output()).toMatch(/Generated an admin token[\s\S]*adm_/);
    }
  });

  it('prints where the console and the API reference are once it listens', () => {
    expect(service.output()).toContain(`Console:       ${url}/console\n`);
    expect(service.output()).toContain(`API reference: ${url}/docs\n`);
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

  it("creates, lists and disables the console's users from the CLI", async () => {
    const created = await cli('users', 'create', 'acme', 'Mara', '--name', 'Mara Jensen', '--role', 'picker', '--pin', '482913');
    expect(created.data).toMatchObject({ username: 'mara', name: 'Mara Jensen', role: 'picker', disabled: false });
    expect((await cli('users', 'list', 'acme')).data.map((u: { username: string }) => u.username)).toEqual(['mara']);
    expect((await cli('users', 'disable', created.data.id)).data).toMatchObject({ id: created.data.id, disabled: true });
  });

  it("sets a user's PIN and role from the CLI", async () => {
    const created = await cli('users', 'create', 'acme', 'lou', '--name', 'Lou', '--role', 'picker', '--pin', '482913');
    expect((await cli('users', 'set-role', created.data.id, '--role', 'packer')).data).toMatchObject({ id: created.data.id, role: 'packer' });
    expect((await cli('users', 'set-pin', created.data.id, '--pin', '975310')).data).toMatchObject({ id: created.data.id });
    const signIn = (pin: string) =>
      fetch(`${url}/console/api/session`, { method: 'POST', headers: { origin: url, 'content-type': 'application/json' }, body: JSON.stringify({ warehouse: 'acme', username: 'lou', pin }) });
    expect((await signIn('482913')).status).toBe(401);
    expect((await signIn('975310')).status).toBe(200);
  });

  it('prints each refused field on a line of its own, with what it takes, and exits 1', async () => {
    const user = await pickport(['users', 'create', 'acme', 'kim', '--name', 'Kim', '--role', 'boss', '--pin', '12', '--url', url], env);
    expect(user.code).toBe(1);
    expect(user.stderr.trim().split('\n')).toEqual([
      'VALIDATION_ERROR: the request was refused',
      '  role must be one of picker, packer, supervisor',
      '  pin must be 6 to 12 digits',
    ]);
    const key = await pickport(['keys', 'create', 'acme', '--permissions', 'products:read,orders:delete', '--expires-at', '2020-01-01T00:00:00Z', '--url', url], env);
    expect(key.code).toBe(1);
    expect(key.stderr.trim().split('\n')).toEqual([
      'VALIDATION_ERROR: the request was refused',
      '  permissions[1] must be one of products:read, products:write, orders:read, orders:write, webhooks:manage',
    ]);
    const expired = await pickport(['keys', 'create', 'acme', '--permissions', 'products:read', '--expires-at', '2020-01-01T00:00:00Z', '--url', url], env);
    expect(expired.code).toBe(1);
    expect(expired.stderr.trim().split('\n')).toEqual(['VALIDATION_ERROR: the request was refused', '  expiresAt must be in the future']);
    expect((await cli('keys', 'list', 'acme')).data.map((k: { permissions: string[] }) => k.permissions.join(','))).not.toContain('products:read');
  });

  it('exits non-zero with the API error when a command fails', async () => {
    await expect(run(process.execPath, [BIN, 'tenants', 'create', '--slug', 'acme', '--name', 'Again', '--url', url], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('CONFLICT'),
    });
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => service.process.once('exit', resolve));
    service.process.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses to start on a bad configuration with a readable message', async () => {
    await expect(run(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: 'eighty' } })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('PORT must be an integer'),
    });
  });
});

/**
 * The README's quick start pasted literally into a shell: every `sh` block of the section, run one
 * after the other with bash in a folder whose `data/` is the service's data directory, so
 * `cat data/admin-token` and `npx pickport` find what they would on a fresh clone.
 */
describe("the README's quick start, pasted into a shell", { timeout: 120_000 }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'pickport-readme-'));
  let service: RunningService;

  beforeAll(async () => {
    service = await startService(join(folder, 'data'));
    if (service.env.ADMIN_TOKEN) writeFileSync(join(folder, 'data', 'admin-token'), service.env.ADMIN_TOKEN);
    mkdirSync(join(folder, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(folder, 'node_modules', '.bin', 'pickport'));
  }, 60_000);

  afterAll(() => service.stop());

  it('runs every block without an error, and what it made is there', async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
    const blocks = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    // The README names the default port; the test's service listens elsewhere.
    const script = ['set -euo pipefail', ...blocks].join('\n').replaceAll('localhost:3000', `127.0.0.1:${service.port}`);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(service.port) };
    const result = await run('bash', ['-c', script], { cwd: folder, env }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in result ? result : { code: 0 }, JSON.stringify(result)).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('"status":"DISPATCHED"');
    expect(result.stdout).toMatch(/globex/);

    const headers = { authorization: `Bearer ${service.env.ADMIN_TOKEN ?? readFileSync(join(folder, 'data', 'admin-token'), 'utf8').trim()}` };
    const tenants = (await (await fetch(`${service.url}/api/v1/admin/tenants`, { headers })).json()) as { data: { slug: string }[] };
    expect(tenants.data.map((tenant) => tenant.slug).sort()).toEqual(['acme', 'globex']);
    const keys = (await (await fetch(`${service.url}/api/v1/admin/tenants/globex/api-keys`, { headers })).json()) as { data: { status: string }[] };
    expect(keys.data.map((key) => key.status).sort()).toEqual(['revoked', 'revoked']);
    const users = (await (await fetch(`${service.url}/api/v1/admin/tenants/acme/users`, { headers })).json()) as { data: { username: string; role: string }[] };
    expect(users.data.map(({ username, role }) => `${username}:${role}`).sort()).toEqual(['ana:picker', 'pat:packer', 'sam:supervisor']);
  });

  it('creates the same users, with the same PINs, as the docs', () => {
    const read = (path: string) => readFileSync(join(import.meta.dirname, '..', path), 'utf8');
    const creates = (text: string) => text.match(/^npx pickport users create .*$/gm) ?? [];
    const readme = creates(read('README.md'));
    expect(readme.length).toBeGreaterThan(0);
    for (const doc of ['docs/console.md', 'docs/operations.md']) {
      for (const line of creates(read(doc))) expect(readme, `${doc}: ${line}`).toContain(line);
    }
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

  it('describes every subcommand in --help', async () => {
    for (const group of ['tenants', 'keys', 'users']) {
      const help = await pickport([group, '--help'], embedded());
      expect(help.code).toBe(0);
      const commands = help.stdout.slice(help.stdout.indexOf('Commands:')).split('\n').slice(1).filter((line) => line.trim() !== '' && !line.trim().startsWith('help '));
      expect(commands.length, help.stdout).toBeGreaterThan(1);
      for (const line of commands) expect(line, `${group} --help: ${line}`).toMatch(/\S\s{2,}\S/);
    }
  });

  it('the CLI pointed at an address where nothing listens: exit 1 naming --url', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await pickport(['tenants', 'list', '--url', url, '--token', ADMIN_TOKEN], embedded());
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, `Cannot reach the Pickport service at ${url} (--url): connection refused`);
  });
});
