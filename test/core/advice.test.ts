import { describe, expect, test } from 'vitest';
import { advice, type Hint, type Readers } from '../../src/core/advice.js';

// Each hint in the words of each place: a terminal's name the flags that settle it (as every message always did);
// the page's and the inbox's never do.
const CASES: Array<[string, Hint, Record<Readers, string>]> = [
  [
    'a column that could be two fields',
    { kind: 'map', columns: [{ column: 'Nom', fields: ['firstName', 'lastName'] }] },
    {
      terminal: 'add --map "Nom=firstName" (or "Nom=lastName")',
      page: 'choose the field for this column',
      inbox:
        'rename "Nom" in the spreadsheet to firstName or lastName, whichever it holds, or upload the file on the web page and choose its field there',
    },
  ],
  [
    'columns that likely hold missing fields',
    {
      kind: 'map',
      columns: [
        { column: 'Typ', fields: ['beneficiaryType'] },
        { column: 'Birth', fields: ['dateOfBirth'] },
      ],
    },
    {
      terminal: 'add --map "Typ=beneficiaryType,Birth=dateOfBirth"',
      page: 'choose the field for these columns',
      inbox:
        'rename "Typ" to beneficiaryType and "Birth" to dateOfBirth in the spreadsheet, or upload the file on the web page and choose their fields there',
    },
  ],
  [
    'a column passed over for another of its field',
    { kind: 'map-instead', column: 'Mobile', field: 'phone', by: 'Phone' },
    {
      terminal: '--map "Mobile=phone" reads it instead',
      page: 'choose the field for this column to read it instead',
      inbox: 'remove or rename "Phone" in the spreadsheet to read it instead',
    },
  ],
  [
    'a column not understood',
    { kind: 'map-unknown' },
    {
      terminal: 'if it holds a field, --map names it',
      page: 'if it holds a field, choose the field for this column',
      inbox: "if it holds a field, rename it in the spreadsheet to the field's name, or map it on the web page",
    },
  ],
  [
    "a workbook's number cell that lost zeros",
    { kind: 'retype', value: 'digits', cell: true },
    {
      terminal: 'format the column as Text and type the value again',
      page: 'type it again as the whole number',
      inbox: 'format the column as Text and type the value again',
    },
  ],
  [
    'a date in a JSON line',
    { kind: 'date-order', written: 'day first', formats: ['DD/MM/YYYY'], json: true },
    {
      terminal: 'written day first, --date-format DD/MM/YYYY reads it',
      page: 'written day first: write it as YYYY-MM-DD',
      inbox: 'written day first: write it as YYYY-MM-DD',
    },
  ],
];

describe('advice', () => {
  test.each(CASES)('%s', (_, hint, words) => {
    for (const readers of ['terminal', 'page', 'inbox'] as const) expect(advice(hint, readers)).toBe(words[readers]);
  });

  test('no flag is named but at a terminal', () => {
    const hints: Hint[] = [
      ...CASES.map(([, hint]) => hint),
      { kind: 'date-order', written: 'month first', formats: ['MM/DD/YYYY'] },
      { kind: 'date-format-given' },
      { kind: 'other-dates' },
      { kind: 'map-some' },
      { kind: 'retype', value: 'phone' },
      { kind: 'retype', value: 'date' },
    ];
    for (const hint of hints) {
      expect(advice(hint, 'page')).not.toMatch(/--/);
      expect(advice(hint, 'inbox')).not.toMatch(/--/);
    }
  });
});
