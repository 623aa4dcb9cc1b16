import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { payerKeyOf } from '../../src/journal/RowJournal.js';
import { STORE_FILE } from '../../src/store/SqliteStore.js';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { waitFor } from '../helpers/waitFor.js';

// A run killed mid-send leaves no line missing for what its journal holds: a row's line is written in the same
// transaction as the row's record, and a bank account's line with the account's, so the store holds both or neither.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness({ latencyMs: 40 });
});
afterEach(async () => {
  await h.close();
});

const ids = Array.from({ length: 30 }, (_, i) => `kill-${String(i + 1).padStart(2, '0')}`);
const runArgs = (out: string) => [
  'run',
  'payers.csv',
  '--base-url',
  h.sandbox.url,
  '--rate',
  '0',
  '--concurrency',
  '4',
  '--out',
  out,
  '--state-dir',
  'state',
  '--no-progress',
];

/** What the store holds now: the payers with a record, the accounts recorded as created, and the audit lines. */
function stored() {
  const db = new DatabaseSync(h.tmp.path(`state/${STORE_FILE}`), { readOnly: true });
  try {
    const keys = new Set(
      db
        .prepare('SELECT key FROM journal_payers')
        .all()
        .map((row) => String(row['key'])),
    );
    const created = db.prepare("SELECT COUNT(*) AS n FROM journal_calls WHERE state = 'done' AND status = 201").get();
    const lines = db.prepare('SELECT action, subject FROM audit_trail ORDER BY seq').all();
    const of = (action: string) => lines.filter((l) => l['action'] === action).map((l) => String(l['subject']));
    return {
      recorded: ids.filter((id) => keys.has(payerKeyOf(id))),
      created: Number(created?.['n']),
      rowLines: of('run row'),
      accountLines: of('bank account added'),
      actions: lines.map((l) => String(l['action'])),
    };
  } finally {
    db.close();
  }
}

it('SIGKILL mid-send: every row and bank account the journal holds as done has its line, none more; the re-run adds the rest once', async () => {
  h.tmp.write('payers.csv', payersCsv(ids));
  const env = { PAYER_API_KEY: API_KEY };
  const killed = spawnBin(runArgs('killed'), { cwd: h.tmp.dir, env });
  await waitFor(() => h.sandbox.stats().payersCreated >= 10, '10 payers');
  killed.child.kill('SIGKILL');
  expect((await killed.done).signal).toBe('SIGKILL');

  const after = stored();
  // Killed with rows on their way: some done, not all.
  expect(after.recorded.length).toBeGreaterThan(0);
  expect(after.recorded.length).toBeLessThan(ids.length);
  expect(after.actions[0]).toBe('run started');
  expect(after.actions).not.toContain('run finished');
  expect([...after.rowLines].sort()).toEqual(after.recorded);
  expect(after.accountLines).toHaveLength(after.created);

  const final = await spawnBin(runArgs('final'), { cwd: h.tmp.dir, env }).done;
  expect(final.code, final.stderr).toBe(0);
  const end = stored();
  // Every account once: a create the kill left in doubt is read back and adopted, with its line then.
  expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: ids.length, duplicatePaymentDetails: 0 });
  expect([...end.accountLines].sort()).toEqual(ids);
  expect(new Set(end.rowLines)).toEqual(new Set(ids));
  expect(end.actions.filter((a) => a === 'run finished')).toHaveLength(1);
});
