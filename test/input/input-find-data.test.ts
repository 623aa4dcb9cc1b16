import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { chooseHeader, isHeaderRow, notAPayerRow } from '../../src/rows/findData.js';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';
import { writeWorkbook } from '../helpers/xlsxFixtures.js';

const COLUMNS = PAYER_HEADER.split(',');
const delimiters = (n: number, d = ',') => d.repeat(n - 1);

/** A payer file as a team exports it: a title and a note above the header, rows of only delimiters, a totals row. */
const MESSY_CSV = [
  'Payer onboarding - March 2026',
  'Prepared by Finance; identifiers typed as text',
  '',
  PAYER_HEADER,
  payerRow('m-1'),
  delimiters(COLUMNS.length),
  ` ${delimiters(COLUMNS.length, ' ,')}`,
  payerRow('m-2', { email: 'not-an-email' }),
  `Total,2${delimiters(COLUMNS.length - 1)}`,
  '',
].join('\r\n');

describe('finding the data', () => {
  it('a header is the first row naming fields; a title, a note or a lone matching word is not one', () => {
    expect(isHeaderRow(['Payer onboarding', '', ''])).toBe(false);
    expect(isHeaderRow(['Email', 'us at finance@example.com for help'])).toBe(false);
    expect(isHeaderRow(['Client user id', 'E-mail', 'Notes'])).toBe(true);
    expect(isHeaderRow(['clientUserId'])).toBe(true);
    expect(isHeaderRow(['Kunde', 'Post'], new Map([['kunde', 'clientUserId']]))).toBe(false);
    expect(
      isHeaderRow(
        ['Kunde', 'Mail'],
        new Map([
          ['kunde', 'clientUserId'],
          ['mail', 'email'],
        ]),
      ),
    ).toBe(true);
    expect(chooseHeader([['Title'], ['note'], COLUMNS, ['m-1']])).toEqual({ index: 2, found: true });
    expect(
      chooseHeader([
        ['Name', 'Mail'],
        ['Ada', 'a@x'],
      ]),
    ).toEqual({ index: 0, found: false });
  });

  it('a totals or notes row is not a payer row; a payer with cells missing is still a payer', () => {
    const check = notAPayerRow(COLUMNS);
    const row = (cells: Record<number, string>) => COLUMNS.map((_, i) => cells[i] ?? '');
    expect(check(row({ 0: 'Total', 17: '3' }))?.message).toBe(
      'is not a payer row: only "clientUserId" and "accountNumber" are filled (a total or a note?): delete the row, or move it off the sheet',
    );
    expect(check(row({ 0: 'x', 1: 'y', 2: 'z' }))).toBeUndefined();
    expect(check(row({}))).toBeUndefined(); // blank: skipped before, never called a row at all
    // Three columns that name fields: even one filled cell may be a payer missing the rest.
    expect(notAPayerRow(['clientUserId', 'iban', 'currency'])(['c-1', '', ''])).toBeUndefined();
  });

  it('CSV: skips the title block and blank rows (counted in a warning), and names the totals row', async () => {
    const h = await harness();
    try {
      const path = h.tmp.write('payers.csv', MESSY_CSV);
      const input = await openInput(path);
      const records: RawRecord[] = [];
      for await (const record of input.records) records.push(record);
      expect(input.header).toEqual(COLUMNS);
      expect(records.map((r) => [r.line, r.problem?.message.slice(0, 22)])).toEqual([
        [5, undefined],
        [8, undefined],
        [9, 'is not a payer row: on'],
      ]);
      expect(input.warnings).toEqual([
        'payers.csv: the header is on line 4; the 2 rows above it (a title or notes) are not read',
        'payers.csv: 2 blank rows (the first on line 6) were skipped',
      ]);

      // The failed file starts at the header, so it reads back as it is, whoever runs it again.
      const first = await h.run({ inputs: [path], command: 'validate' }, {});
      expect(first.results.map((r) => [r.line, r.outcome])).toEqual([
        ['5', 'ok'],
        ['8', 'invalid'],
        ['9', 'invalid'],
      ]);
      const failed = first.summary.outputs.failed[0]!;
      expect(readFileSync(failed, 'utf8').split(/\r?\n/)[0]).toBe(`${PAYER_HEADER},error,completedSteps`);
      const again = await h.run({ inputs: [failed], command: 'validate' }, {});
      expect(again.results.map((r) => [r.outcome, r.error!.split(':')[0]])).toEqual([
        ['invalid', 'email'],
        ['invalid', '(row)'],
      ]);
      expect(again.results[0]!.line).toBe('8');
    } finally {
      await h.close();
    }
  });

  it('xlsx: passes over an instructions sheet and a title, or names the sheets and --sheet when none matches', async () => {
    const h = await harness();
    try {
      const path = await writeWorkbook(h.tmp.path('book.xlsx'), [
        { name: 'How to', rows: [['Fill in one row per payer'], ['Ask finance@example.com']] },
        { name: 'Data', rows: [['Export of 2026-03-01'], [], COLUMNS, COLUMNS.map(() => 'x')] },
      ]);
      const input = await openInput(path);
      expect(input.file).toMatchObject({ sheet: 'Data', name: 'book.xlsx[Data]' });
      expect(input.header).toEqual(COLUMNS);

      // Instructions that name a column or two (a table of them, or one a row) are not the data either.
      const explained = await writeWorkbook(h.tmp.path('explained.xlsx'), [
        {
          name: 'Read me',
          rows: [['Fill in the Payers sheet'], ['Currency', 'Country'], ['USD', 'US'], ['clientUserId'], ['email']],
        },
        { name: 'Payers', rows: [COLUMNS, COLUMNS.map(() => 'x')] },
      ]);
      expect((await openInput(explained)).file).toMatchObject({ sheet: 'Payers', name: 'explained.xlsx[Payers]' });

      const none = await writeWorkbook(h.tmp.path('none.xlsx'), [
        { name: 'How to', rows: [['Fill in one row per payer']] },
        {
          name: 'Data',
          rows: [
            ['Name', 'Mail'],
            ['Ada', 'ada@example.com'],
          ],
        },
      ]);
      await expect(openInput(none)).rejects.toThrow(
        'none.xlsx: no sheet has a header row naming payer columns in its first 30 rows (sheets with data: "How to", "Data"): name the sheet to read with --sheet, and its columns with --map if they have names of their own',
      );
      // Named, the sheet is read from its first row: the header check then names the columns it lacks.
      expect((await openInput(none, { sheet: 'Data' })).header).toEqual(['Name', 'Mail']);
    } finally {
      await h.close();
    }
  });
});
