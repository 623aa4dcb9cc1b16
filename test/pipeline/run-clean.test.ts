import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('run: a clean file', () => {
  it('makes every call once and writes what the server issued', async () => {
    const ids = ['p-1', 'p-2', 'p-3', 'p-4'];
    const csv = payersCsv(ids, {
      'p-4': { bankName: '', accountName: '', currency: '', accountNumber: '', routingNumber: '', accountType: '' },
    });
    const input = h.tmp.write('payers.csv', csv);
    const { summary, results } = await h.run({ inputs: [input], concurrency: 4 });

    expect(summary.exitCode).toBe(0);
    expect(summary.rows).toEqual({ total: 4, ok: 4, waiting: 0, invalid: 0, failed: 0, skipped: 0 });
    const stats = h.sandbox.stats();
    expect(stats.payersCreated).toBe(4);
    expect(stats.paymentDetailsCreated).toBe(3); // p-4 has no bank cells
    expect(stats.agreementsCompleted).toBe(4);
    expect(stats.duplicatePayers).toBe(0);
    // A first run: per payer, create compliance with the read of its stored accounts alongside (the journal cannot
    // know whether the service has the payer), then payment details and the agreement; p-4 has no account to read.
    expect(summary.requests.total).toBe(14);
    expect(stats.byRoute).toMatchObject({
      compliance: 4,
      'read-payment-details': 3,
      'payment-details': 3,
      agreement: 4,
    });

    expect(results.map((r) => [r.line, r.clientUserId, r.outcome, r.steps])).toEqual([
      ['2', 'p-1', 'ok', 'compliance=ok payment-details=ok agreement=ok'],
      ['3', 'p-2', 'ok', 'compliance=ok payment-details=ok agreement=ok'],
      ['4', 'p-3', 'ok', 'compliance=ok payment-details=ok agreement=ok'],
      ['5', 'p-4', 'ok', 'compliance=ok agreement=ok'],
    ]);
    for (const row of results) {
      const stored = h.sandbox.payer(row.clientUserId!)!;
      expect(row.userId).toBe(stored.userId);
      expect(row.agreementUrl).toBe(stored.response.agreementUrl);
      expect(row.kycUrl).toBe(stored.response.kycUrl);
      // The status after this run's own agreement call, not the one of the moment the payer was created.
      expect(row.agreementStatus).toBe('completed');
      expect(stored.agreementStatus).toBe('completed');
      expect(row.paymentDetailId).toBe(stored.paymentDetails.map((p) => p.id).join(';'));
      expect(row.agreementCompleted).toBe('true');
      expect(row.error).toBe('');
      expect(row.source).toBe('payers.csv');
    }
  });

  it('sends values exactly as typed: leading zeros and phone numbers unchanged', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['p-1']));
    await h.run({ inputs: [input] });
    const stored = h.sandbox.payer('p-1')!;
    expect(stored.request).toMatchObject({
      phone: '+12175550100',
      postcode: '62701',
      ssn: '123-45-6789',
      country: 'US',
    });
    expect(stored.paymentDetails[0]!.request).toMatchObject({
      routingNumber: '021000021',
      accountNumber: '000123456789',
      postalCode: '62701',
    });
  });

  it('creates results, summary and log mode 0600 and no failed file when every row is ok', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['p-1']));
    const { summary } = await h.run({ inputs: [input] });
    for (const path of [summary.outputs.results, summary.outputs.summary, summary.outputs.log]) {
      expect(statSync(path).mode & 0o777).toBe(0o600);
    }
    expect(summary.outputs.failed).toEqual([]);
  });
});
