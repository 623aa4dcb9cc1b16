import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { NumberCell } from '../../src/rows/findData.js';
import { tempDir } from '../helpers/tempDir.js';
import { day, writeWorkbook } from '../helpers/xlsxFixtures.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

async function readAll(path: string, sheet?: string) {
  const input = await openInput(path, { sheet });
  const records: RawRecord[] = [];
  for await (const r of input.records) records.push(r);
  return { input, records };
}

describe('xlsx input', () => {
  it('reads date cells as YYYY-MM-DD, text cells as typed, numbers as the digits shown; line = sheet row', async () => {
    const path = await writeWorkbook(tmp.path('p.xlsx'), [
      {
        name: 'Payers',
        textColumns: ['routingNumber'],
        rows: [
          ['clientUserId', 'dateOfBirth', 'routingNumber', 'phone', 'agreementCompleted'],
          ['u1', day('1980-12-31'), '021000021', 12175550100, true],
          [],
          ['u2', day('2000-02-29'), '011000015', '+44 20 7946 0958', false],
        ],
      },
    ]);
    const { input, records } = await readAll(path);
    expect(input.file).toMatchObject({ name: 'p.xlsx', format: 'xlsx', sheet: 'Payers' });
    expect(input.header).toEqual(['clientUserId', 'dateOfBirth', 'routingNumber', 'phone', 'agreementCompleted']);
    expect(records.map((r) => r.line)).toEqual([2, 4]); // the empty row 3 is skipped, row numbers kept
    expect(records[0]!.original).toEqual(['u1', '1980-12-31', '021000021', '12175550100', 'true']);
    expect(records[1]!.cells).toEqual([
      { column: 'clientUserId', value: 'u2' },
      { column: 'dateOfBirth', value: '2000-02-29' },
      { column: 'routingNumber', value: '011000015' },
      { column: 'phone', value: '+44 20 7946 0958' },
      { column: 'agreementCompleted', value: 'false' },
    ]);
  });

  it('never writes a number in scientific notation; zero-padded formats keep their zeros', async () => {
    const cells = {
      phone: 12175550100,
      big: 1.5e21,
      sum: 0.1 + 0.2,
      routing: 21000021,
      zip: 2101,
      serial: 29586,
      // A formula's result is a bare number even in a date-formatted cell: the format makes it a date.
      dateFormula: { formula: 'DATE(1980,12,31)', result: 29586 },
      formula: { formula: 'A1&B1', result: 'ab' },
      rich: { richText: [{ text: 'Mül' }, { text: 'ler' }] },
      broken: { error: '#N/A' },
    };
    const path = await writeWorkbook(tmp.path('p.xlsx'), [
      {
        name: 'S',
        rows: [Object.keys(cells), Object.values(cells)],
        formats: { routing: '000000000', zip: '00000', serial: 'mm/dd/yyyy', dateFormula: 'mm/dd/yyyy' },
      },
    ]);
    const { records } = await readAll(path);
    expect(records).toHaveLength(1);
    expect(Object.fromEntries(records[0]!.cells.map((c) => [c.column, String(c.value)]))).toEqual({
      phone: '12175550100',
      big: '1500000000000000000000',
      sum: '0.3',
      routing: '021000021',
      zip: '02101',
      serial: '1980-12-31',
      dateFormula: '1980-12-31',
      formula: 'ab',
      rich: 'Müller',
      broken: '#N/A',
    });
    // The error cell is the row's problem, not a value.
    expect(records[0]!.problem).toEqual({
      column: 'broken',
      message: 'holds the spreadsheet error #N/A: fix the formula or type the value',
    });
  });

  it('says of each number cell whether its format, not the number alone, shows every digit', async () => {
    const columns = ['padded', 'text', 'general', 'plain', 'thousands', 'decimals', 'narrow'];
    const path = await writeWorkbook(tmp.path('p.xlsx'), [
      {
        name: 'S',
        rows: [columns, columns.map(() => 123456789)],
        formats: {
          padded: '000000000000',
          text: '@',
          plain: '0',
          thousands: '#,##0',
          decimals: '0.00',
          narrow: '00000',
        },
      },
    ]);
    const { records } = await readAll(path);
    expect(records[0]!.cells.map((c) => [c.column, c.value])).toEqual([
      ['padded', new NumberCell('000123456789', 123456789, true)],
      // Made Text after it was typed: the zeros were lost when it was typed.
      ['text', new NumberCell('123456789', 123456789, false)],
      ['general', new NumberCell('123456789', 123456789, false)],
      ['plain', new NumberCell('123456789', 123456789, false)],
      ['thousands', new NumberCell('123456789', 123456789, false)],
      ['decimals', new NumberCell('123456789.00', 123456789, false)],
      // Five zeros pad nothing of nine digits: the number's own digits, as under General.
      ['narrow', new NumberCell('123456789', 123456789, false)],
    ]);
  });

  it('reads the first sheet in tab order, or --sheet by name (case and spaces aside), and lists the sheets', async () => {
    const path = await writeWorkbook(tmp.path('book.xlsx'), [
      { name: 'Payers', rows: [['clientUserId'], ['p1']] },
      {
        name: 'Bank details',
        rows: [
          ['clientUserId', 'iban'],
          ['p1', 'x'],
        ],
      },
    ]);
    const first = await readAll(path);
    expect(first.input.sheets).toEqual(['Payers', 'Bank details']);
    expect(first.records[0]!.original).toEqual(['p1']);
    const bank = await readAll(path, 'bank_details');
    expect(bank.input.file).toMatchObject({ name: 'book.xlsx[Bank details]', sheet: 'Bank details' });
    expect(bank.input.header).toEqual(['clientUserId', 'iban']);
  });

  it("makes a spreadsheet error or a value right of the header that row's problem", async () => {
    const path = await writeWorkbook(tmp.path('p.xlsx'), [
      {
        name: 'S',
        rows: [
          ['a', 'b'],
          ['1', { error: '#REF!' }],
          ['2', '3', 'stray'],
          ['4', '5'],
        ],
      },
    ]);
    const { records } = await readAll(path);
    expect(records.map((r) => r.problem)).toEqual([
      { column: 'b', message: 'holds the spreadsheet error #REF!: fix the formula or type the value' },
      {
        column: '(row)',
        message: 'has a value in column C, right of the last header: give that column a header or clear it',
      },
      undefined,
    ]);
  });

  it.each([
    [
      'no such sheet',
      async () => readAll(await writeWorkbook(tmp.path('p.xlsx'), [{ name: 'A', rows: [['x'], ['1']] }]), 'Payers'),
      'p.xlsx: has no sheet named "Payers" (its sheets: "A"): give one of these to --sheet',
    ],
    [
      'an empty sheet',
      async () => readAll(await writeWorkbook(tmp.path('p.xlsx'), [{ name: 'A', rows: [] }])),
      'p.xlsx: sheet "A" is empty: expected a header row and at least one row',
    ],
    [
      'not a workbook',
      async () => readAll(tmp.write('p.xlsx', 'not a workbook\n')),
      'p.xlsx: is not a readable .xlsx workbook (a password-protected or damaged file, or another format renamed .xlsx): save it again from Excel as .xlsx',
    ],
    [
      'a missing file',
      async () => readAll(tmp.path('nope.xlsx')),
      'nope.xlsx: no such file (looked for TMP/nope.xlsx): check its name and folder',
    ],
  ])('rejects %s with an InputError', async (_, read, message) => {
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message.replace(tmp.dir, 'TMP')).toBe(message);
  });
});
