import { describe, expect, test } from 'vitest';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

// A spreadsheet's own column spellings, values as typed (with stray spaces).
const sheet: Record<string, string> = {
  'Client User ID': ' cu-17 ',
  'E-mail': 'Ann.Lee@Example.com',
  'First Name': 'Ann',
  'Last Name': 'Lee',
  'Beneficiary Type': 'INDIVIDUAL',
  'Date of Birth': '1990-07-04',
  'Address Line 1': '9 Elm St',
  City: 'Austin',
  State: 'TX',
  Postcode: '00501',
  Country: 'us',
  Nationality: 'US',
  Phone: '+1 (512) 555-0199',
  SSN: '001-01-0001',
  'Company Name': '',
  Notes: 'ignored here, carried by the caller',
};
const row = (over: Record<string, string> = {}) =>
  validatePayerRow(
    Object.entries({ ...sheet, ...over }).map(([column, value]) => ({ column, value })),
    {
      defaultAgreementCompleted: true,
      today: new Date(2024, 5, 15),
    },
  );

describe('a valid payer row', () => {
  test('gives the compliance body by spec names: trimmed, normalised where the rules say, otherwise as typed', () => {
    expect(row()).toEqual({
      ok: true,
      clientUserId: 'cu-17',
      compliance: {
        clientUserId: 'cu-17',
        email: 'Ann.Lee@Example.com',
        firstName: 'Ann',
        lastName: 'Lee',
        beneficiaryType: 'individual',
        dateOfBirth: '1990-07-04',
        addressLine1: '9 Elm St',
        city: 'Austin',
        state: 'TX',
        postcode: '00501',
        country: 'US',
        nationality: 'US',
        phone: '+15125550199',
        ssn: '001-01-0001',
      },
      paymentDetails: [],
      agreementCompleted: true,
      // No agreementCompleted cell: the run's --agreement-signed-elsewhere, and the row says whose word it is.
      agreementSignedElsewhere: true,
      completedSteps: [],
    });
  });

  test('optional fields are sent when given', () => {
    const result = row({
      'Company Name': 'Lee LLC',
      'Source of Funds': 'savings',
      'Business Activity': 'consulting',
      'Address Line 2': '#2',
    });
    expect(result.ok && result.compliance).toMatchObject({
      companyName: 'Lee LLC',
      sourceOfFunds: 'savings',
      businessActivity: 'consulting',
      addressLine2: '#2',
    });
  });
});

describe('an invalid payer row', () => {
  test('collects every issue, in column order, each under the column as written (a blank cell too)', () => {
    expect(
      row({
        'E-mail': 'ann at example',
        'Beneficiary Type': 'person',
        'Date of Birth': '04/07/1990',
        City: '   ',
        Country: 'United States',
        Phone: '512 555 0199',
        SSN: '',
        'Bank Name': 'Example Bank',
        Currency: 'dollars',
      }),
    ).toEqual({
      ok: false,
      clientUserId: 'cu-17',
      issues: [
        {
          column: 'E-mail',
          message:
            'must be a valid e-mail address, got "aaa aa aaaaaaa" (masked as personal data: digits shown as 9, letters as a)',
        },
        { column: 'Beneficiary Type', message: 'must be one of individual, business, got "person"' },
        {
          column: 'Date of Birth',
          message:
            'must be YYYY-MM-DD, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a): written day or month first, --date-format DD/MM/YYYY or MM/DD/YYYY reads it',
        },
        { column: 'City', message: 'is required' },
        { column: 'Country', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "United States"' },
        {
          column: 'Phone',
          message:
            'must be in E.164 format, e.g. +12175550100, got "999 999 9999" (masked as personal data: digits shown as 9, letters as a)',
        },
        { column: 'SSN', message: 'is required' },
        { column: 'Currency', message: 'must be an ISO 4217 currency code such as USD, got "dollars"' },
        { column: 'accountName', message: 'is required' },
      ],
    });
  });

  test('required columns absent altogether are named by field', () => {
    const result = validatePayerRow([{ column: 'Client User ID', value: 'x' }], { defaultAgreementCompleted: true });
    expect(result.ok ? [] : result.issues.map((i) => `${i.column}: ${i.message}`)).toEqual([
      'email: is required',
      'firstName: is required',
      'lastName: is required',
      'beneficiaryType: is required',
      'dateOfBirth: is required',
      'addressLine1: is required',
      'city: is required',
      'state: is required',
      'postcode: is required',
      'country: is required',
      'nationality: is required',
      'phone: is required',
      'ssn: is required',
    ]);
  });

  test('without a clientUserId the invalid row has none', () => {
    expect(row({ 'Client User ID': '' })).toEqual({
      ok: false,
      issues: [{ column: 'Client User ID', message: 'is required' }],
    });
  });

  test('long values are cut to about 40 characters in messages', () => {
    expect(row({ Country: 'x'.repeat(100) })).toMatchObject({
      issues: [
        {
          column: 'Country',
          message: `must be an ISO 3166-1 alpha-2 country code such as US, got "${'x'.repeat(40)}…"`,
        },
      ],
    });
  });
});
