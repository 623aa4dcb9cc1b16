import { readFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox } from '../../src/inbox/runInbox.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

// The rows waiting live in the store of the state dir: a state dir deleted takes them along. The inbox says so at
// every look, naming what carries them on, instead of going quiet. (SQLite only: a database cannot be deleted so.)

let h: Awaited<ReturnType<typeof harness>>;
let inbox: ReturnType<typeof inboxAt>;
beforeEach(async () => {
  h = await harness({ kycAfter: undefined });
  inbox = inboxAt(h.tmp.path('inbox'));
});
afterEach(async () => {
  await h.close();
});

async function once() {
  const err = memoryStream();
  const result = await runInbox(
    { dir: inbox.root, settle: 1, recheckAfter: 0, run: { baseUrl: h.sandbox.url, rate: 0 } },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream },
  );
  return { ...result, stderr: err.text() };
}

describe('inbox: the state dir lost', () => {
  it('says the rows that waited are not known, and which files carry them on; once put back, the rows run again', async () => {
    inbox.drop('payers.csv', payersCsv(['l-1', 'l-2']));
    expect((await once()).files.map((f) => f.summary?.rows.waiting)).toEqual([2]);
    expect((await once()).stderr).not.toContain('no store');
    rmSync(inbox.path('.payer-onboard'), { recursive: true, force: true });
    const lost = await once();
    expect(lost.files).toEqual([]);
    expect(lost.stderr).toContain(
      `inbox: no store in ${inbox.path('.payer-onboard')}, yet 2 runs in results/ left rows waiting: the state dir was deleted or moved`,
    );
    expect(lost.stderr).toContain("drop each file's latest pending-* file from results/ into incoming/");
    expect(lost.stderr).not.toMatch(/l-1|l-2/);
    // Done as it says: the latest pending file dropped in again; its rows wait in the new store, nothing made twice.
    const latest = inbox
      .list('results')
      .filter((run) => run.startsWith('pending-payers.csv-'))
      .at(-1)!;
    inbox.drop('pending-payers.csv', readFileSync(inbox.path('results', latest, 'pending-payers.csv'), 'utf8'));
    h.sandbox.setKyc('l-1', 'approved');
    await once();
    expect(h.sandbox.payer('l-1')?.paymentDetails).toHaveLength(1);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 2, duplicatePaymentDetails: 0 });
  });
});
