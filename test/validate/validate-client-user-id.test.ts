import { describe, expect, test } from 'vitest';
import { paths, RouteError } from '../../src/core/schemas.js';
import { validateBankRow } from '../../src/validate/validateBankRow.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

// A clientUserId is one segment of the API's paths and a name a person reads in every file: `.` and `..` would be
// dropped from the URL, invisible characters make it look like another id.

const payer: Record<string, string> = {
  'Client User ID': 'cu-17',
  Email: 'ann@example.com',
  'First Name': 'Ann',
  'Last Name': 'Lee',
  'Beneficiary Type': 'individual',
  'Date of Birth': '1990-07-04',
  'Address Line 1': '9 Elm St',
  City: 'Austin',
  State: 'TX',
  Postcode: '00501',
  Country: 'US',
  Nationality: 'US',
  Phone: '+15125550199',
  SSN: '001-01-0001',
};
const bank: Record<string, string> = {
  clientUserId: 'cu-17',
  bankName: 'Lloyds',
  accountName: 'Jane Doe',
  beneficiaryType: 'individual',
  currency: 'GBP',
  addressLine1: '1 High St',
  city: 'London',
  country: 'GB',
  dateOfBirth: '1985-04-12',
  postalCode: 'EC1A 1BB',
  accountNumber: '31926819',
  sortCode: '30-94-57',
};
const cells = (row: Record<string, string>) => Object.entries(row).map(([column, value]) => ({ column, value }));
const payerIssues = (id: string) => {
  const result = validatePayerRow(cells({ ...payer, 'Client User ID': id }), {
    defaultAgreementCompleted: true,
    today: new Date(2024, 5, 15),
  });
  return result.ok ? [] : result.issues;
};
const bankIssues = (id: string) => {
  const result = validateBankRow(cells({ ...bank, clientUserId: id }), { today: new Date(2024, 5, 15) });
  return result.ok ? [] : result.issues;
};

const cases: Array<[string, string, string]> = [
  ['.', 'must not be "." or "..": a URL drops such a path segment, and the call goes elsewhere, got "."', '.'],
  ['..', 'must not be "." or "..": a URL drops such a path segment, and the call goes elsewhere, got ".."', '..'],
  ['a\u0000b', 'contains a control character (U+0000), got "a\\u0000b"', 'NUL'],
  ['a\u007fb', 'contains a control character (U+007F), got "a\\u{007F}b"', 'DEL'],
  ['a\u0085b', 'contains a control character (U+0085), got "a\\u{0085}b"', 'C1 NEL'],
  [
    'abc\u202Egpj.exe',
    'contains an invisible bidirectional text control (U+202E) that reorders what is shown, got "abc\\u{202E}gpj.exe"',
    'right-to-left override',
  ],
  [
    'a\u2066b',
    'contains an invisible bidirectional text control (U+2066) that reorders what is shown, got "a\\u{2066}b"',
    'isolate',
  ],
  ['a\u200Bb', 'contains an invisible format character (U+200B), got "a\\u{200B}b"', 'zero-width space'],
  ['a\u2060b', 'contains an invisible format character (U+2060), got "a\\u{2060}b"', 'word joiner'],
  ['a\uFEFFb', 'contains an invisible format character (U+FEFF), got "a\\u{FEFF}b"', 'BOM inside'],
];

describe('clientUserId: one path segment a person can read', () => {
  test.each(cases)('%j is refused with a message naming the column, the character described (%s)', (id, message) => {
    expect(payerIssues(id)).toEqual([{ column: 'Client User ID', message }]);
    expect(bankIssues(id)).toEqual([{ column: 'clientUserId', message }]);
  });

  test('no message holds an invisible character raw', () => {
    for (const [id] of cases) {
      for (const issue of [...payerIssues(id), ...bankIssues(id)]) expect(issue.message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    }
  });

  test('ids with dots, slashes, spaces and letters of any script stay valid (they are encoded in the path)', () => {
    for (const id of ['a.b', '...', '.hidden', 'acme/ü 1', '%2e%2e', 'über-1', '李-7', 'a?b#c']) {
      expect(payerIssues(id)).toEqual([]);
      expect(bankIssues(id)).toEqual([]);
    }
  });
});

describe('paths: no URL but the route its own', () => {
  test.each(['.', '..', '', 'a\u0000b', 'x\u202Ey'])('%j throws a RouteError on every payer route', (id) => {
    for (const build of [paths.payer, paths.paymentDetails, paths.agreement]) {
      expect(() => build(id)).toThrow(RouteError);
    }
  });

  test('an id that encodes to anything like a dot segment is still one segment', () => {
    expect(paths.payer('%2e%2e')).toBe('v2/payer/%252e%252e');
    expect(paths.paymentDetails('a/b')).toBe('v2/payer/a%2Fb/payment-details');
    expect(paths.agreement('...')).toBe('v2/payer/...');
  });
});
