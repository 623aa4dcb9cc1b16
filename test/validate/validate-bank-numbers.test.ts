import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const payer = (over: Record<string, unknown>) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...over }), {
    defaultAgreementCompleted: true,
    today: new Date(2024, 5, 15),
  });
const detailOf = (r: PayerRowResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.paymentDetails[0];
};
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);

describe('routingNumber', () => {
  test('021000021 passes and arrives exactly as typed', () => {
    expect(detailOf(payer({ routingNumber: '021000021' }))?.routingNumber).toBe('021000021');
  });

  test.each([
    ['021000022', 'its 9 digits fail the checksum: look for a mistyped digit'],
    ['02100002a', 'it has 8 digits and 1 other character'],
    ['0210000211', 'it has 10 digits'],
    ['021-000-021', 'it has 9 digits and 2 other characters'],
  ])('%s fails with what is wrong, without being echoed', (routing, found) => {
    expect(issuesOf(payer({ routingNumber: routing }))).toEqual([
      { column: 'routingNumber', message: `must be 9 digits with a valid ABA checksum; ${found}` },
    ]);
  });

  test('8 digits: the message points at the dropped leading zero', () => {
    expect(issuesOf(payer({ 'Routing Number': '21000021', routingNumber: undefined }))).toEqual([
      {
        column: 'Routing Number',
        message:
          'must be 9 digits with a valid ABA checksum; it has 8 digits: looks like a leading zero was lost: format the column as text and type the value again',
      },
    ]);
  });
});

describe('iban', () => {
  const eur = {
    currency: 'EUR',
    routingNumber: undefined,
    accountNumber: undefined,
    rails: 'swift',
    swiftBic: 'DEUTDEFF',
  };

  test('a valid IBAN with spaces goes out without spaces, upper case', () => {
    expect(detailOf(payer({ ...eur, iban: 'de89 3704 0044 0532 0130 00' }))?.iban).toBe('DE89370400440532013000');
  });

  test.each([
    ['DE89370400440532013001', 'its check digits do not match (mod-97)'],
    ['DE8937040044053201300', 'its length is wrong for its country'],
    ['ZZ89370400440532013000', 'it does not start with a known country code'],
    ['GB82WEST1234569876543X', 'it has characters its country does not allow'],
  ])('%s: %s', (iban, reason) => {
    expect(issuesOf(payer({ ...eur, iban }))).toEqual([{ column: 'iban', message: `must be a valid IBAN: ${reason}` }]);
  });
});

describe('swiftBic', () => {
  test.each([
    ['DEUTDEFF', 'DEUTDEFF'],
    ['DEUTDEFF500', 'DEUTDEFF500'],
    ['deut de ff', 'DEUTDEFF'],
  ])('%s is accepted as %s', (typed, sent) => {
    expect(detailOf(payer({ swiftBic: typed }))?.swiftBic).toBe(sent);
  });

  test.each(['DEUTDEF', 'DEUTDEFF50', 'DEUT-DE-FF', '1234DEFF'])('%s is refused', (bic) => {
    expect(issuesOf(payer({ swiftBic: bic }))).toEqual([
      {
        column: 'swiftBic',
        message: `must be a SWIFT/BIC code of 8 or 11 letters and digits, such as DEUTDEFF or DEUTDEFF500, got "${bic}"`,
      },
    ]);
  });
});

describe('no invented corridor rules', () => {
  test('a currency the corridors do not name takes any of the bank fields, or none of its numbers', () => {
    expect(payer({ currency: 'CHF', routingNumber: undefined, accountNumber: undefined }).ok).toBe(true);
    expect(payer({ currency: 'AUD', routingNumber: undefined, bsbNumber: '062-000' }).ok).toBe(true);
  });
});
