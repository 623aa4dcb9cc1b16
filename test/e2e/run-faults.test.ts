import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('run: a flaky API', () => {
  it('retries 429, 500, resets and lost answers until every row is ok, creating nothing twice', async () => {
    // Each 429 (Retry-After: 1) pauses every call for a second: a few are enough to show it.
    h = await harness({ fault429: 0.03, fault500: 0.1, faultReset: 0.05, faultCommit500: 0.05, seed: 7 });
    const ids = Array.from({ length: 24 }, (_, i) => `f-${i + 1}`);
    const { summary, results } = await h.run({
      inputs: [h.tmp.write('payers.csv', payersCsv(ids))],
      concurrency: 6,
      retries: 10,
    });

    expect(results.filter((r) => r.outcome !== 'ok')).toEqual([]);
    expect(summary.exitCode).toBe(0);
    expect(summary.requests.retries).toBeGreaterThan(0);
    const stats = h.sandbox.stats();
    expect(stats.payersCreated).toBe(24);
    expect(stats.paymentDetailsCreated).toBe(24);
    expect(stats.agreementsCompleted).toBe(24);
    // Create compliance may be sent again after a lost answer (the service answers a known payer with 200); a bank
    // account never is: a read settles every unclear create first.
    expect(stats.duplicatePaymentDetails).toBe(0);
    for (const id of ids) expect(h.sandbox.payer(id)!.paymentDetails).toHaveLength(1);
  });

  it('429s that come whatever the rate lower it once or twice, not to the floor', async () => {
    // One answer in ten a 429, at any rate. No Retry-After, so each pauses the calls for a short backoff, not a second.
    h = await harness({ latencyMs: 20, fault429: 0.1, retryAfter: false, seed: 5 });
    const ids = Array.from({ length: 60 }, (_, i) => `n-${i + 1}`);
    const { summary, results } = await h.run({
      inputs: [h.tmp.write('payers.csv', payersCsv(ids))],
      concurrency: 4,
      retries: 10,
    });
    expect(results.filter((r) => r.outcome !== 'ok')).toEqual([]);
    expect(summary.requests.byStatus['429']).toBeGreaterThan(10);

    // What the client did with its rate, as its log says.
    const log = readFileSync(summary.outputs.log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; rate?: number });
    const lowered = log.filter((l) => l.msg === 'rate lowered after a 429').map((l) => l.rate!);
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    expect(lowered.length).toBeLessThanOrEqual(3);
    expect(Math.min(...lowered)).toBeGreaterThan(1); // the floor
    expect(log.some((l) => l.msg.startsWith('429s do not follow the rate'))).toBe(true);
    // And as the sandbox saw it: the last quarter of the requests went out far above the floor.
    const arrivals = h.sandbox.arrivals();
    const last = arrivals.slice(Math.floor((arrivals.length * 3) / 4));
    const perSecond = (last.length - 1) / (((last.at(-1) ?? 0) - (last[0] ?? 0)) / 1000);
    expect(perSecond).toBeGreaterThan(10);
  });

  it('stops at a rejected key within a few requests, marks the rest skipped, exit 3', async () => {
    h = await harness();
    const ids = Array.from({ length: 30 }, (_, i) => `k-${i + 1}`);
    const { summary, results } = await h.run(
      { inputs: [h.tmp.write('payers.csv', payersCsv(ids))], concurrency: 2 },
      { PAYER_API_KEY: 'wrong-key' },
    );

    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.reason).toBe('key-rejected');
    expect(h.sandbox.stats().requests).toBeLessThanOrEqual(4);
    expect(results).toHaveLength(30);
    expect(results.filter((r) => r.outcome === 'skipped').length).toBeGreaterThanOrEqual(26);
    // Nothing in the rows is wrong: every one is in the pending file, ready to run again with the right key.
    expect(results.every((r) => r.outcome === 'skipped')).toBe(true);
    expect(summary.outputs.pending).toHaveLength(1);
    expect(summary.outputs.failed).toHaveLength(0);
  });

  it('treats 409 on create compliance as already registered and goes on with the other steps', async () => {
    h = await harness({ duplicates: 'conflict' });
    const input = h.tmp.write('payers.csv', payersCsv(['d-1']));
    await h.run({ inputs: [input], steps: ['compliance'] });
    // Another state dir: the journal does not know the payer, so compliance is sent again and answered 409.
    const { summary, results } = await h.run({ inputs: [input], stateDir: h.tmp.path('other-state') });
    expect(summary.exitCode).toBe(0);
    expect(results[0]).toMatchObject({
      outcome: 'ok',
      steps: 'compliance=done-before payment-details=ok agreement=ok',
      userId: '',
      agreementUrl: '',
      kycStatus: 'approved',
    });
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 1, paymentDetailsCreated: 1 });
  });
});
