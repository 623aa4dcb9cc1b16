import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAhead } from '../../src/pipeline/sendRows.js';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holdingProxy.js';
import { harness, payersCsv } from '../helpers/runHarness.js';
import { waitFor } from '../helpers/waitFor.js';

let h: Awaited<ReturnType<typeof harness>>;
let proxy: HoldingProxy | undefined;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await h.close();
});

describe('run: a row held back by a slow call', () => {
  it('does not stop the rows behind it, and what waits for it to be written stays bounded', async () => {
    const concurrency = 4;
    const window = readAhead(concurrency);
    const ids = Array.from({ length: window + 100 }, (_, i) => `s-${String(i + 1).padStart(4, '0')}`);
    const input = h.tmp.write('payers.csv', payersCsv(ids));
    // The first create compliance is stored at once, but its answer is held until the others have gone as far as
    // they can: every row the read-ahead lets in, but the held one, finished.
    proxy = await startHoldingProxy(h.sandbox.url, (method, path) => method === 'POST' && path === '/v2/payer');
    const running = h.run({ inputs: [input], concurrency, baseUrl: proxy.url });
    await waitFor(() => {
      const stats = h.sandbox.stats();
      return stats.agreementsCompleted >= window - 1 || stats.payersCreated > window;
    }, 'the rows behind the held one to finish');
    // Read while the answer is still held: what the run started meanwhile.
    const startedWhileHeld = h.sandbox.stats().payersCreated;
    expect(proxy.holding()).toBe(true);
    proxy.release();
    const { summary, results } = await running;

    expect(summary.rows.ok).toBe(ids.length);
    expect(results.map((r) => r.clientUserId)).toEqual(ids);
    // The others went on meanwhile, far past what a small window (16 rows at this concurrency) would allow ...
    expect(startedWhileHeld).toBeGreaterThan(64);
    // ... but never past the read-ahead, the held row included.
    expect(startedWhileHeld).toBeLessThanOrEqual(window);
  });
});
