import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ADMIN_PREFIX } from '../api-prefixes';
import { ConfigError, StartupError } from '../config';

export interface ClientOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** The admin token the operator commands use unless --token is given: ADMIN_TOKEN, else the data directory's. */
export function defaultToken(): string | undefined {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  try {
    return readFileSync(join(resolve(process.env.PICKPORT_DATA_DIR || './data'), 'admin-token'), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The service's address and the setting it came from, for messages that must name it. */
export function serviceAddress(options: ClientOptions): { base: string; setting: string } {
  if (options.url) return { base: options.url, setting: '--url' };
  if (process.env.PICKPORT_URL) return { base: process.env.PICKPORT_URL, setting: 'PICKPORT_URL' };
  return { base: `http://127.0.0.1:${process.env.PORT || 3000}`, setting: 'PORT' };
}

type Payload = { success: boolean; data?: never; error?: { code: string; message: string; details?: { field: string; message: string }[] } };

/** Sends one operator call; a service that cannot be reached or is not Pickport is one clear line. */
async function request(options: ClientOptions, method: string, path: string, body?: unknown): Promise<Payload> {
  const { base, setting } = serviceAddress(options);
  const token = options.token ?? defaultToken();
  if (!token) throw new ConfigError('No admin token: pass --token, set ADMIN_TOKEN, or run where PICKPORT_DATA_DIR holds one');
  let url: URL;
  try {
    url = new URL(`${base.replace(/\/$/, '')}${ADMIN_PREFIX}${path}`);
  } catch {
    throw new ConfigError(`${setting} is not a valid URL: "${base}"`);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code === 'ECONNREFUSED' ? 'connection refused' : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new StartupError(`Cannot reach the Pickport service at ${base} (${setting}): ${why}`);
  }
  try {
    return (await response.json()) as Payload;
  } catch {
    throw new StartupError(`The service at ${base} (${setting}) answered ${response.status} without Pickport's JSON: is it the right address?`);
  }
}

/** The code and message, then each field's problem on a line of its own: the message names only the first. */
function describeError(error: Payload['error']): string {
  if (!error?.details?.length) return `${error?.code}: ${error?.message}`;
  return [`${error.code}: the request was refused`, ...error.details.map((d) => `  ${d.field} ${d.message}`)].join('\n');
}

/** Calls the operator API and prints the answer: JSON with --json, otherwise a short summary. */
export async function call(options: ClientOptions, method: string, path: string, body?: unknown, summarize?: (data: never) => string) {
  const payload = await request(options, method, path, body);
  if (options.json) {
    console.log(JSON.stringify(payload, null, 2));
  } else if (payload.success && payload.data !== undefined) {
    console.log(summarize ? summarize(payload.data) : JSON.stringify(payload.data, null, 2));
  } else {
    console.error(describeError(payload.error));
  }
  if (!payload.success) process.exitCode = 1;
}

const list = (value: string) => value.split(',').map((part) => part.trim()).filter(Boolean);

interface KeyData {
  id: string;
  key?: string;
  prefix: string;
  permissions: string[];
  status?: string;
}
const describeKey = (k: KeyData) =>
  `${k.id}  ${k.key ?? `${k.prefix}…`}  ${k.permissions.join(',')}${k.status ? `  ${k.status}` : ''}`;

/** The options every operator command takes: where the service is, the admin token, raw JSON. */
export const withClientOptions = (command: Command) =>
  command
    .option('--url <url>', 'service address (default $PICKPORT_URL or http://127.0.0.1:$PORT)')
    .option('--token <token>', 'admin token (default $ADMIN_TOKEN or the one in the data directory)')
    .option('--json', 'print the raw JSON response');

/** `tenants` and `keys`: thin clients of the operator API. */
export function addOperatorCommands(program: Command): void {
  const tenants = program.command('tenants').description('manage tenants');
  withClientOptions(tenants.command('create').description('create a tenant').requiredOption('--slug <slug>', 'its name in URLs').requiredOption('--name <name>')).action(
    (options: ClientOptions & { slug: string; name: string }) =>
      call(options, 'POST', '/tenants', { slug: options.slug, name: options.name }, (t: { id: string; slug: string }) => `${t.slug}  ${t.id}`),
  );
  withClientOptions(tenants.command('list').description('list the tenants')).action((options: ClientOptions) =>
    call(options, 'GET', '/tenants', undefined, (all: { slug: string; name: string }[]) => all.map((t) => `${t.slug}  ${t.name}`).join('\n')),
  );

  const keys = program.command('keys').description('manage API keys');
  withClientOptions(
    keys
      .command('create <tenantSlug>')
      .description('issue an API key (printed once)')
      .requiredOption('--permissions <list>', 'comma-separated, e.g. products:read,orders:write', list)
      .option('--name <name>')
      .option('--rate-limit <perMinute>', 'requests per minute', Number)
      .option('--daily-limit <perDay>', 'requests per UTC day', Number)
      .option('--allowed-ips <list>', 'comma-separated addresses or CIDR ranges', list)
      .option('--expires-at <iso>', 'ISO 8601 expiry'),
  ).action(
    (
      slug: string,
      options: ClientOptions & {
        permissions: string[];
        name?: string;
        rateLimit?: number;
        dailyLimit?: number;
        allowedIps?: string[];
        expiresAt?: string;
      },
    ) =>
      call(
        options,
        'POST',
        `/tenants/${encodeURIComponent(slug)}/api-keys`,
        {
          permissions: options.permissions,
          name: options.name,
          rateLimitPerMinute: options.rateLimit,
          dailyLimit: options.dailyLimit,
          allowedIps: options.allowedIps,
          expiresAt: options.expiresAt,
        },
        describeKey,
      ),
  );
  withClientOptions(keys.command('list <tenantSlug>').description("list the tenant's keys")).action((slug: string, options: ClientOptions) =>
    call(options, 'GET', `/tenants/${encodeURIComponent(slug)}/api-keys`, undefined, (all: KeyData[]) => all.map(describeKey).join('\n')),
  );
  withClientOptions(keys.command('revoke <keyId>').description('revoke a key at once')).action((id: string, options: ClientOptions) =>
    call(options, 'POST', `/api-keys/${encodeURIComponent(id)}/revoke`, undefined, describeKey),
  );
  withClientOptions(keys.command('rotate <keyId>').description('replace a key by a new one like it')).action((id: string, options: ClientOptions) =>
    call(options, 'POST', `/api-keys/${encodeURIComponent(id)}/rotate`, undefined, describeKey),
  );
}
