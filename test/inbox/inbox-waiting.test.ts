import { copyFileSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox } from '../../src/inbox/runInbox.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';
import { inboxAt } from '../helpers/inboxFixtures.js';

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

async function once(recheckAfter?: number) {
  const err = memoryStream();
  const result = await runInbox(
    {
      dir: inbox.root,
      settle: 1,
      run: { baseUrl: h.sandbox.url, rate: 0, stateDir: h.tmp.path('state') },
      ...(recheckAfter === undefined ? {} : { recheckAfter }),
    },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY, ...h.store.env }, stderr: err.stream },
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
      `2 of 2 rows waiting on the payers (KYC, agreement); they wait in the store (as ${file!.results}/pending-monday.csv), run again as they come due`,
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
      `1 of 2 rows waiting on the payers (KYC, agreement): nothing in them to change; they wait in the store (as ${file!.results}/pending-tuesday.csv), and the inbox runs them again as they come due.`,
    );
  });

  it('carries onboarding to the end over ticks: rows waiting run again as they come due, then none is left; nothing more is sent', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `w-${String(i + 1).padStart(2, '0')}`);
    inbox.drop('payers.csv', payersCsv(ids));

    const tick1 = await once(0);
    expect(tick1.files.map((f) => [f.file, f.folder, f.summary?.rows.waiting])).toEqual([['payers.csv', 'done', 20]]);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 20 });
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 20, paymentDetailsCreated: 0 });

    for (const id of ids.slice(0, 10)) h.sandbox.setKyc(id, 'approved');
    const tick2 = await once(0);
    expect(tick2.files.map((f) => [f.file, f.folder, f.summary?.rows.ok, f.summary?.rows.waiting])).toEqual([
      ['pending-payers.csv', 'waiting', 10, 10],
    ]);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 10 });
    expect(readFileSync(inbox.path(tick2.files[0]!.path), 'utf8').trim().split('\n')).toHaveLength(11);
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(10);

    for (const id of ids.slice(10)) h.sandbox.setKyc(id, 'approved');
    const tick3 = await once(0);
    expect(tick3.files.map((f) => [f.file, f.folder, f.summary?.rows.ok])).toEqual([
      ['pending-payers.csv', 'done', 10],
    ]);
    expect(await h.store.waiting()).toEqual({});
    expect(inbox.list('waiting')).toEqual([]);
    expect(inbox.list('done')).toEqual(['payers.csv']);
    expect(inbox.list('results')).toHaveLength(3);
    expect(h.sandbox.stats()).toMatchObject({
      payersCreated: 20,
      paymentDetailsCreated: 20,
      duplicatePaymentDetails: 0,
    });

    const before = h.sandbox.stats().requests;
    const tick4 = await once(0);
    expect([tick4.files, tick4.stderr, tick4.exitCode]).toEqual([[], '', 0]);
    expect(h.sandbox.stats().requests).toBe(before);
  });

  it('a tick before the rows are due sends nothing and prints nothing', async () => {
    inbox.drop('payers.csv', payersCsv(['d-1', 'd-2']));
    await once(6);
    const before = h.sandbox.stats().requests;
    const r = await once(6);
    expect([r.files, r.stderr, r.exitCode]).toEqual([[], '', 0]);
    expect(h.sandbox.stats().requests).toBe(before);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 2 });
  });

  it('a file an older version left in waiting/ is taken into the store once, moved to done/, its rows run as they come due', async () => {
    const first = await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['o-1', 'o-2', 'o-3']))] });
    expect(first.summary.rows.waiting).toBe(3);
    inbox.drop('pending-payers.csv', readFileSync(first.summary.outputs.pending[0]!, 'utf8'), 60, 'waiting');
    h.sandbox.setKyc('o-2', 'approved');
    const r = await once(0);
    expect(r.stderr).toContain(
      'inbox: waiting/pending-payers.csv: its 3 rows wait in the store now, run as they come due; the file moved to done/pending-payers.csv',
    );
    expect(r.files.map((f) => [f.file, f.folder, f.summary?.rows.ok, f.summary?.rows.waiting])).toEqual([
      ['pending-payers.csv', 'waiting', 1, 2],
    ]);
    expect([inbox.list('waiting'), inbox.list('done')]).toEqual([[], ['pending-payers.csv']]);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 2 });
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 3, paymentDetailsCreated: 1, duplicatePaymentDetails: 0 });
  });

  it('a file run again after a crash between keeping its rows and moving it on: its rows kept once, not twice', async () => {
    const path = inbox.drop('payers.csv', payersCsv(['c-1', 'c-2']));
    const { mtime } = statSync(path);
    await once(6);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 2 });
    // As if the process died after keeping the rows, before the file left processing/: the same file is resumed.
    copyFileSync(inbox.path('done', 'payers.csv'), inbox.path('processing', 'payers.csv'));
    utimesSync(inbox.path('processing', 'payers.csv'), mtime, mtime);
    const again = await once(6);
    expect(again.files.map((f) => [f.file, f.folder])).toEqual([['payers.csv', 'done']]);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 2 });
  });

  it('a recheck of more rows than one transaction takes: what is left waits on, once, and the rest is done', async () => {
    const ids = Array.from({ length: 1200 }, (_, i) => `big-${String(i).padStart(4, '0')}`);
    inbox.drop('payers.csv', payersCsv(ids));
    await once(0);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 1200 });
    for (const id of ids.slice(0, 300)) h.sandbox.setKyc(id, 'approved');
    const tick = await once(0);
    expect(tick.files.map((f) => [f.folder, f.summary?.rows.ok, f.summary?.rows.waiting])).toEqual([
      ['waiting', 300, 900],
    ]);
    expect(await h.store.waiting()).toEqual({ 'pending-payers.csv': 900 });
    for (const id of ids.slice(300)) h.sandbox.setKyc(id, 'approved');
    await once(0);
    expect(await h.store.waiting()).toEqual({});
    expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 1200, duplicatePaymentDetails: 0 });
  });
});
