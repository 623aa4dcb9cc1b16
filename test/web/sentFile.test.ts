import { readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sentName } from '../../src/web/checkUpload.js';
import { writeSentWorkbook } from '../../src/web/sentWorkbook.js';
import { readTable, writeSentFile } from '../../src/web/uploadTable.js';
import { tempDir } from '../helpers/tempDir.js';
import { writeWithExceljs } from '../helpers/xlsxProducers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

describe('the file sent for a mapped or fixed upload', () => {
  it('reads a workbook below its title row; the CSV writer: header mapped, fixes on, rows left out gone', async () => {
    const book = await writeWithExceljs(tmp.path('march.xlsx'), {
      sheets: [
        {
          name: 'Payers',
          rows: [
            ['Payers, March'],
            ['clientUserId', 'email', 'Type', 'Notes'],
            ['p-1', 'nope', 'individual', 'two\nlines'],
            ['p-2', 'p2@example.com', 'business', 'Zoë'],
            ['p-3', 'p3@example.com', 'individual', ''],
          ],
        },
      ],
    });
    const table = await readTable(book);
    expect(table?.header).toEqual(['clientUserId', 'email', 'Type', 'Notes']);
    expect(table?.rows.map((r) => r.line)).toEqual([3, 4, 5]);

    const sent = tmp.path(sentName('march.tsv'));
    const at = '2026-11-28T00:00:00.000Z';
    const fixes = [
      { line: 3, column: 'email', value: 'wrong@example.com', at },
      { line: 3, column: 'email', value: 'p1@example.com', at },
    ];
    const lines = writeSentFile(sent, table!, { mapping: { Type: 'beneficiaryType' }, fixes, leftOut: [4] });
    expect(sent.endsWith('march.csv')).toBe(true);
    expect(readFileSync(sent, 'utf8')).toBe(
      'clientUserId,email,beneficiaryType,Notes\np-1,p1@example.com,individual,"two\nlines"\np-3,p3@example.com,individual,\n',
    );
    expect(statSync(sent).mode & 0o777).toBe(0o600);
    // By the sent file's line, the workbook's: the cell's line break moves the next row down one line.
    expect([...lines]).toEqual([
      [2, 3],
      [4, 5],
    ]);
    expect((await readTable(sent))?.rows.map((r) => r.line)).toEqual([2, 4]);
  });

  it('a JSON lines file has no table: its keys go by their names', async () => {
    expect(await readTable(tmp.write('p.jsonl', '{"clientUserId":"p-1"}\n'))).toBeUndefined();
  });

  it('a workbook is sent as a workbook: its sheet by name, the rows as text in their columns, its bank sheet as it was', async () => {
    const book = await writeWithExceljs(tmp.path('june.xlsx'), {
      sheets: [
        {
          name: 'Payers',
          rows: [
            ['Payers, June'],
            ['clientUserId', 'Type', null, 'accountNumber'],
            ['p-1', 'individual', 'aside', '000123'],
            ['p-2', 'business', 'kept', '000456'],
          ],
        },
        {
          name: 'Bank details',
          rows: [
            ['clientUserId', 'dateOfBirth'],
            ['p-1', { date: '1980-12-31' }],
          ],
        },
      ],
    });
    const table = await readTable(book);
    const sent = tmp.path(`sent-${sentName('june.xlsx')}`);
    expect(sentName('june.xlsx')).toBe('june.xlsx');
    const at = '2026-11-28T00:00:00.000Z';
    const lines = await writeSentWorkbook(book, sent, 'Payers', table!, {
      mapping: { Type: 'beneficiaryType' },
      fixes: [{ line: 4, column: 'accountNumber', value: '000789', at }],
      leftOut: [3],
    });
    expect([...lines]).toEqual([[2, 4]]);
    expect(statSync(sent).mode & 0o777).toBe(0o600);
    const back = await readTable(sent);
    expect(back?.header).toEqual(['clientUserId', 'beneficiaryType', 'accountNumber']);
    // A column with no name is no column of the table, and what shows under it stays where it was.
    expect(back?.positions).toEqual([0, 1, 3]);
    expect(back?.rows).toEqual([
      { line: 2, texts: ['p-2', 'business', '000789'], unnamed: [{ column: 2, text: 'kept' }] },
    ]);
    expect(back?.bankSheet).toBe('Bank details');
    const ExcelJS = (await import('exceljs')).default;
    const written = new ExcelJS.Workbook();
    await written.xlsx.readFile(sent);
    expect(written.worksheets.map((w) => w.name)).toEqual(['Payers', 'Bank details']);
    expect(written.getWorksheet('Bank details')!.getCell('B2').value).toBeInstanceOf(Date);
  });
});
