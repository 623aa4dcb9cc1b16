import { writeFileSync } from 'node:fs';
import type { UnnamedCell } from '../input/InputFile.js';
import { type Edits, fixedRows, sentHeader, sentTexts, type UploadTable } from './uploadTable.js';

/**
 * The file that goes to the inbox for a workbook the person mapped or fixed: a workbook again, so that its failed and
 * pending files come back as workbooks. Its first sheet, named as the one read, holds the header (mapped) and the rows
 * (fixed, those left out gone) as text, as the tool read them; the workbook's bank-details sheet follows as it was,
 * cell for cell (dates stay dates). Returns, by the sent sheet's row, the upload's row it came from.
 */
export async function writeSentWorkbook(
  original: string,
  path: string,
  sheet: string | undefined,
  table: UploadTable,
  edits: Edits,
): Promise<Map<number, number>> {
  // Loaded only here: a CSV upload never pays for exceljs.
  const { default: excel } = await import('exceljs');
  const source = new excel.Workbook();
  await source.xlsx.readFile(original);
  const read = (sheet && source.getWorksheet(sheet)) || source.worksheets[0];
  const book = new excel.Workbook();
  const payers = book.addWorksheet(read?.name ?? 'Payers');
  // Each cell where the sheet had it: a column with no name, and what shows under it, stays between the others. A
  // column the sent file adds (the last name of a split name) comes after the sheet's last.
  const positions = table.header.map((_, i) => table.positions?.[i] ?? i);
  const past = Math.max(-1, ...positions) + 1;
  const placed = (texts: readonly string[], unnamed: readonly UnnamedCell[] = []) => {
    const cells: (string | undefined)[] = [];
    texts.forEach((text, i) => {
      if (text !== '') cells[positions[i] ?? past + i - positions.length] = text;
    });
    for (const { column, text } of unnamed) cells[column] ??= text;
    return cells;
  };
  payers.addRow(placed(sentHeader(table.header, edits.mapping)));
  const rows = fixedRows(table, edits.fixes);
  const out = new Set(edits.leftOut);
  const lines = new Map<number, number>();
  for (const row of table.rows) {
    if (out.has(row.line)) continue;
    const added = payers.addRow(placed(sentTexts(rows.get(row.line)!, table.header, edits.mapping), row.unnamed));
    lines.set(added.number, row.line);
  }
  const bank = table.bankSheet === undefined ? undefined : source.getWorksheet(table.bankSheet);
  if (bank !== undefined) {
    const copy = book.addWorksheet(bank.name);
    bank.eachRow({ includeEmpty: true }, (row, number) => {
      const to = copy.getRow(number);
      row.eachCell({ includeEmpty: false }, (cell, column) => {
        const target = to.getCell(column);
        target.value = cell.value;
        if (cell.numFmt) target.numFmt = cell.numFmt;
      });
      to.commit();
    });
  }
  writeFileSync(path, Buffer.from(await book.xlsx.writeBuffer()), { mode: 0o600 });
  return lines;
}
