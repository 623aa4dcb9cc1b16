import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

// Onboarding as the real service runs it: bank accounts are refused (500) until the payer's KYC is approved,
// Idempotency-Key is ignored, a known payer is answered 200. Each run of the same file moves every payer as far
// as the service allows; nothing is ever created twice.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = Array.from({ length: 20 }, (_, i) => `l-${String(i + 1).padStart(2, '0')}`);

describe('the onboarding loop against the default (real-like) sandbox', () => {
  it('first run waits, each later run attaches what KYC now allows, a lost state dir costs reads only', async () => {
    h = await harness({ kycAfter: undefined });
    const input = h.tmp.write('payers.csv', payersCsv(ids));
    const requests = () => h!.sandbox.stats().requests;

    // 1. New payers: registered, links handed out, every bank account waits for KYC.
    const first = await h.run({ inputs: [input] });
    expect(first.summary.exitCode).toBe(0);
    expect(first.results.map((r) => r.outcome)).toEqual(Array(20).fill('waiting'));
    expect(first.results[0]).toMatchObject({
      steps: 'compliance=ok payment-details=waiting agreement=ok',
      error: 'payment-details: waiting for KYC approval (kycStatus not_started)',
    });
    expect(first.results.every((r) => r.kycUrl !== '' && r.agreementUrl !== '' && r.userId !== '')).toBe(true);
    expect(requests()).toBeLessThanOrEqual(4 * 20);
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 20, paymentDetailsCreated: 0 });
    // The run learned the gate: only the payers in flight before the first refusal tried a bank account.
    expect(h.sandbox.stats().kycRefusals).toBeLessThanOrEqual(2 * 8);

    // 2. Half of them pass KYC: their accounts are attached, the others still wait.
    for (const id of ids.slice(0, 10)) h.sandbox.setKyc(id, 'approved');
    let before = requests();
    const second = await h.run({ inputs: [input] });
    expect(second.summary.exitCode).toBe(0);
    expect(second.results.map((r) => r.outcome)).toEqual([...Array(10).fill('ok'), ...Array(10).fill('waiting')]);
    expect(requests() - before).toBeLessThanOrEqual(3 * 20);
    for (const id of ids.slice(0, 10)) expect(h.sandbox.payer(id)!.paymentDetails).toHaveLength(1);

    // 3. The rest approved, and the state dir lost: the reads find what exists, the rest is created, nothing twice.
    for (const id of ids.slice(10)) h.sandbox.setKyc(id, 'approved');
    rmSync(h.tmp.path('state'), { recursive: true, force: true });
    before = requests();
    const third = await h.run({ inputs: [input] });
    expect(third.summary.exitCode).toBe(0);
    expect(third.results.map((r) => r.outcome)).toEqual(Array(20).fill('ok'));
    expect(third.results.slice(0, 10).every((r) => r.steps!.includes('payment-details=done-before'))).toBe(true);
    expect(requests() - before).toBeLessThanOrEqual(3 * 20);
    expect(h.sandbox.stats()).toMatchObject({
      payersCreated: 20,
      paymentDetailsCreated: 20,
      duplicatePaymentDetails: 0,
    });

    // 4. With the journal kept: done rows cost nothing.
    before = requests();
    const fourth = await h.run({ inputs: [input] });
    expect(fourth.results.map((r) => r.outcome)).toEqual(Array(20).fill('ok'));
    expect(requests() - before).toBeLessThanOrEqual(20);
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(20);
  });

  it('a payer whose KYC is rejected fails, for a person to act; the others are unaffected', async () => {
    h = await harness({ kycAfter: undefined });
    const input = h.tmp.write('payers.csv', payersCsv(ids.slice(0, 4)));
    await h.run({ inputs: [input] });
    h.sandbox.setKyc('l-01', 'rejected');
    h.sandbox.setKyc('l-02', 'approved');
    const { summary, results } = await h.run({ inputs: [input] });
    expect(results.map((r) => r.outcome)).toEqual(['failed', 'ok', 'waiting', 'waiting']);
    expect(results[0]!.error).toContain('kyc: KYC rejected: nothing in this row is wrong; the payer must be contacted');
    expect(summary.exitCode).toBe(1);
    expect(h.sandbox.payer('l-01')!.paymentDetails).toHaveLength(0);
  });
});

describe('exactly once when answers are lost', () => {
  const faults = { faultCommit500: 0.15, faultReset: 0.05, fault500: 0.05, seed: 11 };
  const big = Array.from({ length: 150 }, (_, i) => `x-${i + 1}`);

  // Concurrent: most of each run is waiting out backoffs, each against its own sandbox.
  it.concurrent.each([
    ['approved at creation', { kycAfter: 0 }],
    ['409 for a known payer', { kycAfter: 0, duplicates: 'conflict' as const }],
    ['no KYC gate, payers never approved', { kycGate: 'off' as const }],
  ])('%s: every payer and bank account once, exit 0', async (_name, mode) => {
    const own = await harness({ ...faults, kycAfter: undefined, ...mode });
    try {
      const { summary, results } = await own.run({
        inputs: [own.tmp.write('payers.csv', payersCsv(big))],
        retries: 8,
        concurrency: 16,
      });
      expect(results.filter((r) => r.outcome !== 'ok' && r.outcome !== 'waiting')).toEqual([]);
      expect(summary.exitCode).toBe(0);
      const stats = own.sandbox.stats();
      expect(stats).toMatchObject({ payersCreated: 150, paymentDetailsCreated: 150, duplicatePaymentDetails: 0 });
      for (const id of big) expect(own.sandbox.payer(id)!.paymentDetails).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});

describe('a lost state dir', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => `s-${i + 1}`);

  it.each([
    ['full numbers', {}],
    ['numbers masked to their last 4 digits', { maskNumbers: true }],
  ])(
    '%s: the same file again adopts every stored account, adds nothing, at most 3 requests a row',
    async (_name, mode) => {
      h = await harness({ kycAfter: 0, ...mode });
      const input = h.tmp.write('payers.csv', payersCsv(hundred));
      const first = await h.run({ inputs: [input], concurrency: 16 });
      expect(first.results.every((r) => r.outcome === 'ok')).toBe(true);
      expect(h.sandbox.stats().requests).toBeLessThanOrEqual(4 * 100);
      rmSync(h.tmp.path('state'), { recursive: true, force: true });
      const before = h.sandbox.stats();

      const { results } = await h.run({ inputs: [input], concurrency: 16 });
      expect(results.map((r) => r.outcome)).toEqual(Array(100).fill('ok'));
      expect(results.every((r) => r.steps!.includes('payment-details=done-before'))).toBe(true);
      const after = h.sandbox.stats();
      expect(after.requests - before.requests).toBeLessThanOrEqual(3 * 100);
      expect(after).toMatchObject({ payersCreated: 100, paymentDetailsCreated: 100, duplicatePaymentDetails: 0 });
    },
  );
});
