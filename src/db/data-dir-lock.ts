import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDirError, StartupError } from '../config';

/** The file in the data directory naming the process that has it (docs/architecture.md, "One process per data directory"). */
export const LOCK_FILE = 'pickport.lock';

interface Holder {
  pid: number;
  command: string;
  startedAt: string;
  /** Linux: the process's start time in clock ticks since boot, which a later process on the same pid does not share. */
  ticks?: number;
  /** Linux: the boot the process ran in; a lock from an earlier boot is stale whatever its pid. */
  boot?: string;
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** The lock file's text; undefined when there is none. */
function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** What /proc says, where there is one. */
function proc(file: string): string | undefined {
  try {
    return readFileSync(`/proc/${file}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat; the command name before it may hold spaces and parentheses. */
function startTicks(pid: number): number | undefined {
  const stat = proc(`${pid}/stat`);
  const ticks = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return ticks === undefined ? undefined : Number(ticks);
}

const bootId = () => proc('sys/kernel/random/boot_id');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return code(error) === 'EPERM';
  }
}

/** Whether the recorded process still runs: its pid alive and, where /proc tells, the same process rather than a later one on that pid. */
function holds(holder: Holder): boolean {
  const boot = bootId();
  if (holder.boot !== undefined && boot !== undefined && holder.boot !== boot) return false;
  // Our own pid is not the holder, as we have not taken it (a container's pid 1 starting again).
  if (holder.pid === process.pid || !alive(holder.pid)) return false;
  const ticks = startTicks(holder.pid);
  return holder.ticks === undefined || ticks === undefined || holder.ticks === ticks;
}

function parse(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the data directory for this process, or throws a StartupError naming the process that has
 * it. The lock file appears whole, by link(2) of a written draft, which fails if it exists: a
 * reader never sees it half-written. A lock whose process is gone (killed, so nothing removed it)
 * is taken over at once. Released when this process exits.
 */
export function lockDataDir(dataDir: string, command: string): void {
  const path = join(dataDir, LOCK_FILE);
  const ticks = startTicks(process.pid);
  const boot = bootId();
  const mine: Holder = {
    pid: process.pid,
    command,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    ...(ticks !== undefined ? { ticks } : {}),
    ...(boot !== undefined ? { boot } : {}),
  };
  const text = JSON.stringify(mine);
  const draft = `${path}.${randomUUID()}`;
  try {
    writeFileSync(draft, `${text}\n`);
    for (;;) {
      try {
        linkSync(draft, path);
        break;
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      const found = readLock(path);
      if (found === undefined) continue; // released meanwhile
      const holder = parse(found);
      if (holder && holds(holder)) {
        throw new StartupError(
          `PICKPORT_DATA_DIR (${dataDir}) is in use by another Pickport process: pid ${holder.pid} (${holder.command}, started ${holder.startedAt}); stop it first, or give this one another PICKPORT_DATA_DIR`,
        );
      }
      takeOver(path, found);
    }
  } catch (error) {
    throw error instanceof StartupError ? error : dataDirError(dataDir, error);
  } finally {
    rmSync(draft, { force: true });
  }
  process.once('exit', () => {
    try {
      if (readLock(path) === text) rmSync(path);
    } catch {
      // Nothing to release: the process ends either way.
    }
  });
}

/**
 * Removes the stale lock `found`. It is moved aside first and compared: if another start took the
 * directory over since we read it, its lock is what moved, and it is put back. So two starts
 * taking over at the same moment do not both win.
 */
function takeOver(path: string, found: string): void {
  const aside = `${path}.${randomUUID()}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (code(error) === 'ENOENT') return; // another start moved it: look again
    throw error;
  }
  try {
    if (readLock(aside) !== found) linkSync(aside, path);
  } catch (error) {
    // EEXIST: a third start's lock is there now; the next look judges it.
    if (code(error) !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}
