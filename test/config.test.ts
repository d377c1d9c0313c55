import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

const freshDataDir = () => mkdtempSync(join(tmpdir(), 'pickport-config-'));

describe('configuration from the environment', () => {
  it('starts on the embedded database with defaults, generating the admin token and secret key once', () => {
    const dir = freshDataDir();
    const first = loadConfig({ PICKPORT_DATA_DIR: dir });
    expect(first.config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      nodeEnv: 'development',
      trustProxy: false,
      webhookAllowPrivate: false,
      cookieSecure: false,
      embeddedBuffersMb: 16,
      planner: { threads: Math.max(1, availableParallelism() - 1), queue: 64, deadlineMs: 2_000, nice: 10 },
    });
    expect(first.generatedAdminToken).toBe(first.config.adminToken);
    expect(readFileSync(join(dir, 'admin-token'), 'utf8').trim()).toBe(first.config.adminToken);
    expect(statSync(join(dir, 'admin-token')).mode & 0o077).toBe(0);
    expect(first.config.secretKey).toHaveLength(32);

    const second = loadConfig({ PICKPORT_DATA_DIR: dir });
    expect(second.generatedAdminToken).toBeUndefined();
    expect(second.config.adminToken).toBe(first.config.adminToken);
    expect(second.config.secretKey.equals(first.config.secretKey)).toBe(true);
  });

  it('reads every documented variable', () => {
    const { config } = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://db/pickport',
      PICKPORT_DATABASE_POOL_SIZE: '8',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_TOKEN: 'a-long-enough-admin-token',
      PICKPORT_SECRET_KEY: 'ab'.repeat(32),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
      PICKPORT_WEBHOOK_RETRY_DELAYS_MS: '10, 20,30',
      PICKPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
      PICKPORT_COOKIE_SECURE: 'false',
      PICKPORT_EMBEDDED_BUFFERS_MB: '64',
      PLANNER_THREADS: '3',
      PLANNER_QUEUE: '10',
      PLANNER_DEADLINE_MS: '500',
      PLANNER_NICE: '0',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://db/pickport',
      databasePoolSize: 8,
      redisUrl: 'redis://cache:6379',
      adminToken: 'a-long-enough-admin-token',
      nodeEnv: 'production',
      logLevel: 'warn',
      trustProxy: true,
      webhookRetryDelaysMs: [10, 20, 30],
      webhookAllowPrivate: true,
      cookieSecure: false,
      embeddedBuffersMb: 64,
      planner: { threads: 3, queue: 10, deadlineMs: 500, nice: 0 },
    });
    expect(config.secretKey.toString('hex')).toBe('ab'.repeat(32));
  });

  it('marks the console cookie Secure in production unless PICKPORT_COOKIE_SECURE says otherwise, and where told', () => {
    const production = { PICKPORT_DATA_DIR: freshDataDir(), NODE_ENV: 'production' };
    expect(loadConfig(production).config.cookieSecure).toBe(true);
    expect(loadConfig({ ...production, PICKPORT_COOKIE_SECURE: 'false' }).config.cookieSecure).toBe(false);
    expect(loadConfig({ PICKPORT_DATA_DIR: freshDataDir(), PICKPORT_COOKIE_SECURE: 'true' }).config.cookieSecure).toBe(true);
  });

  it.each([
    [{ PICKPORT_COOKIE_SECURE: 'https' }, /PICKPORT_COOKIE_SECURE must be true or false/],
    [{ PORT: 'eighty' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be an integer from 0 to 65535/],
    [{ PICKPORT_DATABASE_POOL_SIZE: '0' }, /PICKPORT_DATABASE_POOL_SIZE must be an integer from 1 to 1000/],
    [{ PICKPORT_EMBEDDED_BUFFERS_MB: '0' }, /PICKPORT_EMBEDDED_BUFFERS_MB must be an integer from 1 to 1024/],
    [{ PICKPORT_EMBEDDED_BUFFERS_MB: '16MB' }, /PICKPORT_EMBEDDED_BUFFERS_MB must be an integer/],
    [{ PLANNER_THREADS: '0' }, /PLANNER_THREADS must be an integer from 1 to 256/],
    [{ PLANNER_QUEUE: 'many' }, /PLANNER_QUEUE must be an integer/],
    [{ PLANNER_DEADLINE_MS: '2s' }, /PLANNER_DEADLINE_MS must be an integer from 10 to 600000/],
    [{ PLANNER_NICE: '-5' }, /PLANNER_NICE must be an integer from 0 to 19/],
    [{ DATABASE_URL: 'mysql://db' }, /DATABASE_URL must start with postgres:/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL is not a valid URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV must be/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be true or false/],
    [{ PICKPORT_WEBHOOK_ALLOW_PRIVATE: 'sometimes' }, /PICKPORT_WEBHOOK_ALLOW_PRIVATE must be true or false/],
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN must be at least 16 characters/],
    [{ PICKPORT_SECRET_KEY: 'abc' }, /PICKPORT_SECRET_KEY must be 32 bytes/],
    [{ DATABASE_URL: 'postgres://db/x' }, /ADMIN_TOKEN is required with DATABASE_URL/],
    [
      { DATABASE_URL: 'postgres://db/x', ADMIN_TOKEN: 'a-long-enough-admin-token', NODE_ENV: 'production' },
      /PICKPORT_SECRET_KEY is required in production/,
    ],
  ])('refuses %o with a clear message, writing nothing to the data directory', (env, message) => {
    const dir = freshDataDir();
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dir, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dir, ...env })).toThrow(message);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('retries a failed webhook delivery after 1 min, 15 min, 1 h, 3 h and 6 h unless told otherwise', () => {
    const minute = 60_000;
    expect(loadConfig({ PICKPORT_DATA_DIR: freshDataDir() }).config.webhookRetryDelaysMs).toEqual([minute, 15 * minute, 60 * minute, 180 * minute, 360 * minute]);
    expect(loadConfig({ PICKPORT_DATA_DIR: freshDataDir(), PICKPORT_WEBHOOK_RETRY_DELAYS_MS: '10, 20,30' }).config.webhookRetryDelaysMs).toEqual([10, 20, 30]);
    expect(() => loadConfig({ PICKPORT_DATA_DIR: freshDataDir(), PICKPORT_WEBHOOK_RETRY_DELAYS_MS: '10,soon' })).toThrow(/PICKPORT_WEBHOOK_RETRY_DELAYS_MS/);
  });

  it('refuses a data directory that cannot be written, naming PICKPORT_DATA_DIR', () => {
    const parent = freshDataDir();
    writeFileSync(join(parent, 'file'), '');
    const dataDir = join(parent, 'file', 'data');
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dataDir })).toThrow(`PICKPORT_DATA_DIR (${dataDir}) cannot be written (ENOTDIR)`);
    expect(() => loadConfig({ PICKPORT_DATA_DIR: dataDir, ADMIN_TOKEN: 'a-long-enough-admin-token', PICKPORT_SECRET_KEY: 'ab'.repeat(32) })).toThrow(
      ConfigError,
    );
  });
});
