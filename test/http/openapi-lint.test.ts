import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/context';

const run = promisify(execFile);

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

/**
 * The generated document under Redocly's recommended rules (redocly.yaml), offline: telemetry and
 * the update check are off.
 */
describe('OpenAPI document lint', () => {
  let ctx: TestContext;
  let dir: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    dir = await mkdtemp(join(tmpdir(), 'pickport-openapi-'));
  });
  afterAll(async () => {
    await ctx.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('has no error and no warning under the recommended rules', async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(ctx.app.swagger(), null, 2));
    const { stdout } = await run('node_modules/.bin/redocly', ['lint', file, '--format', 'json', '--config', 'redocly.yaml'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const { problems } = JSON.parse(stdout) as { problems: LintProblem[] };
    const listed = problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
    expect(listed).toEqual([]);
  }, 90_000);
});
