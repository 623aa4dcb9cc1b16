import { describe, expect, test } from 'vitest';
import { BANK_ONLY_FIELDS, TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
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
const okOf = (r: PayerRowResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r;
};
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);
const noBank = Object.fromEntries(BANK_ONLY_FIELDS.map((field) => [field, '']));

describe('bank account on a payer row', () => {
  test('shared fields default from the payer, postalCode from postcode', () => {
    expect(okOf(payer({})).paymentDetails).toEqual([
      {
        bankName: 'Example Bank',
        accountName: 'Jane Doe',
        beneficiaryType: 'individual',
        currency: 'usd',
        addressLine1: '123 Main Street',
        city: 'Springfield',
        country: 'US',
        dateOfBirth: '1985-04-12',
        postalCode: '62701',
        accountNumber: '000123456789',
        routingNumber: '021000021',
        addressLine2: 'Apt 4B',
        state: 'IL',
        rails: 'local',
        accountType: 'checking',
      },
    ]);
  });

  test('bank* columns override each shared field', () => {
    const detail = okOf(
      payer({
        'Bank Beneficiary Type': 'Business',
        bank_address_line_1: '1 Bank Plaza',
        bankAddressLine2: 'Floor 9',
        bankCity: 'Chicago',
        bankState: 'IL',
        bankCountry: 'us',
        bankDateOfBirth: '1970-01-01',
        'bank postal code': '60601',
      }),
    ).paymentDetails[0];
    expect(detail).toMatchObject({
      beneficiaryType: 'business',
      addressLine1: '1 Bank Plaza',
      addressLine2: 'Floor 9',
      city: 'Chicago',
      state: 'IL',
      country: 'US',
      dateOfBirth: '1970-01-01',
      postalCode: '60601',
    });
  });

  test('an absent optional payer field is absent in the detail too', () => {
    const detail = okOf(payer({ addressLine2: '' })).paymentDetails[0];
    expect(detail).not.toHaveProperty('addressLine2');
  });

  test('a row with no bank-only cell has no payment details, even with bank* overrides filled', () => {
    expect(okOf(payer({ ...noBank, bankCity: 'Chicago' })).paymentDetails).toEqual([]);
  });

  test('one bank-only cell is enough to need the rest of the required bank fields', () => {
    expect(issuesOf(payer({ ...noBank, IBAN: 'DE89370400440532013000' }))).toEqual([
      { column: 'bankName', message: 'is required' },
      { column: 'accountName', message: 'is required' },
      { column: 'currency', message: 'is required' },
    ]);
  });

  test("a wrong payer value the bank detail would inherit is reported once, under the payer's column", () => {
    expect(issuesOf(payer({ country: 'Germany', postcode: '', beneficiaryType: 'person' }))).toEqual([
      { column: 'beneficiaryType', message: 'must be one of individual, business, got "person"' },
      { column: 'postcode', message: 'is required' },
      { column: 'country', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "Germany"' },
    ]);
  });

  test('an override replaces a wrong payer value for the detail, but the payer value is still wrong', () => {
    expect(issuesOf(payer({ country: 'Germany', bankCountry: 'DE' }))).toEqual([
      { column: 'country', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "Germany"' },
    ]);
  });

  test('a wrong override is reported under the override column', () => {
    expect(issuesOf(payer({ bankCountry: 'Germany' }))).toEqual([
      { column: 'bankCountry', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "Germany"' },
    ]);
  });
});
