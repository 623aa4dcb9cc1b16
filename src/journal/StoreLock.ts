import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type Holder, holderOf, lockedBy } from '../store/holder.js';
import { unwritableStateDir } from '../store/SqliteStore.js';

/**
 * One run at a time per service and key on a state dir, whoever shares it: a SQLite database in the state dir's
 * `locks/` held in an exclusive transaction for the run's life. The kernel's file locks hold across every process
 * that opens the file, also from another network namespace (a container with the state dir mounted), where the
 * machine's lock does not reach; the lock goes with its process, however it ends. Who holds it is written beside it.
 */
export class StoreLock {
  private constructor(
    private readonly db: DatabaseSync,
    /** Who holds it, written beside it for the one turned away. */
    private readonly who: string,
  ) {}

  static acquire(stateDir: string, service: string, holder: Holder, using: string): StoreLock {
    const dir = join(stateDir, 'locks');
    const who = join(dir, `${service}.holder.json`);
    let db: DatabaseSync;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Made by us first, readable by this user only, like everything of the state dir.
      const file = join(dir, `${service}.lock`);
      if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
      // No waiting: a busy lock is refused at once.
      db = new DatabaseSync(file, { timeout: 0 });
    } catch (error) {
      throw unwritableStateDir(stateDir, error);
    }
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if (!/locked|busy/i.test((error as Error).message)) throw unwritableStateDir(stateDir, error);
      throw lockedBy(holderIn(who), using);
    }
    const lock = new StoreLock(db, who);
    try {
      writeFileSync(who, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
    } catch (error) {
      lock.release();
      throw unwritableStateDir(stateDir, error);
    }
    return lock;
  }

  release(): void {
    rmSync(this.who, { force: true });
    if (this.db.isTransaction) this.db.exec('ROLLBACK');
    this.db.close();
  }
}

function holderIn(path: string): Holder {
  try {
    if (existsSync(path)) return holderOf(readFileSync(path, 'utf8'));
  } catch {
    // written by the holder as it took the lock: gone or half written, it names nobody
  }
  return { pid: 0, host: 'a process that shares this state dir', startedAt: 'at an unknown time' };
}
