import { readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sentName } from '../../src/web/Uploads.js';
import { readTable, writeSentFile } from '../../src/web/uploadTable.js';
import { tempDir } from '../helpers/tempDir.js';
import { writeWithExceljs } from '../helpers/xlsxProducers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

describe('the file sent for a mapped or fixed upload', () => {
  it('reads a workbook below its title row, and writes UTF-8 CSV: header mapped, fixes on, rows left out gone', async () => {
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

    const sent = tmp.path(sentName('march.xlsx'));
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
});
