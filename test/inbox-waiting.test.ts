import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox } from '../src/inbox/runInbox.js';
import { API_KEY, harness, memoryStream, payersCsv } from './helpers/runHarness.js';
import { inboxAt } from './helpers/inboxFixtures.js';

// The real-like sandbox: bank accounts wait until KYC is approved, so a first run leaves rows waiting on the payers.
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
    { dir: inbox.root, settle: 1, run: { baseUrl: h.sandbox.url, rate: 0 } },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream },
  );
  return { ...result, stderr: err.text() };
}

describe('inbox: rows waiting on the payers', () => {
  it('a file whose rows only wait goes to done/, its results keep the pending file, and nothing says to fix them', async () => {
    inbox.drop('monday.csv', payersCsv(['m-1', 'm-2']));
    const r = await once();
    const [file] = r.files;
    expect([file!.folder, file!.exitCode]).toEqual(['done', 0]);
    expect(inbox.list('done')).toEqual(['monday.csv']);
    expect(inbox.list(file!.results!)).toContain('pending-monday.csv');
    expect(inbox.list(file!.results!)).not.toContain('failed-monday.csv');
    expect(file!.reason).toBe(
      `2 of 2 rows waiting on the payers (KYC, agreement); pending rows in ${file!.results}/pending-monday.csv`,
    );
    expect(r.stderr).not.toMatch(/fix/i);
  });

  it('a file with rows to fix as well: the note asks to fix only the failed file, and names the pending one apart', async () => {
    inbox.drop('tuesday.csv', payersCsv(['t-1', 't-2'], { 't-2': { email: 'nope' } }));
    const r = await once();
    const [file] = r.files;
    expect([file!.folder, file!.exitCode]).toEqual(['failed', 1]);
    const note = readFileSync(inbox.path('failed', 'tuesday.csv.error.txt'), 'utf8');
    expect(note).toContain(
      'tuesday.csv: 1 of 2 rows not ok (1 invalid, 0 failed, 0 skipped); 1 waiting on the payers.',
    );
    expect(note).toContain(`Fix the rows in ${file!.results}/failed-tuesday.csv and drop that file into incoming/.`);
    const pendingLine = note.split('\n').find((l) => l.includes('pending-tuesday.csv'));
    expect(pendingLine).toBe(
      `1 of 2 rows waiting on the payers (KYC, agreement): nothing in them to change; a later run finishes them (drop ${file!.results}/pending-tuesday.csv into incoming/ again later).`,
    );
  });
});
