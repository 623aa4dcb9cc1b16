import { describe, expect, test } from 'vitest';
import { normalizeHeader, fieldForColumn } from '../src/rows/columns.js';

describe('normalizeHeader', () => {
  test('ignores case, spaces, underscores, dashes and dots', () => {
    expect(
      ['First Name', 'first_name', 'FIRSTNAME', 'first-name', 'first.name', ' First  Name ', 'firstName'].map(
        normalizeHeader,
      ),
    ).toEqual(Array(7).fill('firstname'));
  });

  test('keeps letters and digits as they are otherwise', () => {
    expect(normalizeHeader('Address Line 1')).toBe('addressline1');
    expect(normalizeHeader('SWIFT/BIC')).toBe('swift/bic');
  });
});

describe('fieldForColumn', () => {
  test('maps spreadsheet spellings to field names', () => {
    expect(fieldForColumn('First Name', 'payers')).toBe('firstName');
    expect(fieldForColumn('address_line_1', 'payers')).toBe('addressLine1');
    expect(fieldForColumn('SWIFT-BIC', 'payers')).toBe('swiftBic');
    expect(fieldForColumn('Bank Postal Code', 'payers')).toBe('bankPostalCode');
    expect(fieldForColumn('Agreement Completed', 'payers')).toBe('agreementCompleted');
  });

  test('a bank-details file knows payment-detail names, not payer-only ones or bank* overrides', () => {
    expect(fieldForColumn('Postal Code', 'bank-details')).toBe('postalCode');
    expect(fieldForColumn('postcode', 'bank-details')).toBeUndefined();
    expect(fieldForColumn('bankCity', 'bank-details')).toBeUndefined();
    // `Postal Code` is a built-in alias: on a payer row it is the payer's postcode (which the bank detail inherits).
    expect(fieldForColumn('postalCode', 'payers')).toBe('postcode');
  });
});
