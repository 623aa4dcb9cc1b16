import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { STORE_FILE, SqliteStore } from '../../src/store/SqliteStore.js';
import type { PayerRecord } from '../../src/store/Store.js';
import { memoryStream } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

// `payer-onboard store backup` on a store that a run keeps writing, and the refusals of `store` that need no server
// (copying into PostgreSQL is test/store/pg-copy.test.ts).

let tmp: ReturnType<typeof tempDir>;
let stateDir: string;
beforeEach(() => {
  tmp = tempDir();
  stateDir = tmp.path('state');
});
afterEach(() => tmp.remove());

async function payerOnboard(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out = memoryStream();
  const err = memoryStream();
  const io = { stdout: out.stream, stderr: err.stream, env, cwd: tmp.dir, signal: new AbortController().signal };
  const code = await cli(args, io);
  return { code, stdout: out.text(), stderr: err.text() };
}

const payer = (i: number): PayerRecord => ({
  userId: `user-${i}`,
  kycStatus: 'initiated',
  agreementDone: false,
  accountIds: [[`account-${i}`, `id-${i}`]],
  accountsKnown: true,
  since: '2025-01-01T00:00:00.000Z',
});

/** A store with a journal of `count` payers, left open: what a run holds while it writes. */
async function openStore(count: number) {
  const store = SqliteStore.open(stateDir);
  const journal = store.journal('api.example.com-0123456789ab');
  await journal.write([{ setting: 'opened', value: '2025-01-01T00:00:00.000Z' }]);
  for (let i = 0; i < count; i++) await journal.write([{ payer: `p${i}`, record: payer(i) }]);
  return { store, journal };
}

/** The backup put in a state dir of its own (a restore) and opened as the store it is. */
async function restored(file: string) {
  const dir = tmp.path(`restored-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir);
  copyFileSync(file, join(dir, STORE_FILE));
  const store = SqliteStore.open(dir);
  const payers = await store.journal('api.example.com-0123456789ab').payers();
  store.close();
  return payers;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('store backup', () => {
  it('copies a store that is being written: every payer committed before it, each whole, log included', async () => {
    const { store, journal } = await openStore(200);
    // What the run committed is still in the write-ahead log, not in the file: a copy of the file would miss it.
    expect(statSync(join(stateDir, `${STORE_FILE}-wal`)).size).toBeGreaterThan(0);
    let written = 200;
    let writing = true;
    const writer = (async () => {
      for (; writing; written++) {
        await journal.write([{ payer: `p${written}`, record: payer(written) }]);
        await setImmediate();
      }
    })();
    const r = await payerOnboard(['store', 'backup', 'backup.db', '--state-dir', stateDir]);
    writing = false;
    await writer;
    store.close();
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(
      /^wrote backup\.db \(\d+ kB, readable by this user only\): a consistent copy of the store \S+\/state\/payer-onboard\.db\n$/,
    );
    expect(mode(tmp.path('backup.db'))).toBe(0o600);
    const payers = await restored(tmp.path('backup.db'));
    expect(payers.size).toBeGreaterThanOrEqual(200);
    expect(payers.size).toBeLessThanOrEqual(written);
    // One moment of the store: the payers written before it, none after, none half.
    for (let i = 0; i < payers.size; i++) expect(payers.get(`p${i}`)).toEqual(payer(i));
    expect(existsSync(tmp.path(`backup.db.partial-${process.pid}`))).toBe(false);
  });

  it('takes the state dir from PAYER_ONBOARD_STATE_DIR, else the user state folder, as a run does', async () => {
    (await openStore(3)).store.close();
    const byEnv = await payerOnboard(['store', 'backup', 'a.db'], { PAYER_ONBOARD_STATE_DIR: stateDir });
    expect(byEnv.code).toBe(0);
    expect((await restored(tmp.path('a.db'))).size).toBe(3);
    const byDefault = await payerOnboard(['store', 'backup', 'b.db'], { XDG_STATE_HOME: tmp.dir, HOME: tmp.dir });
    expect(byDefault.stderr).toBe(
      `payer-onboard: no store to back up in ${join(tmp.dir, 'payer-onboard')} (no payer-onboard.db): give the state dir the runs use with --state-dir\n`,
    );
    expect(byDefault.code).toBe(2);
  });

  it('refuses a FILE that exists unless --force, and with --force replaces it and the log beside it', async () => {
    (await openStore(2)).store.close();
    writeFileSync(tmp.path('backup.db'), 'mine');
    const refused = await payerOnboard(['store', 'backup', 'backup.db', '--state-dir', stateDir]);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: `payer-onboard: ${tmp.path('backup.db')} already exists (use --force to replace it)\n`,
    });
    expect(readFileSync(tmp.path('backup.db'), 'utf8')).toBe('mine');
    writeFileSync(tmp.path('backup.db-wal'), 'an older copy its log');
    const forced = await payerOnboard(['store', 'backup', 'backup.db', '--state-dir', stateDir, '--force']);
    expect(forced.code).toBe(0);
    expect(existsSync(tmp.path('backup.db-wal'))).toBe(false);
    expect(mode(tmp.path('backup.db'))).toBe(0o600);
    expect((await restored(tmp.path('backup.db'))).size).toBe(2);
  });

  it('refuses the store itself, a state dir with no store, and a store in PostgreSQL', async () => {
    (await openStore(1)).store.close();
    const file = join(stateDir, STORE_FILE);
    const itself = await payerOnboard(['store', 'backup', file, '--state-dir', stateDir, '--force']);
    expect(itself).toMatchObject({
      code: 2,
      stderr: `payer-onboard: ${file} is the store itself: give the backup another name\n`,
    });
    const none = await payerOnboard(['store', 'backup', 'x.db', '--state-dir', tmp.path('elsewhere')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`no store to back up in ${tmp.path('elsewhere')} (no payer-onboard.db)`);
    expect(existsSync(tmp.path('elsewhere'))).toBe(false);
    const env = { PAYER_ONBOARD_DATABASE_URL: 'postgres://po:s3cret-pw@127.0.0.1:5432/po' };
    const pg = await payerOnboard(['store', 'backup', 'x.db', '--state-dir', stateDir], env);
    expect(pg).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'payer-onboard: PAYER_ONBOARD_DATABASE_URL is set, so the store is in PostgreSQL: back it up with pg_dump (or unset it to back up the SQLite store of the state dir)\n',
    });
    expect(existsSync(tmp.path('x.db'))).toBe(false);
  });
});

describe('store copy, before it reaches a server', () => {
  it('refuses to start without a database to copy into, or with its URL as a flag value or an argument', async () => {
    (await openStore(1)).store.close();
    const none = await payerOnboard(['store', 'copy', '--state-dir', stateDir]);
    expect(none).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'payer-onboard: store copy: give the PostgreSQL database to copy into: --to-database-url-file FILE (a file holding its postgres:// URL), or set PAYER_ONBOARD_COPY_TO_URL\n',
    });
    const url = 'postgres://po:s3cret-pw@127.0.0.1:1/po';
    const flag = await payerOnboard(['store', 'copy', '--to-database-url', url]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^payer-onboard: --to-database-url: the URL is never taken as a flag value/);
    const typed = await payerOnboard(['store', 'copy', url]);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain('Unknown argument: postgres://po:***@127.0.0.1:1/po');
    for (const r of [flag, typed]) expect(r.stderr).not.toContain('s3cret-pw');
  });

  it('refuses a state dir with no store, and an empty URL file, naming neither password nor URL', async () => {
    const env = { PAYER_ONBOARD_COPY_TO_URL: 'postgres://po:s3cret-pw@127.0.0.1:1/po' };
    const none = await payerOnboard(['store', 'copy', '--state-dir', stateDir], env);
    expect(none).toEqual({
      code: 2,
      stdout: '',
      stderr: `payer-onboard: no store to copy in ${stateDir} (no payer-onboard.db): give the state dir the runs used with --state-dir\n`,
    });
    expect(existsSync(stateDir)).toBe(false);
    writeFileSync(tmp.path('url'), '\n');
    const empty = await payerOnboard(['store', 'copy', '--to-database-url-file', 'url', '--state-dir', stateDir]);
    expect(empty.stderr).toBe('payer-onboard: --to-database-url-file: url is empty\n');
  });
});
