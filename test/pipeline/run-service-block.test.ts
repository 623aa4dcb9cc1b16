import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

// The service blocks a client and its address for 5 minutes after a sustained breach of its rate limit, answering
// nothing but 429 meanwhile (no Retry-After documented). The run takes nothing but 429s for longer than a call's
// retries for that block: it pauses, probes now and then, and goes on when the block is over; past --max-block-wait
// it stops with its rows pending. Never a row "to fix": nothing in them is wrong. Timings scaled down.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `blk-${i + 1}`);
// Nothing but 429s for 1.5 s is the block here: longer than the sandbox's one-second window for a breach.
const SCALED = { afterMs: 1500, probeEveryMs: 300 };

describe("run: the service's block", () => {
  it('is waited out: every row ok, none failed, and stderr says the block began and ended', async () => {
    h = await harness({ kycAfter: 0, rateLimit: 20, blockSeconds: 1.5, retryAfter: false });
    const input = h.tmp.write('payers.csv', payersCsv(ids(12)));
    const { summary, results, stderr } = await h.run({
      inputs: [input],
      concurrency: 16,
      rate: 0,
      retries: 2,
      blockTiming: SCALED,
    });
    expect(h.sandbox.stats().blockedRequests).toBeGreaterThan(0);
    expect(results.map((r) => r.outcome)).toEqual(Array(12).fill('ok'));
    expect(summary.exitCode).toBe(0);
    expect(stderr).toContain(
      'payer-onboard: the service blocked this key and address for a while (its documents: 5 minutes); waiting: next try in 0 s',
    );
    expect(stderr).toMatch(/payer-onboard: the service's block is over after \d+ s; sending again/);
  });

  it('past --max-block-wait the run stops (exit 3): its rows are pending, none to fix', async () => {
    h = await harness({ kycAfter: 0, rateLimit: 20, blockSeconds: 60, retryAfter: false });
    const input = h.tmp.write('payers.csv', payersCsv(ids(12)));
    const { summary, results, stderr } = await h.run({
      inputs: [input],
      concurrency: 16,
      rate: 0,
      retries: 2,
      maxBlockWait: 0.02,
      blockTiming: SCALED,
    });
    expect(summary.exitCode).toBe(3);
    expect(stderr).toContain('stopped: the service blocked this key and address for longer than --max-block-wait');
    const outcomes = new Set(results.map((r) => r.outcome));
    expect(outcomes.has('failed') || outcomes.has('invalid')).toBe(false);
    expect(results.filter((r) => r.outcome === 'skipped').length).toBeGreaterThan(0);
    expect(summary.outputs.failed).toEqual([]);
    expect(summary.outputs.pending).toHaveLength(1);
  });

  it('a call refused alone (429 after 429 while others are answered) for --max-block-wait stops the run the same way', async () => {
    h = await harness({ kycAfter: 0 });
    // Every agreement answered 429, as often as it is asked; everything else answered.
    h.sandbox.script([{ route: 'agreement', status: 429, times: 100_000 }]);
    const input = h.tmp.write('payers.csv', payersCsv(ids(3)));
    const { summary, results, stderr } = await h.run({
      inputs: [input],
      retries: 2,
      maxBlockWait: 0.01,
      blockTiming: SCALED,
    });
    expect(summary.exitCode).toBe(3);
    expect(stderr).toContain(
      'stopped: the service blocked this key and address for longer than --max-block-wait (1 s)',
    );
    expect(results.map((r) => r.outcome).filter((o) => o === 'failed' || o === 'invalid')).toEqual([]);
    expect(summary.outputs.pending).toHaveLength(1);
  });
});
