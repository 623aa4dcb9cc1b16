import { describe, expect, test } from 'vitest';
import { fieldForColumn, mapHeader } from '../../src/rows/columns.js';

// How a header name is normalised before it is looked up, seen through mapHeader: what each column comes to mean.
const fieldsOf = (header: string[]) => mapHeader(header, 'payers').fields;

describe('header names are matched after normalising', () => {
  test('ignores case, spaces, underscores, dashes and dots', () => {
    expect(
      fieldsOf(['First Name', 'first_name', 'FIRSTNAME', 'first-name', 'first.name', ' First  Name ', 'firstName']),
    ).toEqual(Array(7).fill('firstName'));
  });

  test('ignores accents and every punctuation mark, keeps letters and digits', () => {
    // The digit is kept: line 1 and line 2 stay two fields.
    expect(fieldsOf(['Address Line 1', 'Address Line 2'])).toEqual(['addressLine1', 'addressLine2']);
    expect(fieldsOf(['SWIFT/BIC', 'Bank/Name', 'Apt Suite', 'Prénom', 'N° client', 'STRASSE', 'Straße'])).toEqual([
      'swiftBic',
      'bankName',
      'addressLine2',
      'firstName',
      'clientUserId',
      'addressLine1',
      'addressLine1',
    ]);
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
