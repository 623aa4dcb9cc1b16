import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { Journal } from './Journal.js';
import { LockedError } from '../errors.js';
import { createHash } from 'node:crypto';

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
  runId?: string;
}

/**
 * One run at a time per state dir: two runs over the same journal could both send a call the other has not
 * recorded yet. The lock is a file created exclusively; a lock whose process is gone (same host, pid not alive)
 * is taken over, so a crash never blocks the next cron run.
 */
export class StateLock {
  private constructor(readonly path: string) {}

  static acquire(stateDir: string, runId: string, what = 'run'): StateLock {
    const path = join(stateDir, 'lock');
    const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), runId };
    for (let attempt = 0; attempt < 3; attempt++) {
      // Written whole to a temporary file, then linked into place (atomic, fails if the lock exists): another
      // process never sees a lock file without its holder in it.
      const temp = `${path}.${process.pid}.${Date.now()}`;
      const fd = openSync(temp, 'wx', 0o600);
      writeSync(fd, `${JSON.stringify(me)}\n`);
      closeSync(fd);
      try {
        linkSync(temp, path);
        return new StateLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        unlinkSync(temp);
      }
      const holder = readHolder(path);
      if (holder !== undefined && !isStale(holder)) {
        throw new LockedError(
          `another ${what} is using ${stateDir}: pid ${holder.pid} on ${holder.host}, started ${holder.startedAt}` +
            `${holder.runId ? ` (run ${holder.runId})` : ''}. Wait for it to finish (a lock left by a process that died on this machine is taken over at once; one from another machine, delete ${path} once that run is gone).`,
        );
      }
      // Stale (its process is gone) or unreadable: take it over. Two runs taking over the same stale lock at the
      // same instant could both succeed; that needs two runs started within microseconds of each other.
      try {
        unlinkSync(path);
      } catch {
        // another process took it over first; the next attempt sees its lock
      }
    }
    throw new LockedError(`could not take the lock ${path}: another run keeps taking it`);
  }

  release(): void {
    try {
      const holder = readHolder(this.path);
      if (holder?.pid === process.pid && holder.host === hostname()) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

function readHolder(path: string): Holder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string') return undefined;
    return {
      pid: value.pid,
      host: value.host,
      startedAt: String(value.startedAt ?? 'at an unknown time'),
      ...(value.runId ? { runId: String(value.runId) } : {}),
    };
  } catch {
    return undefined;
  }
}

/** A lock is stale when its process is gone; on another host we cannot tell, so it is respected. */
function isStale(holder: Holder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The folder of one API's journal inside the state dir: one per base URL and key, so a rehearsal against a sandbox
 * never makes a real run think its payers exist (the real service's sandbox is a setting of the key, on the same
 * host). Named by host for people and by a hash for uniqueness. A new key starts a new journal: the reads of what
 * the service stores keep that safe, at a read a row.
 */
export function journalDir(stateDir: string, baseUrl: string, apiKey: string): string {
  const normalized = baseUrl.replace(/\/+$/, '');
  let host = 'api';
  try {
    host = new URL(normalized).host.replace(/[^a-zA-Z0-9.-]/g, '_');
  } catch {
    // checked earlier; the hash alone still keeps journals apart
  }
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  const hash = createHash('sha256').update(`${normalized}\u0000${keyHash}`).digest('hex').slice(0, 12);
  return join(stateDir, `${host}-${hash}`);
}

/** Opens the journal; lines a crash left half-written are skipped with a warning, never fatal. */
export async function openJournal(
  path: string,
  warnings: string[],
  logger: Logger,
  stderr: NodeJS.WritableStream | undefined,
): Promise<Journal> {
  const dir = dirname(path);
  if (!existsSync(dir)) {
    // A journal is kept per API and key: a rotated key starts afresh. Say so, since what it forgets matters.
    const host = basename(dir).replace(/-[0-9a-f]{12}$/, '');
    const others = readdirSync(dirname(dir)).filter((name) => name !== basename(dir) && name.startsWith(`${host}-`));
    if (others.length > 0) {
      const warning =
        `no journal of this API key at ${host} yet (${others.length} of another key in ${dirname(dir)}): this run starts a new one. ` +
        'What was registered is read back from the service, so nothing is created twice, but payer cells changed since ' +
        'they were registered cannot be noticed, and --max-wait counts from today';
      warnings.push(warning);
      stderr?.write(`warning: ${warning}\n`);
    }
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { journal, load } = await Journal.open(path);
  logger.info({ journal: path, ...load }, 'journal loaded');
  if (load.corrupt > 0) {
    const warning = `journal ${path}: skipped ${load.corrupt} unreadable line${load.corrupt === 1 ? '' : 's'} (a crash mid-write); what they recorded is read back from the service before anything is created again`;
    warnings.push(warning);
    stderr?.write(`warning: ${warning}\n`);
  }
  return journal;
}
