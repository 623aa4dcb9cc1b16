import { spawnSync } from 'node:child_process';
import { statSync, truncateSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { waitFor } from '../helpers/waitFor.js';
import { UNDO_CONTROLS } from '../helpers/undoMigrations.js';

// A process killed while it brings an older store up to this version's schema: the steps run in one transaction, so
// the store stays at its old version with everything it held, and the next start runs them again. The store is made
// old by undoing the last four steps (a lease on each service and key, the web page's uploads, the payers by their
// bank accounts, the payer directory) of one a run wrote.

const POSTGRES = process.env.PAYER_ONBOARD_TEST_BACKEND === 'postgres';
const UNDO_LAST_FOUR = [
  ...UNDO_CONTROLS,
  'DELETE FROM schema_migrations WHERE version >= 7',
  'DROP TABLE payer_directory',
  'DROP TABLE payer_links',
  'DROP TABLE payer_mails',
  'DROP TABLE payer_signatures',
  'DROP TABLE journal_accounts',
  'DROP TABLE web_uploads',
  'ALTER TABLE service_holders DROP COLUMN token',
  'ALTER TABLE service_holders DROP COLUMN lease_until',
  'ALTER TABLE service_holders DROP COLUMN backend',
];

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

it('SIGKILL mid-migration: the store stays at its old version, whole; the next start migrates and sends nothing again', async () => {
  const input = h.tmp.write('payers.csv', payersCsv(['mig-1', 'mig-2']));
  expect((await h.run({ inputs: [input] })).summary.exitCode).toBe(0);
  const requests = h.sandbox.stats().requests;

  const killed = POSTGRES ? await killMidMigrationPostgres(input) : killMidCommitSqlite();
  expect(await killed.version()).toBe(6);
  expect(await killed.journalRows()).toBeGreaterThan(0);

  const again = await h.run({ inputs: [input] });
  expect(again.summary.exitCode).toBe(0);
  expect(again.results.map((r) => r.outcome)).toEqual(['ok', 'ok']);
  expect(h.sandbox.stats().requests).toBe(requests);
  expect(await killed.version()).toBe(SCHEMA_VERSION);
});

/** What a test reads of the store after the kill. */
interface Looked {
  version(): Promise<number>;
  journalRows(): Promise<number>;
}

/**
 * On PostgreSQL: the bin's migration is held midway (a step waits for a table this test locks), and killed there.
 */
async function killMidMigrationPostgres(input: string): Promise<Looked> {
  const url = h.store.env.PAYER_ONBOARD_DATABASE_URL!;
  /** A number the query answers (its first column, or how many rows), asked on a connection of its own. */
  const ask = async (sql: string) => {
    const asking = new pg.Client({ connectionString: url });
    await asking.connect();
    try {
      const { rows, rowCount } = await asking.query(sql);
      return rows[0]?.n === undefined ? (rowCount ?? 0) : Number(rows[0].n);
    } finally {
      await asking.end();
    }
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of UNDO_LAST_FOUR) await client.query(sql);
    await client.query('BEGIN');
    await client.query('LOCK TABLE service_holders IN ACCESS EXCLUSIVE MODE');
    const args = ['run', input, '--base-url', h.sandbox.url, '--state-dir', h.tmp.path('state'), '--rate', '0'];
    const child = spawnBin(args, { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY, PAYER_ONBOARD_DATABASE_URL: url } });
    // Looked at from a session of its own: inside a transaction the server's view of its sessions stands still.
    const waiting =
      "SELECT 1 FROM pg_stat_activity WHERE application_name = 'payer-onboard' AND wait_event_type = 'Lock' " +
      'AND datname = current_database()';
    await waitFor(async () => (await ask(waiting)) === 1, 'the migration to wait midway');
    child.child.kill('SIGKILL');
    expect((await child.done).signal).toBe('SIGKILL');
    await client.query('COMMIT');
    // Its server process finds its client gone once the lock is free, and rolls the migration back.
    // This test's database only: the other test files' runs have sessions on the same server.
    const left =
      "SELECT 1 FROM pg_stat_activity WHERE application_name = 'payer-onboard' AND datname = current_database()";
    await waitFor(async () => (await ask(left)) === 0, "the killed process's session to end");
  } finally {
    await client.end();
  }
  return {
    version: () => ask('SELECT MAX(version) AS n FROM schema_migrations'),
    journalRows: () => ask('SELECT COUNT(*) AS n FROM journal_payers'),
  };
}

/**
 * On SQLite the migration's steps are one transaction, written to the log at its commit: the process is killed while
 * that commit is written (its log cut short by what the last frames held), which SQLite drops whole when it opens.
 */
function killMidCommitSqlite(): Looked {
  const file = h.tmp.path(`state/${STORE_FILE}`);
  const db = new DatabaseSync(file);
  for (const sql of UNDO_LAST_FOUR) db.exec(sql);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  const store = pathToFileURL(fileURLToPath(new URL('../../dist/store/SqliteStore.js', import.meta.url))).href;
  // Opens the store (the migration commits into the log) and dies without closing it, as a kill would.
  const script = `const { SqliteStore } = await import(${JSON.stringify(store)});
    SqliteStore.open(${JSON.stringify(h.tmp.path('state'))}); process.kill(process.pid, 'SIGKILL');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.signal, child.stderr).toBe('SIGKILL');
  const wal = `${file}-wal`;
  expect(statSync(wal).size).toBeGreaterThan(100);
  truncateSync(wal, statSync(wal).size - 100);
  const ask = async (sql: string) => {
    const reading = new DatabaseSync(file);
    try {
      return Number(reading.prepare(sql).get()!['n']);
    } finally {
      reading.close();
    }
  };
  return {
    version: () => ask('SELECT MAX(version) AS n FROM schema_migrations'),
    journalRows: () => ask('SELECT COUNT(*) AS n FROM journal_payers'),
  };
}
