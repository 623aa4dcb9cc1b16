import { appendFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox } from '../src/inbox/runInbox.js';
import { SettleTracker } from '../src/inbox/folders.js';
import {
  API_KEY,
  harness,
  memoryStream,
  PAYER_HEADER,
  payerRow,
  payersCsv,
  readResults,
} from './helpers/runHarness.js';
import { inboxAt } from './helpers/inboxFixtures.js';
import { until } from './helpers/spawnBin.js';

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
    const controller = new AbortController();
    const path = inbox.path('incoming', 'slow.csv');
    writeFileSync(path, `${PAYER_HEADER}\n`);
    const watching = runInbox(
      { dir: inbox.root, watch: true, settle: 1.5, pollMs: 50, run: { baseUrl: h.sandbox.url, rate: 0 } },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, signal: controller.signal },
    );
    // An upload that writes a row every 150 ms: never quiet for 1.5 s until it is done.
    for (let i = 1; i <= 8; i++) {
      await new Promise((r) => setTimeout(r, 150));
      expect(inbox.list('processing')).toEqual([]);
      expect(inbox.list('done')).toEqual([]);
      appendFileSync(path, `${payerRow(`s-${i}`)}\n`);
    }
    await until(() => inbox.list('done').includes('slow.csv'), 'slow.csv in done/');
    controller.abort();
    const result = await watching;
    expect(result.exitCode).toBe(0);
    expect(result.files[0]!.summary!.rows.ok).toBe(8);
  });
});
