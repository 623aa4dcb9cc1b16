import { describe, expect, test } from 'vitest';
import { REQUIRED_PAYER_FIELDS, TEMPLATE_COLUMNS } from '../../src/rows/fields.js';
import { mapHeader } from '../../src/rows/columns.js';

describe('mapHeader for a payer file', () => {
  test('the template header maps every column to itself, nothing missing or unknown', () => {
    const mapping = mapHeader(TEMPLATE_COLUMNS, 'payers');
    expect(mapping.fields).toEqual(TEMPLATE_COLUMNS);
    expect(mapping).toMatchObject({ unknown: [], duplicates: [], missing: [] });
  });

  test('maps each column by position, unknown ones to undefined', () => {
    const mapping = mapHeader(['Client User ID', 'E-Mail', 'Notes', 'bank_city', 'error', 'completed steps'], 'payers');
    expect(mapping.fields).toEqual(['clientUserId', 'email', undefined, 'bankCity', 'error', 'completedSteps']);
    expect(mapping.unknown).toEqual(['Notes']);
  });

  test('blank header names are not reported as unknown (a trailing delimiter)', () => {
    expect(mapHeader([...TEMPLATE_COLUMNS, ''], 'payers').unknown).toEqual([]);
  });

  test('reports missing required columns by field name, in spec order', () => {
    const header = TEMPLATE_COLUMNS.filter((c) => !['ssn', 'email', 'postcode'].includes(c));
    expect(mapHeader(header, 'payers').missing).toEqual(['email', 'postcode', 'ssn']);
  });

  test('optional and bank columns are never missing', () => {
    expect(mapHeader([...REQUIRED_PAYER_FIELDS], 'payers').missing).toEqual([]);
  });

  test('an empty header misses every required payer field', () => {
    expect(mapHeader([], 'payers').missing).toEqual([...REQUIRED_PAYER_FIELDS]);
  });

  test('two columns for one field are a duplicate, as written', () => {
    const mapping = mapHeader([...TEMPLATE_COLUMNS, 'First Name', 'first_name'], 'payers');
    expect(mapping.duplicates).toEqual([{ field: 'firstName', columns: ['firstName', 'First Name', 'first_name'] }]);
  });

  test('a repeated error column is harmless: it is ignored on input', () => {
    expect(mapHeader([...TEMPLATE_COLUMNS, 'error', 'Error'], 'payers').duplicates).toEqual([]);
  });
});

describe('mapHeader for a bank-details file', () => {
  const required = [
    'clientUserId',
    'bankName',
    'accountName',
    'currency',
    'beneficiaryType',
    'addressLine1',
    'city',
    'country',
    'dateOfBirth',
    'postalCode',
  ];

  test('nothing defaults, so every required payment-detail field needs a column', () => {
    expect(mapHeader(['Client User Id', 'IBAN'], 'bank-details').missing).toEqual([
      'bankName',
      'accountName',
      'beneficiaryType',
      'currency',
      'addressLine1',
      'city',
      'country',
      'dateOfBirth',
      'postalCode',
    ]);
  });

  test('a full header has nothing missing; payer-only columns are unknown', () => {
    const mapping = mapHeader([...required, 'iban', 'postcode', 'completedSteps', 'error'], 'bank-details');
    expect(mapping).toMatchObject({ missing: [], unknown: ['postcode'], duplicates: [] });
    expect(mapping.fields.slice(-2)).toEqual(['completedSteps', 'error']);
  });
});
