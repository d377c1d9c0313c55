import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/context';
import { PickportProcesses } from '../helpers/processes';

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs `node <bin> ...args` to its end; never rejects. */
function node(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

/**
 * bin/pickport.js runs the build (dist/) when it is at least as new as every file of src/, and the
 * sources through tsx otherwise, with one line on stderr. Shown on a package of stubs: a bin beside
 * a dist/pickport.js and a src/main.ts that each say which one ran.
 */
describe('bin/pickport.js: the build, or the sources when they are newer', () => {
  const pkg = mkdtempSync(join(tmpdir(), 'pickport-bin-'));
  const bin = join(pkg, 'bin', 'pickport.js');
  const builtEntry = join(pkg, 'dist', 'pickport.js');
  const sourceEntry = join(pkg, 'src', 'main.ts');
  mkdirSync(join(pkg, 'bin'));
  mkdirSync(join(pkg, 'dist'));
  mkdirSync(join(pkg, 'src', 'db'), { recursive: true });
  copyFileSync(join(ROOT, 'bin', 'pickport.js'), bin);
  writeFileSync(join(pkg, 'package.json'), '{ "type": "module" }');
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  writeFileSync(builtEntry, "export async function main(argv) { console.log('built', argv.slice(2).join(' ')); }");
  writeFileSync(sourceEntry, "export async function main(argv: string[]): Promise<void> { console.log('sources', argv.slice(2).join(' ')); }");
  writeFileSync(join(pkg, 'src', 'db', 'schema.sql'), '');
  const at = (path: string, secondsAgo: number) => utimesSync(path, new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000));

  afterAll(() => rmSync(pkg, { recursive: true, force: true }));

  it('runs dist/ when no file under src/ is newer, without a word on stderr', async () => {
    at(sourceEntry, 60);
    at(join(pkg, 'src', 'db', 'schema.sql'), 60);
    at(builtEntry, 30);
    expect(await node([bin, 'users', 'list'])).toEqual({ code: 0, stdout: 'built users list\n', stderr: '' });
  });

  it('runs the sources through tsx when a file under src/, at any depth, is newer, and says so in one line', async () => {
    at(join(pkg, 'src', 'db', 'schema.sql'), 10);
    const result = await node([bin, 'serve']);
    expect(result).toMatchObject({ code: 0, stdout: 'sources serve\n' });
    expect(result.stderr.trim().split('\n')).toEqual([
      'pickport: dist/ is older than src/ (or missing): running the sources through tsx; `npm run build:server` builds them',
    ]);
  });

  it('runs the sources when there is no build', async () => {
    rmSync(builtEntry);
    expect(await node([bin, '--version'])).toMatchObject({ code: 0, stdout: 'sources --version\n' });
  });
});

/**
 * The build as shipped (vitest's global setup made it from these sources): it finds the files it
 * reads at run time from dist/, one folder below the package, as the sources do from src/.
 */
describe('the built server', { timeout: 120_000 }, () => {
  it('is what bin/pickport.js runs, and reads its version from package.json', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(await node([join(ROOT, 'bin', 'pickport.js'), '--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.skipIf(usingPostgres)('applies the migrations and serves the built console, on the embedded default', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pickport-built-'));
    const processes = PickportProcesses.embedded(join(root, 'data'));
    try {
      const { url } = await processes.serve();
      expect((await fetch(`${url}/api/v1/public/health`)).status).toBe(200);
      // A migration's table: a tenant is written and read back.
      const headers = { authorization: `Bearer ${processes.env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
      const created = await fetch(`${url}/api/v1/admin/tenants`, { method: 'POST', headers, body: JSON.stringify({ slug: 'built', name: 'Built' }) });
      expect(created.status).toBe(201);
      const page = await fetch(`${url}/console`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      processes.killAll();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
