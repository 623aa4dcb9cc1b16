import { describe, expect, test } from 'vitest';
import type { Readers } from '../../src/core/advice.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

// One row's problems in the words of where they are read: the terminal's are the ones results.csv has always had; the
// page's say what to choose or type there, with no mask beside a cell that shows the value; the inbox's what to change
// in the spreadsheet, or that the web page can do it.
const TODAY = new Date(2024, 5, 15);
const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const messages = (over: Record<string, unknown>, readers: Readers) => {
  const r: PayerRowResult = validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...over }), {
    defaultAgreementCompleted: true,
    today: TODAY,
    readers,
  });
  return r.ok ? [] : r.issues.map((issue) => `${issue.column}: ${issue.message}`);
};

const MASK = '(masked as personal data: digits shown as 9, letters as a)';

describe('a row’s advice, where it is read', () => {
  test.each<[string, Record<string, unknown>, Record<Readers, string>]>([
    [
      'a date written day first',
      { dateOfBirth: '14/07/1982' },
      {
        terminal: `dateOfBirth: must be YYYY-MM-DD, got "99/99/9999" ${MASK}: written day first, --date-format DD/MM/YYYY reads it`,
        page: 'dateOfBirth: must be YYYY-MM-DD: written day first: choose the date format above',
        inbox: `dateOfBirth: must be YYYY-MM-DD, got "99/99/9999" ${MASK}: written day first: write it as YYYY-MM-DD in the spreadsheet, or upload the file on the web page and choose its date format there`,
      },
    ],
    [
      'a date read either way',
      { dateOfBirth: '05.06.1980' },
      {
        terminal: `dateOfBirth: must be YYYY-MM-DD, got "99.99.9999" ${MASK}: written day or month first, --date-format DD.MM.YYYY or MM.DD.YYYY reads it`,
        page: 'dateOfBirth: must be YYYY-MM-DD: written day or month first: choose the date format above',
        inbox: `dateOfBirth: must be YYYY-MM-DD, got "99.99.9999" ${MASK}: written day or month first: write it as YYYY-MM-DD in the spreadsheet, or upload the file on the web page and choose its date format there`,
      },
    ],
    [
      'a phone whose + a spreadsheet took',
      { phone: '12175550100' },
      {
        terminal: `phone: has no leading + and country code, as when a spreadsheet turns +12175550100 into the number 12175550100: format the column as text and type it with the +, got "99999999999" ${MASK}`,
        page: 'phone: has no leading + and country code, as when a spreadsheet turns +12175550100 into the number 12175550100: type it again with + and its country code',
        inbox: `phone: has no leading + and country code, as when a spreadsheet turns +12175550100 into the number 12175550100: format the column as text and type it with the +, got "99999999999" ${MASK}`,
      },
    ],
    [
      'a signature’s day written day first',
      { agreementCompleted: '14/05/2024' },
      {
        terminal:
          'agreementCompleted: is a day written day first, --date-format DD/MM/YYYY reads it, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a)',
        page: 'agreementCompleted: is a day written day first: choose the date format above',
        inbox: `agreementCompleted: is a day written day first: write it as YYYY-MM-DD in the spreadsheet, or upload the file on the web page and choose its date format there, got "99/99/9999" ${MASK}`,
      },
    ],
  ])('%s', (_, over, words) => {
    for (const readers of ['terminal', 'page', 'inbox'] as const)
      expect(messages(over, readers)).toEqual([words[readers]]);
  });

  test('a value that is no personal data is shown on the page too: it is what the cell holds, and harmless', () => {
    expect(messages({ beneficiaryType: 'persn' }, 'page')).toEqual([
      'beneficiaryType: must be one of individual, business, got "persn"',
    ]);
  });

  test('the date format given, where it does not read a date', () => {
    const read = (readers: Readers) =>
      validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, dateOfBirth: '1982/14/07' }), {
        defaultAgreementCompleted: true,
        today: TODAY,
        dateFormat: 'DD/MM/YYYY',
        readers,
      });
    const issue = (readers: Readers) => {
      const r = read(readers);
      return r.ok ? undefined : r.issues[0]?.message;
    };
    expect(issue('terminal')).toBe(`must be YYYY-MM-DD or DD/MM/YYYY (--date-format), got "9999/99/99" ${MASK}`);
    expect(issue('page')).toBe('must be YYYY-MM-DD or DD/MM/YYYY (the date format chosen above)');
    expect(issue('inbox')).toBe(
      `must be YYYY-MM-DD or DD/MM/YYYY (the date format the file is read with), got "9999/99/99" ${MASK}`,
    );
  });
});
