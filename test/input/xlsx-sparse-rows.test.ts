import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { PAYER_COLUMNS, payerCells } from '../helpers/xlsxFixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'po-sparse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a workbook whose rows have holes', () => {
  it('reads a title row above the header when a column has a number format (its empty cells are styled)', async () => {
    const path = join(dir, 'title-and-format.xlsx');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Payers');
    sheet.addRow(['Payer export']);
    sheet.addRow(PAYER_COLUMNS);
    const cells = payerCells('payer-1');
    sheet.addRow(PAYER_COLUMNS.map((column) => (cells[column] ?? null) as ExcelJS.CellValue));
    // Every cell of the column gets the format, the title row's empty one too: that row is then written with a hole.
    sheet.getColumn(6).numFmt = 'mm/dd/yyyy';
    await book.xlsx.writeFile(path);

    const input = await openInput(path);
    const records: RawRecord[] = [];
    for await (const record of input.records) records.push(record);
    expect(records).toHaveLength(1);
    expect(records[0]!.line).toBe(3);
    expect(records[0]!.original[0]).toBe('payer-1');
  });
});
