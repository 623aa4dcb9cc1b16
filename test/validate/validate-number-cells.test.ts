import { describe, expect, test } from 'vitest';
import { NumberCell } from '../../src/rows/findData.js';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';
import { SHAPE_NOTE } from '../../src/validate/textChecks.js';

// Number cells of a workbook in the columns that hold identifiers: where the spreadsheet certainly lost digits the
// row is invalid, naming the column, the value as shown (unless it is never echoed) and the fix; where it may have,
// because the cell's format does not show every digit, the row is invalid too, unless its digits are the only length
// its field can have for the row (then it lost none).

/** A number cell under General (or `0`, `#,##0`): its digits as the number has them. */
const number = (shown: string) => new NumberCell(shown, Number(shown));
/** A number cell whose format shows every digit (`000000000000`): its digits as the format shows them. */
const formatted = (shown: string) => new NumberCell(shown, Number(shown), true);
const payer = (over: Record<string, unknown>) =>
  validatePayerRow(
    Object.entries({ ...TEMPLATE_EXAMPLE, ...over }).map(([column, value]) => ({ column, value })),
    { defaultAgreementCompleted: true, today: new Date(2024, 5, 15) },
  );
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);
const FIX = 'format the column as Text and type the value again';

describe('number cells in identifier columns', () => {
  test.each([
    [
      'routingNumber',
      '21000021',
      `is a number cell of 8 digits, and a routing number has 9: the spreadsheet dropped a leading zero: ${FIX}`,
    ],
    [
      'ssn',
      '12345678',
      `is a number cell of 8 digits, and an SSN has 9: the spreadsheet dropped a leading zero: ${FIX}`,
    ],
    [
      'accountNumber',
      '1234567890123460',
      `is a number cell of 16 digits, and a spreadsheet keeps only 15: the digits after the 15th became 0: ${FIX}`,
    ],
  ])('%s %s: named, the value never echoed', (column, shown, message) => {
    const issues = issuesOf(payer({ [column]: number(shown) }));
    expect(issues).toEqual([{ column, message }]);
    expect(JSON.stringify(issues)).not.toContain(shown);
  });

  test.each([
    [
      'US',
      '2139',
      'is a number cell of 4 digits, and a postal code in US has 5: the spreadsheet dropped a leading zero',
    ],
    ['US', '21391234', 'is a number cell of 8 digits, and a ZIP+4 code has 9: the spreadsheet dropped a leading zero'],
    [
      'DE',
      '1067',
      'is a number cell of 4 digits, and a postal code in DE has 5: the spreadsheet dropped a leading zero',
    ],
    [
      'JP',
      '10000',
      'is a number cell of 5 digits, and a postal code in JP has 7: the spreadsheet dropped 2 leading zeros',
    ],
  ])('postcode in %s shown as %s: named with the value as shown', (country, shown, message) => {
    // Six digits or more are shown by their shape, as any value that could be someone's number.
    const got = shown.length >= 6 ? `"${'9'.repeat(shown.length)}" ${SHAPE_NOTE}` : `"${shown}"`;
    expect(issuesOf(payer({ country, nationality: country, postcode: number(shown) }))).toContainEqual({
      column: 'postcode',
      message: `${message}: ${FIX}, got ${got}`,
    });
  });

  test('a General number cell that may be whole is refused all the same: its zeros may have gone', () => {
    const issues = issuesOf(
      payer({ country: 'GB', nationality: 'GB', postcode: number('62701'), accountNumber: number('123456789') }),
    );
    expect(issues).toEqual([
      {
        column: 'postcode',
        message: `is a number cell of 5 digits, which may have lost leading zeros: ${FIX}, got "62701"`,
      },
      { column: 'accountNumber', message: `is a number cell of 9 digits, which may have lost leading zeros: ${FIX}` },
    ]);
    expect(JSON.stringify(issues)).not.toContain('123456789');
  });

  // Not the only length of its field (a routing number's 9, a sort code's 6, a US ZIP's 5): those are read as shown.
  test.each([
    ['accountNumber', '123456789'],
    ['routingNumber', '1210003580'],
    ['sortCode', '4005151'],
    ['bsbNumber', '1234567'],
    ['ifsc', '1234567'],
    ['ncc', '123456'],
    ['branchCode', '12345'],
    ['bankCode', '12345'],
    ['ribNumber', '12345678'],
    ['iban', '123456789'],
    ['documentNumber', '123456789'],
    ['ssn', '123456789'],
    ['postcode', '627011234'],
    ['bankPostalCode', '627011234'],
  ])('%s as a General number cell is refused, naming the column', (column, shown) => {
    expect(issuesOf(payer({ [column]: number(shown) }))).toContainEqual({
      column,
      message: expect.stringMatching(
        new RegExp(`^is a number cell of ${shown.length} digits, which may have lost leading zeros: ${FIX}`),
      ),
    });
  });

  test('a number cell whose format shows every digit is taken as shown: the padded digits', () => {
    const row = payer({ postcode: formatted('02101'), accountNumber: formatted('000123456789') });
    expect(issuesOf(row)).toEqual([]);
    expect(row.ok && [row.compliance.postcode, row.paymentDetails[0]?.accountNumber]).toEqual([
      '02101',
      '000123456789',
    ]);
  });

  test('a format that shows every digit does not hide the damage certain from the count: too short is too short', () => {
    // A column formatted as Text after 021000021 was typed as a number: the cell still holds 21000021.
    expect(issuesOf(payer({ routingNumber: formatted('21000021') }))).toEqual([
      {
        column: 'routingNumber',
        message: `is a number cell of 8 digits, and a routing number has 9: the spreadsheet dropped a leading zero: ${FIX}`,
      },
    ]);
  });

  test('a clientUserId number cell is read as the digits it shows: an id of ours, not a bank or identity number', () => {
    const row = payer({ clientUserId: number('1001') });
    expect(issuesOf(row)).toEqual([]);
    expect(row.ok && row.clientUserId).toBe('1001');
  });

  test('a postal code of a country with codes of several lengths is not called short, only untrusted', () => {
    expect(issuesOf(payer({ country: 'GB', nationality: 'GB', postcode: number('2139') }))).toContainEqual({
      column: 'postcode',
      message: `is a number cell of 4 digits, which may have lost leading zeros: ${FIX}, got "2139"`,
    });
  });

  test('a phone number cell lost its + (and any leading 0) whatever its length', () => {
    expect(issuesOf(payer({ phone: number('12175550100') }))).toEqual([
      {
        column: 'phone',
        message:
          'is a number cell, which cannot keep a leading + or 0: format the column as Text and type the number with + and its country code, got "99999999999" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  test('the same digits typed as text (a CSV saved from a sheet) are said to look like it, and never called certain', () => {
    expect(issuesOf(payer({ postcode: '2139' }))).toEqual([
      {
        column: 'postcode',
        message:
          'has 4 digits, and a postal code in US has 5: looks like a leading zero was lost: format the column as text and type the value again, got "2139"',
      },
    ]);
    expect(issuesOf(payer({ postcode: '02139' }))).toEqual([]);
    expect(issuesOf(payer({ country: 'GB', nationality: 'GB', postcode: 'SW1A 1AA' }))).not.toContainEqual(
      expect.objectContaining({ column: 'postcode' }),
    );
  });
});

describe('number cells of the only length their field can have for the row', () => {
  const GB_ACCOUNT = { currency: 'GBP', routingNumber: '', accountNumber: '12345678' };
  const AU_ACCOUNT = { currency: 'AUD', routingNumber: '' };

  test.each([
    ['a routing number of 9 digits', { routingNumber: number('121000358') }, 'routingNumber', '121000358'],
    ['a US ZIP of 5 digits', { postcode: number('62701') }, 'postcode', '62701'],
    ['a sort code of 6 digits', { ...GB_ACCOUNT, sortCode: number('400515') }, 'sortCode', '400515'],
    ['a BSB number of 6 digits', { ...AU_ACCOUNT, bsbNumber: number('123456') }, 'bsbNumber', '123456'],
    [
      'an Indian PIN of 6 digits',
      { country: 'IN', nationality: 'IN', postcode: number('110001') },
      'postcode',
      '110001',
    ],
    ['a German postcode of 5', { country: 'DE', nationality: 'DE', postcode: number('10115') }, 'postcode', '10115'],
    ['a bank postal code of the US payer', { bankPostalCode: number('10001') }, 'postalCode', '10001'],
  ])('%s lost no leading zero: read as shown, with no issue or warning', (_, over, field, shown) => {
    const row = payer(over);
    expect(issuesOf(row)).toEqual([]);
    if (!row.ok) return;
    expect(row.warnings).toBeUndefined();
    const sent: Record<string, unknown> = { ...row.compliance, ...row.paymentDetails[0] };
    expect(sent[field]).toBe(shown);
  });

  test("a bank postal code goes by the bank's country where the row gives one, else by the payer's", () => {
    expect(issuesOf(payer({ bankCountry: 'DE', bankPostalCode: number('10115') }))).toEqual([]);
    expect(issuesOf(payer({ bankCountry: 'GB', bankPostalCode: number('10115') }))).toContainEqual({
      column: 'bankPostalCode',
      message: `is a number cell of 5 digits, which may have lost leading zeros: ${FIX}, got "10115"`,
    });
  });

  test('a postcode of 5 digits is read for a US row, refused for a row of a country whose codes vary, or of none', () => {
    expect(issuesOf(payer({ postcode: number('62701') }))).toEqual([]);
    for (const country of ['GB', 'CA', 'BR', 'XX'])
      expect(issuesOf(payer({ country, nationality: 'US', postcode: number('62701') }))).toContainEqual({
        column: 'postcode',
        message: `is a number cell of 5 digits, which may have lost leading zeros: ${FIX}, got "62701"`,
      });
  });

  test('a number with a sign or a fraction is never read as an identifier, nor one its format shows with decimals', () => {
    for (const shown of ['-62701', '62701.5', '62701.00'])
      expect(issuesOf(payer({ postcode: number(shown) }))).toContainEqual({
        column: 'postcode',
        message: expect.stringMatching(/^is a number cell of \d+ digits, which may have lost leading zeros: /),
      });
  });
});

describe('a row whose columns slipped', () => {
  test('a personal value under a code column is named by its shape, never echoed', () => {
    const issues = issuesOf(
      payer({ currency: 'DE89370400440532013000', accountType: 'ada@example.com', nationality: 'GB82WEST1234' }),
    );
    const text = JSON.stringify(issues);
    for (const value of ['DE89370400440532013000', 'ada@example.com', 'GB82WEST1234'])
      expect(text).not.toContain(value);
    expect(issues).toContainEqual({
      column: 'accountType',
      message: `must be one of checking, savings, got "aaa@aaaaaaa.aaa" ${SHAPE_NOTE}`,
    });
  });

  test('a short code is still shown as written', () => {
    expect(issuesOf(payer({ currency: 'EURO' }))).toContainEqual({
      column: 'currency',
      message: expect.stringContaining('got "EURO"'),
    });
  });
});
