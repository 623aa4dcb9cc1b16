import { chmodSync, closeSync, existsSync, fsync, fsyncSync, mkdirSync, openSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { ConfigError } from '../core/errors.js';
import type { Executor } from './SqlJournal.js';
import { stepsAfter } from './schema.js';
import { BorrowedStore, SqlStore } from './SqlStore.js';
import type { Hold } from './Store.js';

/** The store's file in the state dir; SQLite keeps its `-wal` and `-shm` files beside it. */
export const STORE_FILE = 'payer-onboard.db';

/**
 * The embedded store: one SQLite file in the state dir (Node's built-in `node:sqlite`, nothing native to build), in
 * WAL mode, so that readers (`status`, the web page) never wait for the run that writes. A commit is written to the
 * WAL at once, so a killed process loses nothing committed; the WAL reaches the disk at least every second (an fsync
 * on libuv's thread pool, not on the event loop) and at close, which covers the machine going down.
 *
 * node:sqlite is synchronous: every statement here is a lookup by primary key or index, or one short transaction.
 */
export class SqliteStore extends SqlStore {
  private readonly statements = new Map<string, StatementSync>();
  /** A query of the page reads in this thread: 10,000 payers at most, a few milliseconds. */
  protected override readonly payerSpan = 10_000;
  private syncTimer: NodeJS.Timeout | undefined;
  private syncing = false;
  private closed = false;

  private constructor(
    private readonly db: DatabaseSync,
    readonly location: string,
  ) {
    super();
  }

  /** Opens (or creates) the store of a state dir and brings its schema up to this version. */
  static open(stateDir: string): SqliteStore {
    const file = join(stateDir, STORE_FILE);
    try {
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      // Created by us first, so that SQLite's -wal and -shm files take the same mode: they hold what it holds.
      if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
      for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
    } catch (error) {
      throw unwritableStateDir(stateDir, error);
    }
    const network = networkFilesystem(statfsSync(stateDir).type);
    if (network !== undefined)
      throw new ConfigError(
        `the state dir ${stateDir} is on a network filesystem (${network}), where SQLite's locking and write-ahead log ` +
          'are not safe: give a local folder with --state-dir, or keep the store in PostgreSQL ' +
          '(PAYER_ONBOARD_DATABASE_URL), which several machines can share',
      );
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(file, { timeout: 10_000 });
      // secure_delete: a row deleted (a waiting row run to its end holds personal data) is overwritten, not left in a free page.
      db.exec(
        'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON',
      );
      // lower() as JavaScript and PostgreSQL (in a UTF-8 locale) lower text: SQLite's own lowers A to Z only, and the
      // Payers page's search for "émile" would miss "Émile".
      db.function('lower', { deterministic: true }, (text) => (typeof text === 'string' ? text.toLowerCase() : text));
      migrate(db, file);
    } catch (error) {
      db?.close();
      if (error instanceof ConfigError) throw error;
      throw storeError(file, error);
    }
    return new SqliteStore(db, file);
  }

  async hold(): Promise<Hold> {
    // SQLite coordinates one machine, and the machine-wide lock of the service and key does that.
    return {
      store: new BorrowedStore(this, this.sql),
      release: async () => undefined,
      onLost: () => () => undefined,
    };
  }

  /**
   * The journal's SQL, run at once: each promise is settled when it is returned. Also what `store copy` reads whole
   * tables through.
   */
  readonly sql: Executor = {
    one: async (sql, params) => this.statement(sql).get(...params),
    all: async (sql, params) => this.statement(sql).all(...params),
    batch: async (statements) =>
      this.transaction(() => {
        for (const [sql, params] of statements) this.statement(sql).run(...params);
      }),
    change: async (sql, params, durable) => {
      const { changes } = this.statement(sql).run(...params);
      if (durable) this.syncNow();
      else this.syncSoon();
      return Number(changes);
    },
  };

  /** The log on disk now, before this returns: what is answered 2xx must survive a power loss. */
  private syncNow(): void {
    const wal = `${this.location}-wal`;
    if (!existsSync(wal)) return;
    const fd = openSync(wal, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** A statement prepared once for the store's life. */
  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in one write transaction: all of it or nothing. */
  private transaction(work: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    this.syncSoon();
  }

  private syncSoon(): void {
    if (this.syncTimer !== undefined || this.closed) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      this.syncWal();
    }, 1000);
    this.syncTimer.unref();
  }

  private syncWal(): void {
    const wal = `${this.location}-wal`;
    if (this.syncing || this.closed || !existsSync(wal)) return;
    this.syncing = true;
    let fd: number;
    try {
      fd = openSync(wal, 'r');
    } catch {
      this.syncing = false;
      return;
    }
    fsync(fd, () => {
      this.syncing = false;
      closeSync(fd);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.syncTimer);
    // Another connection (a reader) keeps the WAL from being checkpointed by this close: make it durable here.
    this.syncNow();
    this.db.close();
  }
}

/** A state dir that cannot be made or written, in one sentence (exit 2: nothing was sent). */
export function unwritableStateDir(stateDir: string, error: unknown): ConfigError {
  const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new ConfigError(
    `the state dir ${stateDir} cannot be written (${why}): give a folder this user can write with --state-dir, or fix its permissions`,
  );
}

/** Filesystems reached over a network, by the magic number statfs(2) gives (linux/magic.h). */
const NETWORK_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x5346414f, 'afs'],
  [0x73757245, 'coda'],
  [0x564c, 'ncp'],
  [0x01161970, 'gfs2'],
  [0x7461636f, 'ocfs2'],
  [0x0bd00bd0, 'lustre'],
]);

/** The name of the network filesystem a statfs type is, if it is one. */
export function networkFilesystem(type: number | bigint): string | undefined {
  return NETWORK_FILESYSTEMS.get(Number(type) >>> 0);
}

/** Runs the steps of the schema this store lacks, once, whoever else starts at the same time. */
function migrate(db: DatabaseSync, file: string): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
    for (const step of stepsAfter(row.version ?? 0, file)) {
      db.exec(step.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        step.version,
        step.name,
        new Date().toISOString(),
      );
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** A store that cannot be opened, in one sentence: a damaged file says how to get back a good one. */
function storeError(file: string, error: unknown): ConfigError {
  const message = (error as Error).message ?? String(error);
  if (/not a database|malformed|corrupt/i.test(message))
    return new ConfigError(
      `the store ${file} is damaged (${message}): restore it from a backup (payer-onboard store backup makes one), ` +
        'or move it aside to start a new one: what was registered is read back from the service, so nothing is created twice',
    );
  return new ConfigError(`the store ${file} cannot be opened (${message})`);
}
