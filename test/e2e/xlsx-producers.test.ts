import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { harness } from '../helpers/runHarness.js';
import { PAYER_COLUMNS, payerCells } from '../helpers/xlsxFixtures.js';
import {
  type BookSpec,
  hasLibreOffice,
  hasOpenpyxl,
  resaveWithLibreOffice,
  serialOf,
  type TypedCell,
  writeWithExceljs,
  writeWithOpenpyxl,
  writeWithSheetJs,
} from '../helpers/xlsxProducers.js';

// CI installs python3-openpyxl and LibreOffice; elsewhere their producers are skipped, and said so.
const REQUIRE = process.env.PAYER_ONBOARD_REQUIRE_PRODUCERS === '1';
const openpyxl = hasOpenpyxl();
const libreOffice = hasLibreOffice();
if (!REQUIRE && !openpyxl) console.warn('SKIPPING the openpyxl workbooks: python3-openpyxl is not installed');
if (!REQUIRE && !libreOffice)
  console.warn('SKIPPING the LibreOffice workbooks: libreoffice-calc-nogui is not installed');

/** A payer's cells as typed: text cells for the identifiers (as a team that knows the trap does), a date cell. */
function payer(id: string, over: Record<string, TypedCell> = {}): TypedCell[] {
  const cells = payerCells(id);
  return PAYER_COLUMNS.map((column) => {
    if (column in over) return over[column]!;
    const value = cells[column];
    if (value instanceof Date) return { date: value.toISOString().slice(0, 10) };
    return (value ?? null) as TypedCell;
  });
}

/** The workbook as teams make them: an instructions sheet first; a title, a blank row, the header; a totals row. */
function book(date1904 = false): BookSpec {
  return {
    date1904,
    sheets: [
      { name: 'Read me', rows: [['Fill in one row per payer.'], ['Identifiers as Text, please.']] },
      {
        name: 'Payers',
        rows: [
          ['Payer onboarding, March 2026'],
          [],
          PAYER_COLUMNS,
          payer('p-1', { firstName: { rich: [{ text: "O'" }, { text: 'Brien', bold: true }] } }),
          payer('p-2', { postcode: 2139, routingNumber: 21000021 }),
          ['   '],
          payer('p-3', {
            accountNumber: 1234567890123456,
            dateOfBirth: { formula: 'DATE(1985,12,10)', result: serialOf('1985-12-10', date1904), isDate: true },
          }),
          ['Total', 3],
        ],
      },
    ],
  };
}

type Producer = { name: string; skip: boolean; write(path: string, spec: BookSpec): Promise<string> | string };
const PRODUCERS: Producer[] = [
  { name: 'exceljs', skip: false, write: writeWithExceljs },
  { name: 'SheetJS', skip: false, write: writeWithSheetJs },
  { name: 'openpyxl', skip: !openpyxl && !REQUIRE, write: writeWithOpenpyxl },
  {
    name: 'LibreOffice',
    skip: !libreOffice && !REQUIRE,
    write: async (path, spec) =>
      resaveWithLibreOffice(await writeWithExceljs(path.replace(/\.xlsx$/, '-src.xlsx'), spec), path),
  },
];

/** What every producer's workbook must read as, cell by cell, byte for byte. */
function expectedRows(producer: string): { line: number; original: string[]; problem?: string }[] {
  const text = (id: string, over: Record<string, string> = {}) =>
    PAYER_COLUMNS.map((column) => {
      if (column in over) return over[column]!;
      const value = payerCells(id)[column];
      return value instanceof Date ? value.toISOString().slice(0, 10) : String(value ?? '');
    });
  return [
    { line: 4, original: text('p-1', { firstName: "O'Brien" }) },
    { line: 5, original: text('p-2', { postcode: '2139', routingNumber: '21000021' }) },
    {
      line: 7,
      // openpyxl stores a formula without its result: nothing to read but the formula, and the row says so.
      original: text('p-3', {
        accountNumber: '1234567890123460',
        ...(producer === 'openpyxl' ? { dateOfBirth: '' } : {}),
      }),
      ...(producer === 'openpyxl'
        ? {
            problem:
              'dateOfBirth: holds a formula whose result was never saved (the program that wrote the file does not calculate): open the file in Excel or LibreOffice and save it, or type the value',
          }
        : {}),
    },
    {
      line: 8,
      original: ['Total', '3', ...PAYER_COLUMNS.slice(2).map(() => '')],
      problem:
        '(row): is not a payer row: only "clientUserId" and "email" are filled (a total or a note?): delete the row, or move it off the sheet',
    },
  ];
}

let h: Awaited<ReturnType<typeof harness>>;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

async function readAll(path: string) {
  const input = await openInput(path);
  const records: RawRecord[] = [];
  for await (const record of input.records) records.push(record);
  return { input, records };
}

describe.each(PRODUCERS)('a workbook written by $name', (producer) => {
  it.skipIf(producer.skip).each([false, true])(
    'reads the same cells, byte for byte (1904 dates: %s)',
    async (date1904) => {
      const path = await producer.write(h.tmp.path(`${producer.name}-${date1904}.xlsx`), book(date1904));
      const { input, records } = await readAll(path);
      expect(input.file).toMatchObject({ sheet: 'Payers', name: `${producer.name}-${date1904}.xlsx[Payers]` });
      expect(input.sheets).toEqual(['Read me', 'Payers']);
      expect(input.header).toEqual(PAYER_COLUMNS);
      const read = records.map((r) => ({
        line: r.line,
        original: PAYER_COLUMNS.map((_, i) => (r.original as string[])[i] ?? ''),
        ...(r.problem ? { problem: `${r.problem.column}: ${r.problem.message}` } : {}),
      }));
      expect(read).toEqual(expectedRows(producer.name));
      expect(input.warnings).toEqual([
        `${input.file.name}: the header is on line 3; the row above it (a title or notes) is not read`,
        `${input.file.name}: line 6 is blank and was skipped`,
      ]);
    },
  );

  it.skipIf(producer.skip)('validates to the same results.csv 20 times over', async () => {
    const path = await producer.write(h.tmp.path(`${producer.name}-20.xlsx`), book());
    const outputs = new Set<string>();
    let results: Awaited<ReturnType<typeof h.run>>['results'] = [];
    for (let i = 0; i < 20; i++) {
      const run = await h.run({ inputs: [path], command: 'validate' }, {});
      outputs.add(readFileSync(run.summary.outputs.results, 'utf8'));
      results = run.results;
    }
    expect(outputs.size).toBe(1);
    expect(results.map((r) => [r.line, r.clientUserId, r.outcome])).toEqual([
      ['4', 'p-1', 'ok'],
      ['5', 'p-2', 'invalid'],
      // A row the reader refuses (a formula with no result) is named by its line alone.
      ['7', producer.name === 'openpyxl' ? '' : 'p-3', 'invalid'],
      ['8', '', 'invalid'],
    ]);
    expect(results[1]!.error).toBe(
      'postcode: is a number cell of 4 digits, and a postal code in US has 5: the spreadsheet dropped a leading zero: format the column as Text and type the value again, got "2139" | routingNumber: is a number cell of 8 digits, and a routing number has 9: the spreadsheet dropped a leading zero: format the column as Text and type the value again',
    );
    if (producer.name !== 'openpyxl')
      expect(results[2]!.error).toBe(
        'accountNumber: is a number cell of 16 digits, and a spreadsheet keeps only 15: the digits after the 15th became 0: format the column as Text and type the value again',
      );
    expect(results.map((r) => r.error).join('\n')).not.toMatch(/1234567890123|21000021/);
  });
});
