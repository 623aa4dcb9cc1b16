import { readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox, type InboxOptions } from '../../src/inbox/runInbox.js';
import { run } from '../../src/pipeline/run.js';
import { API_KEY, harness, memoryStream, payersCsv, readResults } from '../helpers/runHarness.js';
import { inboxAt } from '../helpers/inboxFixtures.js';

let h: Awaited<ReturnType<typeof harness>>;
let inbox: ReturnType<typeof inboxAt>;
beforeEach(async () => {
  h = await harness();
  inbox = inboxAt(h.tmp.path('inbox'));
});
afterEach(async () => {
  await h.close();
});

async function once(options: Partial<InboxOptions> = {}, key = API_KEY) {
  const err = memoryStream();
  const result = await runInbox(
    { dir: inbox.root, settle: 1, run: { baseUrl: h.sandbox.url, rate: 0 }, ...options },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: key }, stderr: err.stream },
  );
  return { ...result, stderr: err.text() };
}

describe('inbox: one pass', () => {
  it('runs settled files oldest first into results/<file>-<run id>/, then done/ or failed/ with a note', async () => {
    inbox.drop('good.csv', payersCsv(['g-1', 'g-2']), 60);
    inbox.drop('bad.csv', payersCsv(['b-1', 'b-2'], { 'b-2': { email: 'nope' } }), 120);
    const r = await once();

    expect(r.files.map((f) => [f.file, f.folder, f.exitCode])).toEqual([
      ['bad.csv', 'failed', 1],
      ['good.csv', 'done', 0],
    ]);
    expect(r.exitCode).toBe(1);
    expect(inbox.list('incoming')).toEqual([]);
    expect(inbox.list('processing')).toEqual([]);
    expect(inbox.list('done')).toEqual(['good.csv']);
    expect(inbox.list('failed')).toEqual(['bad.csv', 'bad.csv.error.txt']);
    const [bad, good] = r.files;
    expect(good!.results).toBe(`results/good.csv-${good!.summary!.runId}`);
    expect(inbox.list(good!.results!)).toEqual(expect.arrayContaining(['report.html', 'results.csv', 'summary.json']));
    expect(readResults(inbox.path(bad!.results!, 'results.csv')).map((x) => x.outcome)).toEqual(['ok', 'invalid']);
    const note = readFileSync(inbox.path('failed', 'bad.csv.error.txt'), 'utf8');
    expect(statSync(inbox.path('failed', 'bad.csv.error.txt')).mode & 0o777).toBe(0o600);
    expect(note).toContain('1 of 2 rows not ok (1 invalid, 0 failed, 0 skipped)');
    expect(note).toContain(`${bad!.results}/failed-bad.csv`);
    expect(r.stderr).toContain('inbox: bad.csv: exit 1, -> failed/bad.csv');
    expect(h.sandbox.stats().payersCreated).toBe(3);
  });

  it('moves a file run() rejects to failed/ with a note saying why; nothing is sent', async () => {
    inbox.drop('notes.pdf', '%PDF-1.4');
    inbox.drop('empty.csv', 'clientUserId,email\n');
    const r = await once();
    expect(r.exitCode).toBe(2);
    expect(inbox.list('failed')).toEqual(['empty.csv', 'empty.csv.error.txt', 'notes.pdf', 'notes.pdf.error.txt']);
    const note = readFileSync(inbox.path('failed', 'notes.pdf.error.txt'), 'utf8');
    expect(note).toMatch(/notes\.pdf was not processed: .*notes\.pdf/);
    expect(note).toContain('Nothing was sent');
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('never overwrites an earlier file of the same name in done/', async () => {
    inbox.drop('weekly.csv', payersCsv(['w-1']));
    await once();
    inbox.drop('weekly.csv', payersCsv(['w-2']));
    const r = await once();
    expect(inbox.list('done')).toEqual(['weekly.csv', `weekly-${r.files[0]!.summary!.runId}.csv`].sort());
  });
});

describe('inbox: crash and resume', () => {
  it('resumes a file a crash left in processing/ before taking new ones, creating nothing twice', async () => {
    // The crash: a run of the file got through (some of) its calls, and the process died before moving it.
    const leftOver = inbox.drop('monday.csv', payersCsv(['m-1', 'm-2', 'm-3']), 300, 'processing');
    await run(
      {
        inputs: [leftOver],
        baseUrl: h.sandbox.url,
        rate: 0,
        out: h.tmp.path('crashed-run'),
        stateDir: inbox.path('.payer-onboard'),
      },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
    );
    inbox.drop('tuesday.csv', payersCsv(['t-1']), 30);

    const r = await once();
    expect(r.files.map((f) => [f.file, f.folder])).toEqual([
      ['monday.csv', 'done'],
      ['tuesday.csv', 'done'],
    ]);
    expect(readResults(inbox.path(r.files[0]!.results!, 'results.csv')).map((x) => x.outcome)).toEqual([
      'ok',
      'ok',
      'ok',
    ]);
    expect(inbox.list('processing')).toEqual([]);
    const stats = h.sandbox.stats();
    expect(stats.payersCreated).toBe(4);
    expect(stats.paymentDetailsCreated).toBe(4);
  });

  it('leaves the file in processing/ and takes no other when the run is aborted (key rejected), exit 3', async () => {
    inbox.drop('a.csv', payersCsv(['a-1']), 120);
    inbox.drop('b.csv', payersCsv(['b-1']), 60);
    const r = await once({}, 'wrong-key');
    expect(r.exitCode).toBe(3);
    expect(r.files.map((f) => [f.file, f.folder])).toEqual([['a.csv', 'processing']]);
    expect(inbox.list('processing')).toEqual(['a.csv']);
    expect(inbox.list('incoming')).toEqual(['b.csv']);
    // With the right key the next pass resumes it first, then takes b.csv.
    const again = await once();
    expect(again.files.map((f) => [f.file, f.folder])).toEqual([
      ['a.csv', 'done'],
      ['b.csv', 'done'],
    ]);
  });
});
