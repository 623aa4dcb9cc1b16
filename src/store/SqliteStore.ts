import { chmodSync, closeSync, existsSync, fsync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { ConfigError } from '../core/errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import type { CallRecord, JournalTables, JournalWrite, PayerChange, PayerRecord, Store } from './Store.js';

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
export class SqliteStore implements Store {
  private readonly statements = new Map<string, StatementSync>();
  private syncTimer: NodeJS.Timeout | undefined;
  private syncing = false;
  private closed = false;

  private constructor(
    private readonly db: DatabaseSync,
    readonly location: string,
  ) {}

  /** Opens (or creates) the store of a state dir and brings its schema up to this version. */
  static open(stateDir: string): SqliteStore {
    const file = join(stateDir, STORE_FILE);
    try {
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      // Created by us first, so that SQLite's -wal and -shm files take the same mode: they hold what it holds.
      if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
      for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
    } catch (error) {
      throw new ConfigError(
        `the state dir ${stateDir} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): ` +
          'give a folder this user can write with --state-dir, or fix its permissions',
      );
    }
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(file, { timeout: 10_000 });
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON');
      migrate(db, file);
    } catch (error) {
      db?.close();
      if (error instanceof ConfigError) throw error;
      throw storeError(file, error);
    }
    return new SqliteStore(db, file);
  }

  journal(service: string): JournalTables {
    return new SqliteJournal(this, service);
  }

  async services(): Promise<string[]> {
    const rows = this.statement("SELECT service FROM journal_settings WHERE name = 'opened' ORDER BY service").all();
    return rows.map((row) => String(row['service']));
  }

  /** A statement prepared once for the store's life. */
  statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in one write transaction: all of it or nothing. */
  transaction(work: () => void): void {
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

  syncSoon(): void {
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
    const wal = `${this.location}-wal`;
    if (existsSync(wal)) {
      const fd = openSync(wal, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    this.db.close();
  }
}

/** Runs the steps of the schema this store lacks, once, whoever else starts at the same time. */
function migrate(db: DatabaseSync, file: string): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
    const current = row.version ?? 0;
    if (current > SCHEMA_VERSION)
      throw new ConfigError(
        `the store ${file} is at schema version ${current}, written by a newer payer-onboard; this one knows version ` +
          `${SCHEMA_VERSION}: run the newer version (or restore a backup taken before it ran)`,
      );
    for (const step of MIGRATIONS) {
      if (step.version <= current) continue;
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

interface PayerRow {
  digest: string | null;
  field_digests: string | null;
  user_id: string | null;
  agreement_url: string | null;
  kyc_url: string | null;
  kyc_status: string | null;
  agreement_status: string | null;
  is_compliant: number | null;
  agreement_done: number;
  account_ids: string;
  accounts_known: number;
  since: string | null;
  checked_at: string | null;
}

const PAYER_COLUMNS =
  'digest, field_digests, user_id, agreement_url, kyc_url, kyc_status, agreement_status, is_compliant, ' +
  'agreement_done, account_ids, accounts_known, since, checked_at';

class SqliteJournal implements JournalTables {
  constructor(
    private readonly store: SqliteStore,
    readonly service: string,
  ) {}

  async call(key: string): Promise<CallRecord | undefined> {
    const row = this.store
      .statement('SELECT state, status, answer FROM journal_calls WHERE service = ? AND key = ?')
      .get(this.service, key) as { state: string; status: number | null; answer: string } | undefined;
    if (row === undefined) return undefined;
    const answer = JSON.parse(row.answer) as Record<string, string>;
    if (row.state === 'done') return { state: 'done', status: row.status ?? 200, answer };
    return Object.keys(answer).length === 0 ? { state: 'sent' } : { state: 'sent', answer };
  }

  async payer(key: string): Promise<PayerRecord | undefined> {
    const row = this.store
      .statement(`SELECT ${PAYER_COLUMNS} FROM journal_payers WHERE service = ? AND key = ?`)
      .get(this.service, key) as PayerRow | undefined;
    return row === undefined ? undefined : payerOf(row);
  }

  async payers(keys?: Iterable<string>): Promise<Map<string, PayerRecord>> {
    const found = new Map<string, PayerRecord>();
    if (keys !== undefined) {
      for (const key of keys) {
        const payer = await this.payer(key);
        if (payer !== undefined) found.set(key, payer);
      }
      return found;
    }
    const rows = this.store
      .statement(`SELECT key, ${PAYER_COLUMNS} FROM journal_payers WHERE service = ?`)
      .iterate(this.service) as Iterable<PayerRow & { key: string }>;
    for (const row of rows) found.set(row.key, payerOf(row));
    return found;
  }

  async payerKeyOfUser(userId: string): Promise<string | undefined> {
    const row = this.store
      .statement('SELECT key FROM journal_payers WHERE service = ? AND user_id = ? LIMIT 1')
      .get(this.service, userId) as { key: string } | undefined;
    return row?.key;
  }

  async changes(key: string): Promise<PayerChange[]> {
    const rows = this.store
      .statement(
        'SELECT at, kyc_status, agreement_status, accounts FROM journal_payer_changes WHERE service = ? AND key = ? ORDER BY seq',
      )
      .all(this.service, key) as Array<{
      at: string;
      kyc_status: string | null;
      agreement_status: string | null;
      accounts: number;
    }>;
    return rows.map((row) => ({
      at: row.at,
      ...(row.kyc_status === null ? {} : { kycStatus: row.kyc_status }),
      ...(row.agreement_status === null ? {} : { agreementStatus: row.agreement_status }),
      accounts: row.accounts,
    }));
  }

  async setting(name: string): Promise<string | undefined> {
    const row = this.store
      .statement('SELECT value FROM journal_settings WHERE service = ? AND name = ?')
      .get(this.service, name) as { value: string } | undefined;
    return row?.value;
  }

  async write(batch: readonly JournalWrite[]): Promise<void> {
    if (batch.length === 0) return;
    this.store.transaction(() => {
      for (const item of batch) {
        if ('call' in item) this.writeCall(item.call, item.record);
        else if ('payer' in item) this.writePayer(item.payer, item.record);
        else this.writeSetting(item.setting, item.value);
      }
    });
  }

  async forget(): Promise<void> {
    this.store.transaction(() => {
      for (const table of ['journal_calls', 'journal_payers', 'journal_payer_changes', 'journal_settings'])
        this.store.statement(`DELETE FROM ${table} WHERE service = ?`).run(this.service);
    });
  }

  private writeCall(key: string, record: CallRecord | undefined): void {
    if (record === undefined) {
      this.store.statement('DELETE FROM journal_calls WHERE service = ? AND key = ?').run(this.service, key);
      return;
    }
    this.store
      .statement(
        'INSERT INTO journal_calls (service, key, state, status, answer) VALUES (?, ?, ?, ?, ?) ' +
          'ON CONFLICT (service, key) DO UPDATE SET state = excluded.state, status = excluded.status, answer = excluded.answer',
      )
      .run(
        this.service,
        key,
        record.state,
        record.state === 'done' ? record.status : null,
        JSON.stringify(record.answer ?? {}),
      );
  }

  /** The payer's row, and a change of its history where its statuses or accounts differ from the row before. */
  private writePayer(key: string, record: PayerRecord): void {
    const before = this.store
      .statement(
        'SELECT kyc_status, agreement_status, agreement_done, account_ids FROM journal_payers WHERE service = ? AND key = ?',
      )
      .get(this.service, key) as
      | { kyc_status: string | null; agreement_status: string | null; agreement_done: number; account_ids: string }
      | undefined;
    const values = payerValues(record);
    this.store
      .statement(
        `INSERT INTO journal_payers (service, key, ${PAYER_COLUMNS}) VALUES (?, ?, ${PAYER_COLUMNS.split(',')
          .map(() => '?')
          .join(', ')}) ON CONFLICT (service, key) DO UPDATE SET ${PAYER_COLUMNS.split(', ')
          .map((column) => `${column} = excluded.${column}`)
          .join(', ')}`,
      )
      .run(this.service, key, ...values);
    const change = changeOf(record);
    const old =
      before === undefined
        ? undefined
        : changeOf({
            ...(before.kyc_status === null ? {} : { kycStatus: before.kyc_status }),
            ...(before.agreement_status === null ? {} : { agreementStatus: before.agreement_status }),
            agreementDone: before.agreement_done === 1,
            accountIds: pairsOf(before.account_ids),
            accountsKnown: false,
          });
    if (
      old !== undefined &&
      old.kycStatus === change.kycStatus &&
      old.agreementStatus === change.agreementStatus &&
      old.accounts === change.accounts
    )
      return;
    this.store
      .statement(
        'INSERT INTO journal_payer_changes (service, key, seq, at, kyc_status, agreement_status, accounts) ' +
          'SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM journal_payer_changes WHERE service = ? AND key = ?',
      )
      .run(
        this.service,
        key,
        record.checkedAt ?? record.since ?? '',
        change.kycStatus ?? null,
        change.agreementStatus ?? null,
        change.accounts,
        this.service,
        key,
      );
  }

  private writeSetting(name: string, value: string | undefined): void {
    if (value === undefined) {
      this.store.statement('DELETE FROM journal_settings WHERE service = ? AND name = ?').run(this.service, name);
      return;
    }
    this.store
      .statement(
        'INSERT INTO journal_settings (service, name, value) VALUES (?, ?, ?) ' +
          'ON CONFLICT (service, name) DO UPDATE SET value = excluded.value',
      )
      .run(this.service, name, value);
  }
}

/** A payer's row as its record: the one place its columns are decoded. */
function payerOf(row: PayerRow): PayerRecord {
  return {
    ...(row.digest === null ? {} : { digest: row.digest }),
    ...(row.field_digests === null ? {} : { fieldDigests: row.field_digests }),
    ...(row.user_id === null ? {} : { userId: row.user_id }),
    ...(row.agreement_url === null ? {} : { agreementUrl: row.agreement_url }),
    ...(row.kyc_url === null ? {} : { kycUrl: row.kyc_url }),
    ...(row.kyc_status === null ? {} : { kycStatus: row.kyc_status }),
    ...(row.agreement_status === null ? {} : { agreementStatus: row.agreement_status }),
    ...(row.is_compliant === null ? {} : { isCompliant: row.is_compliant === 1 }),
    agreementDone: row.agreement_done === 1,
    accountIds: pairsOf(row.account_ids),
    accountsKnown: row.accounts_known === 1,
    ...(row.since === null ? {} : { since: row.since }),
    ...(row.checked_at === null ? {} : { checkedAt: row.checked_at }),
  };
}

/** The record's values in the order of PAYER_COLUMNS. */
function payerValues(record: PayerRecord): SQLInputValue[] {
  return [
    record.digest ?? null,
    record.fieldDigests ?? null,
    record.userId ?? null,
    record.agreementUrl ?? null,
    record.kycUrl ?? null,
    record.kycStatus ?? null,
    record.agreementStatus ?? null,
    record.isCompliant === undefined ? null : record.isCompliant ? 1 : 0,
    record.agreementDone ? 1 : 0,
    JSON.stringify(record.accountIds),
    record.accountsKnown ? 1 : 0,
    record.since ?? null,
    record.checkedAt ?? null,
  ];
}

function changeOf(record: PayerRecord): Omit<PayerChange, 'at'> {
  const agreement = record.agreementDone ? 'completed' : record.agreementStatus;
  return {
    ...(record.kycStatus === undefined ? {} : { kycStatus: record.kycStatus }),
    ...(agreement === undefined ? {} : { agreementStatus: agreement }),
    accounts: record.accountIds.length,
  };
}

/** Account key and id pairs as stored (a JSON array); none when it is not such a list. */
export function pairsOf(text: string): Array<[string, string]> {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (pair): pair is [string, string] =>
        Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string',
    );
  } catch {
    return [];
  }
}
