import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { API_KEY, harness, readResults } from '../helpers/runHarness.js';

// test/fixtures/store-previous holds the store the release before this one left: its run of the journal-v0 payers
// (sandbox seed 7, one row at a time, every KYC approved at once) sent create compliance to /v1/payer and currencies
// in upper case, and wrote that results.csv. This release sends to /v2/payer and writes currencies in lower case:
// neither may make a payer or an account it knows look new. A sandbox with the same seed, given the same requests
// in the same order, hands out the same ids: it is made to hold those payers first.
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'store-previous');
const PAYERS = join(import.meta.dirname, '..', 'fixtures', 'journal-v0', 'payers.csv');
const OLD_RESULTS = readResults(join(FIXTURE, 'results.csv'));
const ALL_DONE = 'compliance=done-before payment-details=done-before agreement=done-before';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness({ seed: 7 });
  const made = await h.run({ inputs: [PAYERS], concurrency: 1, stateDir: h.tmp.path('elsewhere') });
  expect(made.results.map((r) => [r.userId, r.paymentDetailId])).toEqual(
    OLD_RESULTS.map((r) => [r.userId, r.paymentDetailId]),
  );
  await h.store.lose();
});
afterEach(async () => {
  await h.close();
});

/** The old store put in `stateDir`, its journal moved to this sandbox's address (it was made on another port). */
function oldStoreIn(stateDir: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = join(stateDir, 'payer-onboard.db');
  copyFileSync(join(FIXTURE, 'payer-onboard.db'), file);
  chmodSync(file, 0o600);
  const db = new DatabaseSync(file);
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    for (const { name } of tables) {
      const columns = db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[];
      if (columns.some((c) => c.name === 'service'))
        db.prepare(`UPDATE ${name} SET service = ?`).run(journalName(h.sandbox.url, API_KEY));
    }
  } finally {
    db.close();
  }
}

describe('a store made by the release before', () => {
  it('re-runs its file with 0 requests: the new path and lower-case currencies make nothing look new; the directory fills', async () => {
    const state = h.tmp.path('state');
    oldStoreIn(state);
    expect(versionOf(state)).toBe(8);
    const before = h.sandbox.stats().requests;
    const again = await h.run({ inputs: [PAYERS], stateDir: state });
    expect(h.sandbox.stats().requests - before).toBe(0);
    expect(again.summary.exitCode).toBe(0);
    expect(again.results.map((r) => [r.clientUserId, r.outcome, r.userId, r.paymentDetailId, r.error])).toEqual(
      OLD_RESULTS.map((r) => [r.clientUserId, 'ok', r.userId, r.paymentDetailId, '']),
    );
    expect(again.results.map((r) => r.steps)).toEqual([
      ALL_DONE,
      ALL_DONE,
      'compliance=done-before agreement=done-before',
      ALL_DONE,
    ]);
    // Brought up to this version, and the payers it registered now in the directory, from the file run again.
    expect(versionOf(state)).toBe(SCHEMA_VERSION);
    const store = SqliteStore.open(state);
    try {
      const ids = OLD_RESULTS.map((r) => r.clientUserId!);
      const entries = await store.directory(journalName(h.sandbox.url, API_KEY)).entries(ids);
      expect(ids.map((id) => [id, entries.get(id)?.email, entries.get(id)?.firstName])).toEqual(
        ids.map((id, i) => [id, `ada${i + 1}@example.com`, 'Ada']),
      );
    } finally {
      store.close();
    }
  });
});

/** The schema version of the store in a state dir. */
function versionOf(stateDir: string): number {
  const db = new DatabaseSync(join(stateDir, 'payer-onboard.db'), { readOnly: true });
  try {
    return Number(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()!['v']);
  } finally {
    db.close();
  }
}
