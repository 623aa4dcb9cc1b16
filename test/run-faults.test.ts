import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from './helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('run: a flaky API', () => {
  it('retries 429, 500, resets and lost answers until every row is ok, creating nothing twice', async () => {
    h = await harness({ fault429: 0.1, fault500: 0.1, faultReset: 0.05, faultCommit500: 0.05, seed: 7 });
    const ids = Array.from({ length: 24 }, (_, i) => `f-${i + 1}`);
    const { summary, results } = await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(ids))], concurrency: 6, retries: 10 });

    expect(results.filter((r) => r.outcome !== 'ok')).toEqual([]);
    expect(summary.exitCode).toBe(0);
    expect(summary.requests.retries).toBeGreaterThan(0);
    const stats = h.sandbox.stats();
    expect(stats.payersCreated).toBe(24);
    expect(stats.paymentDetailsCreated).toBe(24);
    expect(stats.agreementsCompleted).toBe(24);
    expect(stats.duplicatePayers).toBe(0);
    for (const id of ids) expect(h.sandbox.payer(id)!.paymentDetails).toHaveLength(1);
  });

  it('stops at a rejected key within a few requests, marks the rest skipped, exit 3', async () => {
    h = await harness();
    const ids = Array.from({ length: 30 }, (_, i) => `k-${i + 1}`);
    const { summary, results } = await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(ids))], concurrency: 2 }, { PAYER_API_KEY: 'wrong-key' });

    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.reason).toBe('key-rejected');
    expect(h.sandbox.stats().requests).toBeLessThanOrEqual(4);
    expect(results).toHaveLength(30);
    expect(results.filter((r) => r.outcome === 'skipped').length).toBeGreaterThanOrEqual(26);
    expect(results.every((r) => r.outcome === 'skipped' || r.outcome === 'failed')).toBe(true);
    // Every row not ok is in the failed file, ready to run again with the right key.
    expect(summary.outputs.failed).toHaveLength(1);
  });

  it('treats 409 on create compliance as already registered and goes on with the other steps', async () => {
    h = await harness({ duplicates: 'conflict' });
    const input = h.tmp.write('payers.csv', payersCsv(['d-1']));
    await h.run({ inputs: [input], steps: ['compliance'] });
    // A changed cell gives a new Idempotency-Key, so the sandbox answers the duplicate with 409 instead of a replay.
    const changed = payersCsv(['d-1'], { 'd-1': { addressLine1: '13 Analytical Way' } });
    const { summary, results } = await h.run({ inputs: [h.tmp.write('again.csv', changed)], steps: 'compliance,payment-details,agreement' });
    expect(summary.exitCode).toBe(0);
    expect(results[0]).toMatchObject({ outcome: 'ok', steps: 'compliance=done-before payment-details=ok agreement=ok', userId: '', agreementUrl: '' });
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 1, paymentDetailsCreated: 1 });
  });
});
