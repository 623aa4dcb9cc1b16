import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';

// A run against the sandbox: a bank account lacking what its currency and rails need is refused before anything of
// its row is sent, its neighbours go through, and every currency goes out in lower case whatever the file wrote.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const HEADER = `${PAYER_HEADER},rails,iban,swiftBic,companyName`;
const row = (id: string, over: Record<string, string>, extra: [string, string, string, string]) =>
  `${payerRow(id, over)},${extra.join(',')}`;
const EUR = { currency: 'EUR', accountNumber: '', routingNumber: '', accountType: '' };
const IBAN = 'DE89370400440532013000';

describe('run: the corridors', () => {
  it('refuses an account its corridor refuses, sends its neighbours with lower-case currencies, and warns', async () => {
    const csv = [
      HEADER,
      row('c-1', {}, ['', '', '', '']),
      row('c-2', EUR, ['swift', IBAN, '', '']),
      row('c-3', { ...EUR, currency: 'Eur' }, ['swift', IBAN, 'DEUTDEFF', '']),
      row('c-4', { beneficiaryType: 'business' }, ['local', '', '', 'Acme LLC']),
    ].join('\n');
    const input = h.tmp.write('payers.csv', `${csv}\n`);
    const { summary, results } = await h.run({ inputs: [input] });

    expect(summary.exitCode).toBe(1);
    expect(results.map((r) => [r.clientUserId, r.outcome])).toEqual([
      ['c-1', 'ok'],
      ['c-2', 'invalid'],
      ['c-3', 'ok'],
      ['c-4', 'ok'],
    ]);
    expect(results[1]!.error).toBe('swiftBic: is required for a EUR account on swift rails');
    // Nothing of the refused row reached the service: each route was called once for each of the three others.
    expect(h.sandbox.payer('c-2')).toBeUndefined();
    const stats = h.sandbox.stats();
    expect(stats.byRoute).toMatchObject({
      compliance: 3,
      'read-payment-details': 3,
      'payment-details': 3,
      agreement: 3,
      'read-payer': 0,
    });
    expect(stats.requests).toBe(12);
    expect(stats.paymentDetailsCreated).toBe(3);

    // On the wire, the currency as the service writes it.
    const sent = (id: string) => (h.sandbox.payer(id)!.paymentDetails[0]!.request as { currency: string }).currency;
    expect(['c-1', 'c-3', 'c-4'].map(sent)).toEqual(['usd', 'eur', 'usd']);

    // A business payer without sourceOfFunds or businessActivity went through, told so in its error cell.
    expect(results[3]!.error).toBe(
      ['sourceOfFunds', 'businessActivity']
        .map(
          (column) =>
            `${column}: is blank: the service takes a business payer without it, but its reference app asks ` +
            'for it, and KYC may too',
        )
        .join(' | '),
    );

    // The failed file holds the refused row as it was written, for the team to add its BIC.
    const failed = readFileSync(summary.outputs.failed[0]!, 'utf8').trim().split('\n');
    expect(failed).toHaveLength(2);
    expect(failed[1]!.startsWith(`${row('c-2', EUR, ['swift', IBAN, '', ''])},`)).toBe(true);

    // Run again, the rows sent are known by their accounts as before: nothing is sent.
    const before = h.sandbox.stats().requests;
    const again = await h.run({ inputs: [input] });
    expect(again.results.map((r) => r.outcome)).toEqual(['ok', 'invalid', 'ok', 'ok']);
    expect(h.sandbox.stats().requests).toBe(before);
  });
});
