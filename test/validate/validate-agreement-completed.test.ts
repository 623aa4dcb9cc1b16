import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const payer = (value: unknown, signedElsewhere = false, dateFormat?: string) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, agreementCompleted: undefined, 'Agreement Completed': value }), {
    defaultAgreementCompleted: signedElsewhere,
    today: new Date(2024, 5, 15),
    dateFormat,
  });
const agreed = (value: unknown, signedElsewhere = false, dateFormat?: string) => {
  const result = payer(value, signedElsewhere, dateFormat);
  return result.ok ? result.agreementCompleted : result.issues;
};

describe('agreementCompleted cell: whether the team collected the payer signature', () => {
  test.each(['true', 'TRUE', 'Yes', 'y', 'Y', '1', 'x', 'X', ' yes ', true, 1])('%s means signed', (value) => {
    expect(agreed(value)).toBe(true);
  });

  test.each(['2024-06-15', '2019-01-31'])('the day it was collected (%s) means signed', (value) => {
    expect(agreed(value)).toBe(true);
  });

  test('a day in the file date format means signed; the same day written another way without it does not', () => {
    expect(agreed('14/06/2024', false, 'DD/MM/YYYY')).toBe(true);
    expect(agreed('14/06/2024')).toEqual([
      {
        column: 'Agreement Completed',
        message:
          'is a day written day first, --date-format DD/MM/YYYY reads it, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  test('a day after today, or no real day, is refused: it cannot be when a signature was collected', () => {
    expect(agreed('2024-06-16')).toEqual([
      {
        column: 'Agreement Completed',
        message:
          'is a day after today: the day the signature was collected cannot be yet, got "9999-99-99" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
    expect(agreed('2024-02-30')).not.toBe(true);
  });

  test.each(['false', 'False', 'NO', 'n', '0', false, 0])(
    '%s means not signed, even beside --agreement-signed-elsewhere',
    (value) => {
      expect(agreed(value, true)).toBe(false);
    },
  );

  test.each(['', '  ', undefined, null])(
    'blank (%j) is not signed, unless the operator said so for the file',
    (value) => {
      expect(agreed(value, false)).toBe(false);
      expect(agreed(value, true)).toBe(true);
    },
  );

  test('anything else is an issue under the column as written', () => {
    expect(agreed('maybe')).toEqual([
      {
        column: 'Agreement Completed',
        message:
          'must say whether the team collected the payer\'s signature: true/yes/y/1/x or the day (YYYY-MM-DD, or as --date-format says), or false/no/n/0, got "maybe"',
      },
    ]);
  });
});
