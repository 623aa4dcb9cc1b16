import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAhead } from '../src/pipeline/sendRows.js';
import { harness, payersCsv } from './helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('run: a row held back by a slow call', () => {
  it('does not stop the rows behind it, and what waits for it to be written stays bounded', async () => {
    const concurrency = 4;
    const window = readAhead(concurrency);
    const ids = Array.from({ length: window + 100 }, (_, i) => `s-${String(i + 1).padStart(4, '0')}`);
    const input = h.tmp.write('payers.csv', payersCsv(ids));
    // The first compliance call is stored at once but answered only after 6 s: long enough for the others to get far
    // on a loaded machine too.
    h.sandbox.script([{ route: 'compliance', fault: 'slow', delayMs: 6000 }]);
    // Payers created while it is held: counted for 5 s from when the hold is first seen (a second to spare).
    let heldSince: number | undefined;
    let startedWhileHeld = 0;
    const poll = setInterval(() => {
      const stats = h.sandbox.stats();
      if (heldSince === undefined && stats.scripted > 0) heldSince = performance.now();
      if (heldSince !== undefined && performance.now() - heldSince < 5000)
        startedWhileHeld = Math.max(startedWhileHeld, stats.payersCreated);
    }, 20);
    const { summary, results } = await h.run({ inputs: [input], concurrency });
    clearInterval(poll);

    expect(summary.rows.ok).toBe(ids.length);
    expect(results.map((r) => r.clientUserId)).toEqual(ids);
    // The others went on meanwhile, far past what a small window (16 rows at this concurrency) would allow ...
    expect(startedWhileHeld).toBeGreaterThan(64);
    // ... but never past the read-ahead, the held row included.
    expect(startedWhileHeld).toBeLessThanOrEqual(window);
  });
});
