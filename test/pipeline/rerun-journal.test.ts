import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crashAtCreate } from '../helpers/testStore.js';
import { harness, NO_BANK, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('re-runs through the journal', () => {
  it('sends nothing when the same file runs again after a complete run: every row ok and done-before', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['r-1', 'r-2', 'r-3']));
    const first = await h.run({ inputs: [input] });
    expect(first.summary.exitCode).toBe(0);
    const requests = h.sandbox.stats().requests;

    const second = await h.run({ inputs: [input] });
    expect(second.summary.exitCode).toBe(0);
    expect(h.sandbox.stats().requests).toBe(requests);
    expect(second.summary.requests.total).toBe(0);
    for (const row of second.results) {
      expect(row.outcome).toBe('ok');
      expect(row.steps).toBe('compliance=done-before payment-details=done-before agreement=done-before');
      // The earlier answer still fills the result.
      const stored = h.sandbox.payer(row.clientUserId!)!;
      expect(row.userId).toBe(stored.userId);
      expect(row.kycUrl).toBe(stored.response.kycUrl);
      expect(row.paymentDetailId).toBe(stored.paymentDetails[0]!.id);
    }
  });

  it('makes a new call when the bank details were edited, and only that one', async () => {
    await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['e-1']))] });
    const edited = payersCsv(['e-1'], { 'e-1': { accountNumber: '000999888777' } });
    const { results } = await h.run({ inputs: [h.tmp.write('edited.csv', edited)] });
    expect(results[0]).toMatchObject({
      outcome: 'ok',
      steps: 'compliance=done-before payment-details=ok agreement=done-before',
    });
    const stored = h.sandbox.payer('e-1')!;
    expect(stored.paymentDetails.map((p) => (p.request as { accountNumber: string }).accountNumber)).toEqual([
      '000123456789',
      '000999888777',
    ]);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 0, paymentDetailsCreated: 2 });
  });

  it('settles a bank account in doubt by reading what is stored: adopted, not created again', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const baseUrl = crash.url;
      // The payer registered by an earlier file; its bank account comes in this one.
      await h.run({ inputs: [h.tmp.write('registered.csv', payersCsv(['d-1'], { 'd-1': NO_BANK }))], baseUrl });
      const input = h.tmp.write('payers.csv', payersCsv(['d-1']));
      crash.arm();
      const running = h.run({ inputs: [input], baseUrl });
      // A crash after the create went out but before its answer was recorded.
      const image = await crash.imageAtCreate(h.store);
      await running;
      await image.restore();
      const before = h.sandbox.stats().requests;

      const { summary, results } = await h.run({ inputs: [input], baseUrl });
      expect(summary.exitCode).toBe(0);
      expect(results[0]).toMatchObject({
        outcome: 'ok',
        steps: 'compliance=done-before payment-details=done-before agreement=done-before',
      });
      expect(results[0]!.paymentDetailId).toBe(h.sandbox.payer('d-1')!.paymentDetails[0]!.id);
      const stats = h.sandbox.stats();
      expect(stats.requests - before).toBe(1); // the read of stored accounts, nothing else
      expect(stats).toMatchObject({ payersCreated: 1, paymentDetailsCreated: 1, duplicatePaymentDetails: 0 });
    } finally {
      await crash.close();
    }
  });

  it('honours completedSteps with no journal at all (another machine)', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['m-1']));
    await h.run({ inputs: [input], steps: 'compliance' });
    const failedStyle = `${payersCsv(['m-1']).trim().split('\n')[0]},error,completedSteps\n${payersCsv(['m-1']).trim().split('\n')[1]},"payment-details: HTTP 500",compliance\n`;
    const other = await h.run({
      inputs: [h.tmp.write('failed-payers.csv', failedStyle)],
      stateDir: h.tmp.path('other-machine'),
    });
    expect(other.results[0]).toMatchObject({
      outcome: 'ok',
      steps: 'compliance=done-before payment-details=ok agreement=ok',
    });
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePayers: 0 });
  });

  it('finishes after a 401 abort: the re-run with the right key sends only what was skipped', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(Array.from({ length: 10 }, (_, i) => `a-${i + 1}`)));
    const refused = await h.run({ inputs: [input], concurrency: 1 }, { PAYER_API_KEY: 'wrong' });
    expect(refused.summary.exitCode).toBe(3);
    expect(refused.results.map((r) => r.outcome)).toContain('skipped');
    const fixed = await h.run({ inputs: [...refused.summary.outputs.failed, ...refused.summary.outputs.pending] });
    expect(fixed.summary.exitCode).toBe(0);
    expect(fixed.results).toHaveLength(10);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 10, duplicatePayers: 0 });
  });

  it('stops as "API down" after consecutive failures, and a re-run finishes the skipped rows', async () => {
    h.sandbox.script([{ route: '*', status: 503, times: 500 }]);
    const input = h.tmp.write('payers.csv', payersCsv(Array.from({ length: 12 }, (_, i) => `x-${i + 1}`)));
    const down = await h.run({ inputs: [input], retries: 0, maxConsecutiveFailures: 3, concurrency: 1 });
    expect(down.summary.exitCode).toBe(3);
    expect(down.summary.aborted?.reason).toBe('api-down');
    expect(h.sandbox.stats().requests).toBeLessThanOrEqual(4);
    expect(down.results.filter((r) => r.outcome === 'skipped').length).toBeGreaterThanOrEqual(9);

    h.sandbox.reset(); // the API is back
    const again = await h.run({ inputs: [...down.summary.outputs.failed, ...down.summary.outputs.pending] });
    expect(again.summary.exitCode).toBe(0);
    expect(again.results).toHaveLength(12);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 12, duplicatePayers: 0 });
  });
});
