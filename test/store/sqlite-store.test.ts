import { spawn } from 'node:child_process';
import { existsSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { networkFilesystem, STORE_FILE, SqliteStore } from '../../src/store/SqliteStore.js';
import type { PayerRecord } from '../../src/store/Store.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

const mode = (path: string) => statSync(path).mode & 0o777;
const refusal = (open: () => unknown): ConfigError => {
  try {
    open();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the store opened');
};

const payer = (over: Partial<PayerRecord> = {}): PayerRecord => ({
  agreementDone: false,
  accountIds: [],
  accountsKnown: false,
  ...over,
});

describe('the SQLite store', () => {
  it('is one file in the state dir, in WAL mode, its files readable by this user only', async () => {
    const dir = join(tmp.dir, 'state');
    const store = SqliteStore.open(dir);
    await store.journal('s').write([{ setting: 'opened', value: 'now' }]);
    const file = join(dir, STORE_FILE);
    expect(store.location).toBe(file);
    expect(mode(dir)).toBe(0o700);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect([path, mode(path)]).toEqual([path, 0o600]);
    const db = new DatabaseSync(file, { readOnly: true });
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: SCHEMA_VERSION });
    db.close();
    store.close();
  });

  it('keeps each payer by named fields, and a change of its statuses or accounts as its history', async () => {
    const store = SqliteStore.open(tmp.dir);
    const journal = store.journal('s');
    await journal.write([{ payer: 'p1', record: payer({ kycStatus: 'initiated', since: 't1', checkedAt: 't1' }) }]);
    await journal.write([{ payer: 'p1', record: payer({ kycStatus: 'initiated', since: 't1', checkedAt: 't2' }) }]);
    const approved = payer({
      kycStatus: 'approved',
      userId: 'u-1',
      isCompliant: true,
      agreementDone: true,
      accountIds: [['a1', 'pd-1']],
      since: 't1',
      checkedAt: 't3',
    });
    await journal.write([{ payer: 'p1', record: approved }]);
    expect(await journal.payer('p1')).toEqual(approved);
    expect(await journal.payerKeyOfUser('u-1')).toBe('p1');
    expect(await journal.changes('p1')).toEqual([
      { at: 't1', kycStatus: 'initiated', accounts: 0 },
      { at: 't3', kycStatus: 'approved', agreementStatus: 'completed', accounts: 1 },
    ]);
    // Another service's journal in the same store knows none of it.
    expect(await store.journal('other').payer('p1')).toBeUndefined();
    expect([...(await journal.payers()).keys()]).toEqual(['p1']);
    store.close();
  });

  it('writes a batch whole or not at all', async () => {
    const store = SqliteStore.open(tmp.dir);
    const journal = store.journal('s');
    const broken = { payer: 'p2', record: payer({ accountIds: 7 as unknown as [] }) };
    await expect(
      journal.write([{ call: 'c1', record: { state: 'sent' } }, broken, { setting: 'gate', value: 'gated' }]),
    ).rejects.toThrow();
    expect(await journal.call('c1')).toBeUndefined();
    expect(await journal.setting('gate')).toBeUndefined();
    store.close();
  });

  it('refuses a store written by a newer version, naming both versions', () => {
    SqliteStore.open(tmp.dir).close();
    const db = new DatabaseSync(join(tmp.dir, STORE_FILE));
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from the future', 'now')").run(
      SCHEMA_VERSION + 1,
    );
    db.close();
    const error = refusal(() => SqliteStore.open(tmp.dir));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      `the store ${join(tmp.dir, STORE_FILE)} is at schema version ${SCHEMA_VERSION + 1}, written by a newer ` +
        `payer-onboard; this one knows version ${SCHEMA_VERSION}: run the newer version (or restore a backup taken before it ran)`,
    );
  });

  it('refuses a damaged file in one sentence that says how to get a good one back', () => {
    writeFileSync(join(tmp.dir, STORE_FILE), 'these are not the pages of a database '.repeat(200));
    const error = refusal(() => SqliteStore.open(tmp.dir));
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(
      /^the store .*payer-onboard\.db is damaged \(.*\): restore it from a backup .*, or move it aside to start a new one/,
    );
  });

  it('refuses a state dir it cannot make, naming it', () => {
    const file = tmp.write('a-file', '');
    const error = refusal(() => SqliteStore.open(join(file, 'state')));
    expect(error.message).toBe(
      `the state dir ${join(file, 'state')} cannot be written (ENOTDIR): give a folder this user can write with --state-dir, or fix its permissions`,
    );
    expect(existsSync(join(file, 'state'))).toBe(false);
  });

  it('refuses a state dir on a network filesystem, whose locks SQLite cannot trust, and takes a local one', () => {
    // statfs(2)'s magic numbers as linux/magic.h has them: NFS, CIFS, SMB2, 9p (WSL's Windows drives).
    expect([0x6969, 0xff534d42, 0xfe534d42, 0x01021997].map(networkFilesystem)).toEqual(['nfs', 'cifs', 'smb2', '9p']);
    // ext4 and tmpfs, where the tests run.
    expect([0xef53, 0x01021994].map(networkFilesystem)).toEqual([undefined, undefined]);
    expect(networkFilesystem(statfsSync(tmp.dir).type)).toBeUndefined();
  });

  it('runs its migrations once when several processes open a new store at the same moment', async () => {
    const module = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'store', 'SqliteStore.js')).href;
    const script = `const { SqliteStore } = await import(${JSON.stringify(module)}); SqliteStore.open(${JSON.stringify(tmp.dir)}).close();`;
    const codes = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<number | null>((resolve, reject) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
            child.on('error', reject);
            child.on('close', resolve);
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const db = new DatabaseSync(join(tmp.dir, STORE_FILE), { readOnly: true });
    expect(db.prepare('SELECT version FROM schema_migrations').all()).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
    );
    db.close();
  });
});
