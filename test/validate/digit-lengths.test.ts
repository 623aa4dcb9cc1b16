import { describe, expect, test } from 'vitest';
import { keepsEveryDigit, lengthLost } from '../../src/validate/digitLengths.js';

// The one rule both a spreadsheet's number cell and a JSON number go by: a number holds no leading zero, and one whose
// digits are the only length its field can have for the row lost none.

describe('keepsEveryDigit', () => {
  test.each([
    ['routingNumber', '', '121000358'],
    ['routingNumber', 'GB', '121000358'],
    ['sortCode', '', '400515'],
    ['bsbNumber', 'AU', '123456'],
  ])('%s of its one length, whatever the country (%s): taken', (field, country, text) => {
    expect(keepsEveryDigit(field, country, text)).toBe(true);
    expect(keepsEveryDigit(field, country, text.slice(1))).toBe(false);
    expect(keepsEveryDigit(field, country, `${text}1`)).toBe(false);
  });

  test.each([
    [5, ['US', 'PR', 'VI', 'GU', 'AS', 'MP', 'DE', 'FR', 'IT', 'ES', 'FI', 'MX', 'MY']],
    [4, ['AU', 'NZ', 'NO', 'ZA', 'BE', 'CH', 'AT']],
    [6, ['CN', 'SG', 'IN']],
    [7, ['JP']],
  ])('a postal code of %i digits, in a country whose codes all have that many: taken', (digits, countries) => {
    const text = '1234567'.slice(0, digits);
    for (const country of countries) {
      for (const field of ['postcode', 'postalCode']) {
        expect([country, field, keepsEveryDigit(field, country, text)]).toEqual([country, field, true]);
        expect(keepsEveryDigit(field, country, text.slice(1))).toBe(false);
        expect(keepsEveryDigit(field, country, `${text}0`)).toBe(false);
      }
    }
  });

  test('a postal code goes by the row: 5 digits are a US ZIP, not a code of GB, CA, BR or NL, nor of no country', () => {
    expect(keepsEveryDigit('postcode', 'US', '62701')).toBe(true);
    for (const country of ['GB', 'CA', 'BR', 'NL', 'XX', ''])
      expect([country, keepsEveryDigit('postcode', country, '62701')]).toEqual([country, false]);
  });

  test('the refusals kept: a 4-digit US ZIP, a 9-digit postcode, an account number, an SSN, a phone, and the rest', () => {
    expect(keepsEveryDigit('postcode', 'US', '2139')).toBe(false);
    expect(keepsEveryDigit('postcode', 'US', '627011234')).toBe(false);
    expect(keepsEveryDigit('postalCode', 'US', '627011234')).toBe(false);
    expect(keepsEveryDigit('ssn', 'US', '123456789')).toBe(false);
    expect(keepsEveryDigit('phone', 'US', '12175550100')).toBe(false);
    for (const field of [
      'accountNumber',
      'iban',
      'documentNumber',
      'ifsc',
      'ncc',
      'branchCode',
      'bankCode',
      'ribNumber',
    ])
      for (let digits = 1; digits <= 15; digits++)
        expect([field, digits, keepsEveryDigit(field, 'US', '1'.repeat(digits))]).toEqual([field, digits, false]);
  });

  test.each(['-62701', '+62701', '62701.0', '62701.5', '6.2701e4', '6.2701E+4', '62701 ', ' 62701', '62 701', ''])(
    'a number written %j (a sign, a fraction, an exponent, not only digits) is never taken',
    (text) => {
      expect(keepsEveryDigit('postcode', 'US', text)).toBe(false);
    },
  );
});

describe('lengthLost: where fewer digits certainly lost leading zeros', () => {
  test('the fields of one length, and a US ZIP+4 past 5 digits', () => {
    expect(lengthLost('routingNumber', '', 8)).toEqual({ digits: 9, what: 'a routing number' });
    expect(lengthLost('ssn', 'US', 8)).toEqual({ digits: 9, what: 'an SSN' });
    expect(lengthLost('postcode', 'US', 4)).toEqual({ digits: 5, what: 'a postal code in US' });
    expect(lengthLost('postcode', 'US', 8)).toEqual({ digits: 9, what: 'a ZIP+4 code' });
    expect(lengthLost('postalCode', 'CN', 5)).toEqual({ digits: 6, what: 'a postal code in CN' });
    expect(lengthLost('accountNumber', 'US', 8)).toBeUndefined();
  });

  test('not where no code starts with 0: a short Indian PIN was mistyped, not stripped', () => {
    for (const country of ['IN', 'BE', 'CH', 'AT', 'GB', ''])
      expect(lengthLost('postcode', country, 3)).toBeUndefined();
  });
});
