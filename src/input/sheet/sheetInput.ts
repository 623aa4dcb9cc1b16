import { InputError } from '../../core/errors.js';
import type { ColumnMap } from '../../rows/columns.js';
import { chooseHeader, NumberCell, notAPayerRow, SkippedRows } from '../../rows/findData.js';
import type { Cell, RowIssue } from '../../core/types.js';
import { MAX_CELL_LENGTH, MAX_RECORD_SIZE, type InputFile, type OpenedInput, type RawRecord } from '../InputFile.js';
import type { ScannedRow, SheetCell, SheetScan } from './scanSheet.js';

/**
 * A scanned sheet as an input: its header chosen among the rows scanned, then its records, one row read at a time.
 * Rows above the header and blank rows are noted in a warning. `close` lets go of the file once the records end.
 */
export function sheetInput(
  file: InputFile,
  sheet: string,
  scan: SheetScan,
  sheets: string[],
  columns: ColumnMap | undefined,
  close: () => void,
): OpenedInput {
  if (scan.rows.length === 0) {
    scan.close();
    throw new InputError(file.name, `sheet "${sheet}" is empty: expected a header row and at least one row`);
  }
  const { index } = chooseHeader(
    scan.rows.map((row) => row.texts),
    columns,
  );
  const headerRow = scan.rows[index]!;
  const header = headerRow.texts.map((t) => t.trim());
  while (header.length > 0 && header[header.length - 1] === '') header.pop();
  const skipped = new SkippedRows(file.name);
  const notPayer = notAPayerRow(header, columns);
  if (index > 0) skipped.aboveHeader(index, headerRow.number);
  for (const blank of scan.blanks.filter((line) => line > headerRow.number)) skipped.blank(blank);
  const warnings: string[] = [];

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      for (const row of scan.rows.slice(index + 1)) yield toRawRecord(row, header, notPayer);
      for (;;) {
        const row = await scan.next(header.length);
        if (row === undefined) break;
        if (row.blank) skipped.blank(row.number);
        else yield toRawRecord(row, header, notPayer);
      }
      warnings.push(...skipped.warnings());
    } finally {
      scan.close();
      close();
    }
  }
  return { file, header, headerLine: headerRow.number, records: records(), sheets, warnings };
}

function toRawRecord(row: ScannedRow, header: string[], notPayer: NotPayerCheck): RawRecord {
  const original = header.map((_, i) => row.texts[i] ?? '');
  const cells: Cell[] = header.map((column, i) => {
    const cell = row.cells[i];
    return { column, value: cell instanceof NumberCell ? cell : original[i] };
  });
  const record: RawRecord = { line: row.number, cells, original };
  // A text too long to keep reads as empty: that, not the row's few other cells, is its problem.
  const unkept = row.tooLong !== undefined || row.cells.some((c) => marked(c, 'tooLong'));
  record.problem = (unkept ? undefined : notPayer(row.texts)) ?? rowProblem(row, header, original);
  if (record.problem === undefined) delete record.problem;
  return record;
}

type NotPayerCheck = ReturnType<typeof notAPayerRow>;

/** A cell that is not text but says something of itself: an Excel error, a formula never saved, a text too long. */
function marked<K extends 'error' | 'noResult' | 'tooLong'>(
  cell: SheetCell | undefined,
  mark: K,
): cell is Extract<SheetCell, Record<K, unknown>> {
  return typeof cell === 'object' && !(cell instanceof NumberCell) && mark in cell;
}

function rowProblem(row: ScannedRow, header: string[], original: string[]): RowIssue | undefined {
  if (row.tooLong !== undefined)
    return {
      column: '(row)',
      message: `is larger than ${MAX_RECORD_SIZE / 1024 / 1024} MB (${row.tooLong} characters in its cells)`,
    };
  const past = row.texts.slice(header.length).findIndex((t) => t.trim() !== '');
  const beyond = row.beyond ?? (past >= 0 ? header.length + past : undefined);
  if (beyond !== undefined)
    return {
      column: '(row)',
      message: `has a value in column ${columnLetter(beyond)}, right of the last header: give that column a header or clear it`,
    };
  const columnOf = (i: number) => header[i] || columnLetter(i);
  const error = row.cells.findIndex((c) => marked(c, 'error'));
  if (error >= 0)
    return {
      column: columnOf(error),
      message: `holds the spreadsheet error ${row.texts[error]}: fix the formula or type the value`,
    };
  const unsaved = row.cells.findIndex((c) => marked(c, 'noResult'));
  if (unsaved >= 0)
    return {
      column: columnOf(unsaved),
      message:
        'holds a formula whose result was never saved (the program that wrote the file does not calculate): open the file in Excel or LibreOffice and save it, or type the value',
    };
  return longCell(row, header, original);
}

/** A cell longer than MAX_CELL_LENGTH; one too long to keep is empty in `original`, its length counted. */
function longCell(row: ScannedRow, header: string[], original: string[]): RowIssue | undefined {
  const lengthOf = (i: number) => {
    const cell = row.cells[i];
    return marked(cell, 'tooLong') ? cell.tooLong : original[i]!.length;
  };
  const long = original.findIndex((_, i) => lengthOf(i) > MAX_CELL_LENGTH);
  if (long < 0) return undefined;
  return {
    column: header[long] || '(row)',
    message: `is ${lengthOf(long)} characters long, at most ${MAX_CELL_LENGTH}`,
  };
}

/** 0 -> A, 25 -> Z, 26 -> AA: how Excel names a column. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    out = String.fromCharCode(65 + rest) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}
