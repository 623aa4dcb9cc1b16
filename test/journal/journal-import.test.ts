import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importOldJournal } from '../../src/journal/importJournal.js';
import { journaledPayers } from '../../src/journal/RowJournal.js';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { journalName, journalPlace } from '../../src/journal/stateDir.js';
import { runStatus } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, readResults } from '../helpers/runHarness.js';

// test/fixtures/journal-v0 is what the version before the store left: a journal.jsonl written by its run of
// payers.csv (seed 7, one row at a time, every KYC approved at once), and that run's results.csv. A sandbox with the
// same seed, given the same requests in the same order, hands out the same ids: it is made to hold those payers.
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'journal-v0');
const PAYERS = join(FIXTURE, 'payers.csv');
const OLD_RESULTS = readResults(join(FIXTURE, 'results.csv'));

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness({ seed: 7 });
  const made = await h.run({ inputs: [PAYERS], concurrency: 1, stateDir: h.tmp.path('elsewhere') });
  // The sandbox now holds the payers the old journal remembers, with the same ids.
  expect(made.results.map((r) => [r.userId, r.paymentDetailId])).toEqual(
    OLD_RESULTS.map((r) => [r.userId, r.paymentDetailId]),
  );
  // That run's memory is not the test's: only the old journal knows these payers.
  await h.store.lose();
});
afterEach(async () => {
  await h.close();
});

/** The old journal put where that version kept it for this sandbox and key; its path. */
function oldJournalIn(stateDir: string, text = readFileSync(join(FIXTURE, 'journal.jsonl'), 'utf8')): string {
  const path = join(stateDir, journalName(h.sandbox.url, API_KEY), 'journal.jsonl');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** How the store is named in messages: its file, or its database's URL without the password. */
function storeName(stateDir: string): string {
  const url = h.store.env.PAYER_ONBOARD_DATABASE_URL;
  if (url === undefined) return join(stateDir, 'payer-onboard.db');
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

const importLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('imported the journal'));

describe('a journal the version before kept in JSONL', () => {
  it('is imported once, said in one line and kept as it was; the same file run again sends nothing', async () => {
    const state = h.tmp.path('state');
    const old = oldJournalIn(state);
    const bytes = readFileSync(old);
    const before = h.sandbox.stats().requests;

    const first = await h.run({ inputs: [PAYERS], stateDir: state });
    expect(h.sandbox.stats().requests - before).toBe(0);
    expect(first.summary.exitCode).toBe(0);
    expect(first.results.map((r) => [r.clientUserId, r.outcome, r.userId, r.paymentDetailId])).toEqual(
      OLD_RESULTS.map((r) => [r.clientUserId, 'ok', r.userId, r.paymentDetailId]),
    );
    expect(first.results.map((r) => r.steps)).toEqual([
      'compliance=done-before payment-details=done-before agreement=done-before',
      'compliance=done-before payment-details=done-before agreement=done-before',
      'compliance=done-before agreement=done-before',
      'compliance=done-before payment-details=done-before agreement=done-before',
    ]);
    expect(importLines(first.stderr)).toEqual([
      `payer-onboard: imported the journal ${old} into the store ${storeName(state)} (4 payers, 6 calls); ` +
        'the old file is kept as it was, and read no more',
    ]);
    expect(readFileSync(old)).toEqual(bytes);

    const second = await h.run({ inputs: [PAYERS], stateDir: state });
    expect(importLines(second.stderr)).toEqual([]);
    expect(second.summary.rows.ok).toBe(4);
    expect(h.sandbox.stats().requests - before).toBe(0);
  });

  it('with a torn last line and a line of no use: both skipped with a warning, the rest imported', async () => {
    const state = h.tmp.path('state');
    const old = oldJournalIn(state);
    appendFileSync(old, '["not a line"]\n{"k":"0123456789abcdef0123456789abcdef","s":"do');
    const { summary, stderr } = await h.run({ inputs: [PAYERS], stateDir: state });
    expect(stderr).toContain(
      `warning: journal ${old}: skipped 2 unreadable lines (a crash mid-write); what they recorded is read back from the service before anything is created again`,
    );
    expect(summary.rows.ok).toBe(4);
    expect(h.sandbox.stats()).toMatchObject({
      duplicatePayers: 0,
      duplicatePaymentDetails: 0,
      paymentDetailsCreated: 3,
    });
  });

  it('in the old default place and in the state dir: merged by payer, every account id either knew kept', async () => {
    const folder = h.tmp.path('team');
    const state = h.tmp.path('home/.local/state/payer-onboard');
    oldJournalIn(state);
    // The old default place knew another account of v0-1 (a second bank row, say): it is kept beside the first.
    const text = readFileSync(join(FIXTURE, 'journal.jsonl'), 'utf8').replace(
      '"ids":"[[\\"0ce58a391b04b435f4282d90c2fc6b8a\\",\\"4206dd36-34c8-44d3-a054-75fe1ccf9d94\\"]]"',
      '"ids":"[[\\"ffffffffffffffffffffffffffffffff\\",\\"pd-other\\"]]"',
    );
    expect(text).toContain('pd-other');
    oldJournalIn(join(folder, '.payer-onboard'), text);
    const env = { ...h.store.env, PAYER_API_KEY: API_KEY, HOME: h.tmp.path('home') };
    mkdirSync(folder, { recursive: true });
    const status = await runStatus(
      { inputs: [PAYERS], baseUrl: h.sandbox.url, rate: 0, out: h.tmp.path('status') },
      { cwd: folder, env, stderr: memoryStream().stream },
    );
    expect(status.exitCode).toBe(0);
    const place = journalPlace({ dir: state }, h.sandbox.url, API_KEY, h.store.env.PAYER_ONBOARD_DATABASE_URL);
    const known = await journaledPayers(place);
    expect(known('v0-1')?.accounts).toBe(2);
    expect(known('v0-2')?.accounts).toBe(1);
    expect(known('v0-3')).toMatchObject({ agreementStatus: 'completed', kycStatus: 'approved' });
    // The status read carries no links: these come from the journal.
    expect(readResults(status.outputs.status).map((line) => line.kycUrl)).toEqual(OLD_RESULTS.map((r) => r.kycUrl));
  });

  it('is imported by status too, which then shows the links the journal kept', async () => {
    const state = h.tmp.path('state');
    const old = oldJournalIn(state);
    copyFileSync(old, `${old}.copy`);
    const status = await runStatus(
      { inputs: [PAYERS], baseUrl: h.sandbox.url, rate: 0, out: h.tmp.path('status'), stateDir: state },
      { cwd: h.tmp.dir, env: { ...h.store.env, PAYER_API_KEY: API_KEY }, stderr: memoryStream().stream },
    );
    expect(readResults(status.outputs.status).map((line) => [line.clientUserId, line.kycUrl])).toEqual(
      OLD_RESULTS.map((r) => [r.clientUserId, r.kycUrl]),
    );
    expect(readFileSync(old)).toEqual(readFileSync(`${old}.copy`));
  });
});

describe('importing an old journal into a store that has lived since', () => {
  it("keeps every create either sent in a payer's list of creates, and a create the store holds in doubt", async () => {
    const store = SqliteStore.open(h.tmp.path('merge-state'));
    const tables = store.journal('svc');
    const creates = '0123456789abcdef0123456789abcdef';
    const inDoubt = 'fedcba9876543210fedcba9876543210';
    await tables.write([
      { call: creates, record: { state: 'done', status: 200, answer: { keys: JSON.stringify(['k-new']) } } },
      { call: inDoubt, record: { state: 'sent', answer: { b: '["pd-1"]' } } },
    ]);
    const old = h.tmp.write(
      'old.jsonl',
      [
        { k: creates, s: 'done', c: 200, a: { keys: JSON.stringify(['k-old']) } },
        { k: inDoubt, s: 'done', c: 201, a: { id: 'pd-old' } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    await importOldJournal(tables, old);
    expect(await tables.call(creates)).toEqual({
      state: 'done',
      status: 200,
      answer: { keys: JSON.stringify(['k-new', 'k-old']) },
    });
    expect(await tables.call(inDoubt)).toEqual({ state: 'sent', answer: { b: '["pd-1"]' } });
    store.close();
  });
});
