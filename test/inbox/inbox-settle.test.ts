import { appendFileSync, utimesSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runInbox } from '../../src/inbox/runInbox.js';
import { SettleTracker } from '../../src/inbox/folders.js';
import {
  API_KEY,
  harness,
  memoryStream,
  PAYER_HEADER,
  payerRow,
  payersCsv,
  readResults,
} from '../helpers/runHarness.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { waitFor } from '../helpers/waitFor.js';

describe('SettleTracker', () => {
  const T = 1_000_000;
  it('settles a file whose mtime is old at once, and a fresh one only after it stops changing for the settle time', () => {
    const t = new SettleTracker(2000);
    expect(
      t.update(
        [
          { name: 'old.csv', size: 10, mtimeMs: T - 5000 },
          { name: 'new.csv', size: 10, mtimeMs: T },
        ],
        T,
      ),
    ).toEqual(['old.csv']);
    // Grows: the clock starts again.
    expect(t.update([{ name: 'new.csv', size: 20, mtimeMs: T + 1000 }], T + 1000)).toEqual([]);
    expect(t.update([{ name: 'new.csv', size: 20, mtimeMs: T + 1000 }], T + 2500)).toEqual([]);
    expect(t.update([{ name: 'new.csv', size: 20, mtimeMs: T + 1000 }], T + 3000)).toEqual(['new.csv']);
  });

  it('settles a file with an mtime in the future once it has been seen unchanged long enough', () => {
    const t = new SettleTracker(1000);
    const look = { name: 'skewed.csv', size: 5, mtimeMs: T + 3_600_000 };
    expect(t.update([look], T)).toEqual([]);
    expect(t.update([look], T + 1000)).toEqual(['skewed.csv']);
  });

  it('orders settled files oldest first', () => {
    const t = new SettleTracker(0);
    expect(
      t.update(
        [
          { name: 'b', size: 1, mtimeMs: 2 },
          { name: 'a', size: 1, mtimeMs: 3 },
          { name: 'c', size: 1, mtimeMs: 1 },
        ],
        T,
      ),
    ).toEqual(['c', 'b', 'a']);
  });
});

let h: Awaited<ReturnType<typeof harness>>;
let inbox: ReturnType<typeof inboxAt>;
beforeEach(async () => {
  h = await harness();
  inbox = inboxAt(h.tmp.path('inbox'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await h.close();
});

describe('inbox: a half-written file', () => {
  it('is left alone by a pass while it is fresh, quietly, and taken whole once it has settled', async () => {
    inbox.drop('upload.csv', `${PAYER_HEADER}\n${payerRow('u-1')}\n${payerRow('u-2').slice(0, 40)}`, 0);
    const err = memoryStream();
    const context = { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream };
    const first = await runInbox({ dir: inbox.root, settle: 30, run: { baseUrl: h.sandbox.url, rate: 0 } }, context);
    expect(first).toEqual({ exitCode: 0, files: [] });
    expect(err.text()).toBe('');
    expect(inbox.list('incoming')).toEqual(['upload.csv']);
    expect(h.sandbox.stats().requests).toBe(0);

    // The upload finishes; a while later the next pass takes the complete file.
    inbox.drop('upload.csv', payersCsv(['u-1', 'u-2', 'u-3']), 60);
    const second = await runInbox({ dir: inbox.root, settle: 30, run: { baseUrl: h.sandbox.url, rate: 0 } }, context);
    expect(second.files.map((f) => [f.file, f.folder])).toEqual([['upload.csv', 'done']]);
    expect(readResults(inbox.path(second.files[0]!.results!, 'results.csv')).map((r) => r.clientUserId)).toEqual([
      'u-1',
      'u-2',
      'u-3',
    ]);
  });

  it('--watch waits while the file keeps growing and takes it once it stops, until the signal', async () => {
    // The watcher's clock is the test's: each of its looks sees the time the test has set, so a machine slow
    // enough to leave more than the settle time between two writes does not make the file look finished.
    // Its looks are counted, so the test moves on when the watcher has seen a write, not after a guessed while.
    let now = Date.now();
    let looks = 0;
    const update = SettleTracker.prototype.update;
    vi.spyOn(SettleTracker.prototype, 'update').mockImplementation(function (this: SettleTracker, files) {
      looks += 1;
      return update.call(this, files, now);
    });
    const lookAgain = async (what: string) => {
      const seen = looks;
      await waitFor(() => looks > seen, what);
    };
    const controller = new AbortController();
    const path = inbox.path('incoming', 'slow.csv');
    // Every write stamps the file with the watcher's time, as the uploader's writes would.
    const write = (text: string) => {
      appendFileSync(path, text);
      utimesSync(path, new Date(now), new Date(now));
    };
    write(`${PAYER_HEADER}\n`);
    const watching = runInbox(
      { dir: inbox.root, watch: true, settle: 1.5, pollMs: 20, run: { baseUrl: h.sandbox.url, rate: 0 } },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, signal: controller.signal },
    );
    // An upload that writes a row every second: never quiet for 1.5 s until it is done, 8 s in all.
    for (let i = 1; i <= 8; i++) {
      await lookAgain(`a look at slow.csv before row ${i}`);
      now += 1000;
      await lookAgain(`a look at slow.csv a second later, before row ${i}`);
      expect(inbox.list('processing')).toEqual([]);
      expect(inbox.list('done')).toEqual([]);
      write(`${payerRow(`s-${i}`)}\n`);
    }
    await lookAgain('a look at the finished slow.csv');
    expect(inbox.list('done')).toEqual([]);
    now += 1500;
    await waitFor(() => inbox.list('done').includes('slow.csv'), 'slow.csv in done/');
    controller.abort();
    const result = await watching;
    expect(result.exitCode).toBe(0);
    expect(result.files[0]!.summary!.rows.ok).toBe(8);
  });
});
