import { describe, expect, test } from 'vitest';
import { paymentDetailRequest } from '../../src/core/schemas.js';
import { validateBankRow } from '../../src/validate/validateBankRow.js';

const bank = (row: Record<string, unknown>) =>
  validateBankRow(
    Object.entries(row).map(([column, value]) => ({ column, value })),
    { today: new Date(2024, 5, 15) },
  );

const complete = {
  'Client User ID': 'payer-0001',
  'Bank Name': 'Lloyds',
  'Account Name': 'Jane Doe',
  'Beneficiary Type': 'Individual',
  Currency: 'gbp',
  'Address Line 1': '1 High St',
  City: 'London',
  Country: 'gb',
  'Date of Birth': '1985-04-12',
  'Postal Code': 'EC1A 1BB',
  'Account Number': '31926819',
  'Sort Code': '30-94-57',
};

describe('validateBankRow', () => {
  test('a complete row gives clientUserId and one payment detail that passes the spec', () => {
    const result = bank({ ...complete, completedSteps: 'compliance', error: 'old error' });
    expect(result).toEqual({
      ok: true,
      clientUserId: 'payer-0001',
      paymentDetail: {
        bankName: 'Lloyds',
        accountName: 'Jane Doe',
        beneficiaryType: 'individual',
        currency: 'gbp',
        addressLine1: '1 High St',
        city: 'London',
        country: 'GB',
        dateOfBirth: '1985-04-12',
        postalCode: 'EC1A 1BB',
        accountNumber: '31926819',
        sortCode: '30-94-57',
      },
      completedSteps: ['compliance'],
    });
    expect(result.ok && paymentDetailRequest.parse(result.paymentDetail)).toBeTruthy();
  });

  test('nothing defaults: every required field is its own, and every issue is collected', () => {
    expect(
      bank({ 'Client User ID': 'p-2', 'Bank Name': 'Lloyds', Currency: 'pounds', Country: 'UK', postcode: 'ignored' }),
    ).toEqual({
      ok: false,
      clientUserId: 'p-2',
      issues: [
        { column: 'Currency', message: 'must be an ISO 4217 currency code such as USD, got "pounds"' },
        { column: 'Country', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "UK"' },
        { column: 'accountName', message: 'is required' },
        { column: 'beneficiaryType', message: 'is required' },
        { column: 'addressLine1', message: 'is required' },
        { column: 'city', message: 'is required' },
        { column: 'dateOfBirth', message: 'is required' },
        { column: 'postalCode', message: 'is required' },
      ],
    });
  });

  test('clientUserId is required', () => {
    expect(bank({ ...complete, 'Client User ID': ' ' })).toEqual({
      ok: false,
      issues: [{ column: 'Client User ID', message: 'is required' }],
    });
  });

  test('the same bank rules apply: routing checksum, IBAN, BIC', () => {
    expect(
      bank({ ...complete, routingNumber: '123456789', iban: 'GB00WEST12345698765432', swiftBic: 'LOYD' }),
    ).toMatchObject({
      issues: [
        {
          column: 'routingNumber',
          message:
            'must be 9 digits with a valid ABA checksum; its 9 digits fail the checksum: look for a mistyped digit',
        },
        { column: 'iban', message: 'must be a valid IBAN: its check digits do not match (mod-97)' },
        {
          column: 'swiftBic',
          message:
            'must be a SWIFT/BIC code of 8 or 11 letters and digits, such as DEUTDEFF or DEUTDEFF500, got "LOYD"',
        },
      ],
    });
  });
});
