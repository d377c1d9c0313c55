import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { ADMIN_TOKEN, type TestContext } from './context';

/** A `pickport` command running in its own process. */
export interface PickportProcess {
  child: ChildProcess;
  /** The `msg` of the log line that says it has started; rejects if it exits first. */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

/**
 * Starts `node bin/pickport.js serve|worker` the way an operator does, against the test context's
 * PostgreSQL schema (or the bench's), with its admin token and secret key, and kills whatever is
 * left at the end.
 * Processes sharing a database need DATABASE_URL: the embedded database lives inside one process
 * (`embedded` starts them on one data directory, where only one at a time may run).
 */
export class PickportProcesses {
  readonly #children: ChildProcess[] = [];

  private constructor(
    readonly env: Record<string, string>,
    /** The checkout whose bin/pickport.js runs. */
    readonly root = process.cwd(),
  ) {}

  /** `env` is added to every process's environment (on top of this process's and the context's). */
  static async forContext(ctx: Pick<TestContext, 'database' | 'config'>, env: Record<string, string> = {}, root?: string): Promise<PickportProcesses> {
    // The processes confine themselves to this file's schema, like the test database does.
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(ctx.database.db);
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${rows[0]!.schema}`);
    return new PickportProcesses({
      DATABASE_URL: url.toString(),
      ADMIN_TOKEN,
      PICKPORT_SECRET_KEY: ctx.config.secretKey.toString('hex'),
      PICKPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...env,
    }, root);
  }

  /** Processes on the embedded database in `dataDir`, with the test admin token. */
  static embedded(dataDir: string, root?: string): PickportProcesses {
    return new PickportProcesses({ PICKPORT_DATA_DIR: dataDir, ADMIN_TOKEN, NODE_ENV: 'test', LOG_LEVEL: 'info' }, root);
  }

  start(command: 'serve' | 'worker', readyMessage: RegExp, env: Record<string, string> = {}): PickportProcess {
    const child = spawn(process.execPath, ['bin/pickport.js', command], {
      cwd: this.root,
      env: { ...process.env, PICKPORT_DATA_DIR: join(tmpdir(), `pickport-${command}-${randomUUID()}`), ...this.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.#children.push(child);
    const ready = new Promise<string>((resolve, reject) => {
      // Logs are JSON lines (pino); every line is read, so the pipe never fills.
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const msg = logMessage(line);
        if (msg !== undefined && readyMessage.test(msg)) resolve(msg);
      });
      child.once('exit', (code) => reject(new Error(`pickport ${command} exited with ${code} before it started`)));
    });
    ready.catch(() => {});
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, ready, exited };
  }

  /** `pickport worker`; ready once it says it has started. */
  worker(env: Record<string, string> = {}): PickportProcess {
    return this.start('worker', /^webhook delivery worker started$/, env);
  }

  /** `pickport serve` on a free port of loopback, the HTTP API only (deliveries are the workers'); resolves with its base URL. */
  async serve(env: Record<string, string> = {}): Promise<{ process: PickportProcess; url: string }> {
    const started = this.start('serve', /^Server listening at http:\/\//, { PORT: '0', HOST: '127.0.0.1', PICKPORT_NO_WORKER: 'true', ...env });
    const url = (await started.ready).replace('Server listening at ', '');
    return { process: started, url };
  }

  /** SIGKILLs every process still running. */
  killAll(): void {
    for (const child of this.#children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function logMessage(line: string): string | undefined {
  try {
    const parsed = JSON.parse(line) as { msg?: unknown };
    return typeof parsed.msg === 'string' ? parsed.msg : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which of `pids` holds the TCP connection whose local port is `port` (Linux: the socket's inode
 * from /proc/net/tcp*, then the process whose descriptors include it). A receiver sees a
 * connection's remote port; this names the process that sent on it.
 */
export async function pidOwningPort(pids: number[], port: number): Promise<number | undefined> {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns[1]?.endsWith(hexPort) && columns[9] !== undefined) inodes.add(columns[9]);
    }
  }
  for (const pid of pids) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return pid;
    }
  }
  return undefined;
}
