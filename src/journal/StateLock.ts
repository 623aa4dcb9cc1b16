import { closeSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { LockedError } from '../core/errors.js';

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
  runId?: string;
  /** Where the holder keeps its journal: the other run a person has to find. */
  stateDir?: string;
}

/** What a lock guards, for the message that turns a second process away. */
export interface LockSubject {
  /** The kind of process that holds it: `run`, `inbox`. */
  what: string;
  /** What it is using, as the message names it: a folder, or a service and key. */
  using: string;
  /** The taker's state dir, written into the lock for the next one's message. */
  stateDir?: string;
}

/**
 * One process at a time on what a lock file guards: two runs over the same journal, or against the same service
 * and key, could both send a call the other has not recorded yet. The lock is a file created exclusively; a lock
 * whose process is gone (same host, pid not alive) is taken over, so a crash never blocks the next cron run.
 */
export class StateLock {
  private constructor(readonly path: string) {}

  static acquire(path: string, runId: string, subject: LockSubject): StateLock {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const me: Holder = {
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      runId,
      ...(subject.stateDir ? { stateDir: subject.stateDir } : {}),
    };
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
        const where = holder.stateDir ? `, state dir ${holder.stateDir}` : '';
        // `serve` never finishes by itself: it is named as what it is, and stopped rather than waited for.
        const serving = holder.runId === 'serve';
        const who = serving ? 'payer-onboard serve' : `another ${subject.what}`;
        const run = holder.runId && !serving ? ` (run ${holder.runId})` : '';
        const then = serving ? 'Stop it first (or let it do this: it runs the inbox itself)' : 'Wait for it to finish';
        throw new LockedError(
          `${who} is using ${subject.using}: pid ${holder.pid} on ${holder.host}${where}, started ${holder.startedAt}${run}. ` +
            `${then} (a lock left by a process that died on this machine is taken over at once; one from another machine, delete ${path} once that process is gone).`,
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
      ...(typeof value.stateDir === 'string' ? { stateDir: value.stateDir } : {}),
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
