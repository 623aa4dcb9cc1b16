import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const TODAY = new Date(2024, 5, 15); // 15 June 2024, local time
const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const payer = (over: Record<string, unknown>) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...over }), { defaultAgreementCompleted: true, today: TODAY });
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);

describe('dateOfBirth', () => {
  test('must be YYYY-MM-DD, named by the column as written', () => {
    const result = payer({ dateOfBirth: undefined, 'Date of Birth': '31/12/1980' });
    expect(issuesOf(result)).toEqual([
      {
        column: 'Date of Birth',
        message:
          'must be YYYY-MM-DD, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a): written day first, --date-format DD/MM/YYYY reads it',
      },
    ]);
  });

  // Which --date-format reads a date, as far as its numbers tell, so the report can say which one fixes a column.
  test.each([
    ['12/31/1980', '99/99/9999', 'written month first, --date-format MM/DD/YYYY reads it'],
    ['05.06.1980', '99.99.9999', 'written day or month first, --date-format DD.MM.YYYY or MM.DD.YYYY reads it'],
    ['1980/12/31', '9999/99/99', 'written year first, --date-format YYYY/MM/DD reads it'],
  ])('%s: says which --date-format reads it', (date, shape, reading) => {
    expect(issuesOf(payer({ dateOfBirth: date }))).toEqual([
      {
        column: 'dateOfBirth',
        message: `must be YYYY-MM-DD, got "${shape}" (masked as personal data: digits shown as 9, letters as a): ${reading}`,
      },
    ]);
  });

  test.each(['31/31/1980', '31/12/80', '1980-1-5x'])('%s: no --date-format reads it, none is named', (date) => {
    expect(issuesOf(payer({ dateOfBirth: date }))[0]?.message).not.toContain('--date-format');
  });

  test.each(['1981-02-29', '1980-13-01', '1980-04-31', '1980-00-10'])('%s is not a real calendar date', (date) => {
    expect(issuesOf(payer({ dateOfBirth: date }))).toEqual([
      {
        column: 'dateOfBirth',
        message:
          'is not a real calendar date, got "9999-99-99" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  test('29 February of a leap year is real', () => {
    const result = payer({ dateOfBirth: '1980-02-29' });
    expect(result.ok && result.compliance.dateOfBirth).toBe('1980-02-29');
  });

  test('today is fine, tomorrow is in the future', () => {
    expect(payer({ dateOfBirth: '2024-06-15' }).ok).toBe(true);
    expect(issuesOf(payer({ dateOfBirth: '2024-06-16' }))).toEqual([
      {
        column: 'dateOfBirth',
        message:
          'must not be in the future, got "9999-99-99" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  test('a bank override date is checked the same way, under its own column', () => {
    expect(issuesOf(payer({ bankDateOfBirth: '2030-01-01' }))).toEqual([
      {
        column: 'bankDateOfBirth',
        message:
          'must not be in the future, got "9999-99-99" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });
});
