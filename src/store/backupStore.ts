import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { ConfigError } from '../core/errors.js';
import { STORE_FILE } from './SqliteStore.js';

/** What a backup wrote. */
export interface BackedUp {
  from: string;
  to: string;
  bytes: number;
}

/** Every page in one step: one read transaction, so that writers in the meantime never make SQLite start over. */
const ALL_PAGES = 2 ** 31 - 1;

/**
 * A consistent copy of the SQLite store of a state dir, made while runs may be writing it: SQLite's online backup
 * reads the store as of one moment (in WAL mode the writers go on meanwhile), commits still in the write-ahead log
 * included, which a copy of the file alone would miss. It is written beside `to` with mode 0600 (it holds what the
 * store holds) and renamed into place, so `to` is never half a copy.
 */
export async function backupStore(stateDir: string, to: string, force: boolean): Promise<BackedUp> {
  const from = join(stateDir, STORE_FILE);
  if (!existsSync(from))
    throw new ConfigError(
      `no store to back up in ${stateDir} (no ${STORE_FILE}): give the state dir the runs use with --state-dir`,
      'E_USAGE',
    );
  if (existsSync(to)) {
    const [file, store] = [statSync(to), statSync(from)];
    if (file.ino === store.ino && file.dev === store.dev)
      throw new ConfigError(`${to} is the store itself: give the backup another name`, 'E_USAGE');
    if (!force) throw new ConfigError(`${to} already exists (use --force to replace it)`, 'E_USAGE');
  }
  const partial = `${resolve(to)}.partial-${process.pid}`;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(from, { readOnly: true, timeout: 10_000 });
    closeSync(openSync(partial, 'wx', 0o600));
    await backup(db, partial, { rate: ALL_PAGES });
    const fd = openSync(partial, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // A log and index beside `to` are an older file's, and SQLite would read that log into this copy.
    for (const suffix of ['-wal', '-shm']) rmSync(`${to}${suffix}`, { force: true });
    renameSync(partial, to);
  } catch (error) {
    rmSync(partial, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code && !code.startsWith('ERR_') ? code : (error as Error).message;
    throw new ConfigError(`cannot back up the store ${from} to ${to} (${reason})`);
  } finally {
    db?.close();
  }
  return { from, to, bytes: statSync(to).size };
}
