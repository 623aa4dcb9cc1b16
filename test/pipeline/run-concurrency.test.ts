import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  // Latency keeps calls open long enough for the sandbox to see how many overlap.
  h = await harness({ latencyMs: 40 });
});
afterEach(async () => {
  await h.close();
});

describe('run: --concurrency counts payers in flight', () => {
  it('keeps N payers open, each with its payment details and agreement out together: more than N requests, never more than 2N', async () => {
    const ids = Array.from({ length: 18 }, (_, i) => `c-${i + 1}`);
    const input = h.tmp.write('payers.csv', payersCsv(ids));
    // Payers created whose agreement is not yet completed: rows past compliance and still open.
    let mostOpen = 0;
    const poll = setInterval(() => {
      const stats = h.sandbox.stats();
      mostOpen = Math.max(mostOpen, stats.payersCreated - stats.agreementsCompleted);
    }, 5);
    const { summary } = await h.run({ inputs: [input], concurrency: 3, rate: 0 });
    clearInterval(poll);

    expect(summary.rows.ok).toBe(18);
    expect(mostOpen).toBeGreaterThan(0);
    expect(mostOpen).toBeLessThanOrEqual(3);
    // Per row: create compliance with the read of stored accounts alongside, then payment details and agreement.
    expect(summary.requests.total).toBe(72);
    const { maxInFlight } = h.sandbox.stats();
    expect(maxInFlight).toBeLessThanOrEqual(2 * 3);
    // Had --concurrency counted requests, 3 would be the most ever seen.
    expect(maxInFlight).toBeGreaterThan(3);
  });
});
