import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { UNDO_CONTROLS } from '../helpers/undoMigrations.js';

// A store at schema version 9 (what a run of the version before the payer directory leaves: a journal, no
// directory) brought up to this version by the next run, on either backend (the postgres project runs this file on
// PostgreSQL): it keeps all it held, sends nothing for the rows done, and now holds their payers' entries.

const POSTGRES = process.env.PAYER_ONBOARD_TEST_BACKEND === 'postgres';
const UNDO_DIRECTORY = [
  ...UNDO_CONTROLS,
  'DELETE FROM schema_migrations WHERE version >= 10',
  'DROP TABLE payer_directory',
  'DROP TABLE payer_links',
  'DROP TABLE payer_mails',
  'DROP TABLE payer_signatures',
];

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** Runs the statements on the test's store, and answers the number the last one counts. */
async function onStore(statements: string[]): Promise<number> {
  if (POSTGRES) {
    const client = new pg.Client({ connectionString: h.store.env.PAYER_ONBOARD_DATABASE_URL });
    await client.connect();
    try {
      let last: pg.QueryResult | undefined;
      for (const sql of statements) last = await client.query(sql);
      return Number(last?.rows[0]?.n);
    } finally {
      await client.end();
    }
  }
  const db = new DatabaseSync(join(h.tmp.path('state'), STORE_FILE));
  try {
    for (const sql of statements.slice(0, -1)) db.exec(sql);
    return Number(db.prepare(statements.at(-1)!).get()?.['n']);
  } finally {
    db.close();
  }
}

const VERSION = 'SELECT MAX(version) AS n FROM schema_migrations';

it('a store at version 9: the next run migrates it, sends nothing for the rows done, and fills the directory', async () => {
  const ids = ['old-1', 'old-2', 'old-3'];
  const input = h.tmp.write('payers.csv', payersCsv(ids));
  expect((await h.run({ inputs: [input] })).summary.exitCode).toBe(0);
  expect(await onStore([...UNDO_DIRECTORY, VERSION])).toBe(9);
  expect(await onStore(['SELECT COUNT(*) AS n FROM journal_payers'])).toBe(3);
  const requests = h.sandbox.stats().requests;

  const again = await h.run({ inputs: [input] });
  expect(again.summary.exitCode).toBe(0);
  expect(h.sandbox.stats().requests).toBe(requests);
  expect(await onStore([VERSION])).toBe(SCHEMA_VERSION);
  const store = await openStore({ stateDir: h.tmp.path('state'), databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL });
  try {
    const entries = await store.directory(journalName(h.sandbox.url, API_KEY)).entries(ids);
    expect(ids.map((id) => entries.get(id)?.email)).toEqual(ids.map((id) => `${id}@example.com`));
  } finally {
    await store.close();
  }
});

it('a store at version 10: its mail records kept as they were, and mails due and dropped may be written', async () => {
  const input = h.tmp.write('payers.csv', payersCsv(['old-1']));
  expect((await h.run({ inputs: [input] })).summary.exitCode).toBe(0);
  const service = journalName(h.sandbox.url, API_KEY);
  const version10 = [
    ...UNDO_CONTROLS,
    'DROP TABLE payer_mails',
    `CREATE TABLE payer_mails (service TEXT NOT NULL, client_user_id TEXT NOT NULL, step TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'refused')), reason TEXT, at TEXT NOT NULL,
      PRIMARY KEY (service, client_user_id, step))`,
    `INSERT INTO payer_mails VALUES ('${service}', 'old-1', 'invitation', 'refused', 'no such user', '2026-12-01T10:00:00.000Z')`,
    'DELETE FROM schema_migrations WHERE version >= 11',
    VERSION,
  ];
  expect(await onStore(version10)).toBe(10);

  expect((await h.run({ inputs: [input] })).summary.exitCode).toBe(0);
  expect(await onStore([VERSION])).toBe(SCHEMA_VERSION);
  const store = await openStore({ stateDir: h.tmp.path('state'), databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL });
  try {
    const directory = store.directory(service);
    const refused = { clientUserId: 'old-1', step: 'invitation', at: '2026-12-01T10:00:00.000Z' };
    expect(await directory.mails(['old-1'])).toEqual([{ ...refused, state: 'refused', reason: 'no such user' }]);
    expect(await directory.putMail({ ...refused, state: 'due', at: '2026-12-02T10:00:00.000Z' })).toBe(true);
    const reminder = { clientUserId: 'old-1', step: 'reminder-1', state: 'dropped' as const, at: refused.at };
    expect(await directory.putMail(reminder)).toBe(true);
    expect((await directory.mailsDue('2026-12-03T00:00:00.000Z', refused.at, 10)).map((m) => m.state)).toEqual(['due']);
  } finally {
    await store.close();
  }
});
