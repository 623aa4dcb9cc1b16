import { InputError } from '../../core/errors.js';
import type { ColumnMap } from '../../rows/columns.js';
import { chooseHeader, NumberCell, notAPayerRow, SkippedRows } from '../../rows/findData.js';
import type { Cell, RowIssue } from '../../core/types.js';
import {
  MAX_CELL_LENGTH,
  MAX_RECORD_SIZE,
  type InputFile,
  type OpenedInput,
  type RawRecord,
  type UnnamedCell,
} from '../InputFile.js';
import { rowTexts, type ScannedCell, type ScannedRow, type SheetCell, type SheetScan } from './scanSheet.js';

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
  const { index } = chooseHeader(scan.rows.map(rowTexts), columns);
  const headerRow = scan.rows[index]!;
  const layout = sheetColumns(headerRow);
  const skipped = new SkippedRows(file.name);
  if (index > 0) skipped.aboveHeader(index, headerRow.number);
  for (const blank of scan.blanks.filter((line) => line > headerRow.number)) skipped.blank(blank);
  const warnings: string[] = [];
  const notPayer = notAPayerRow(layout.header, columns);

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      for (const row of scan.rows.slice(index + 1)) yield toRawRecord(row, layout, notPayer);
      for (;;) {
        const row = await scan.next(layout.width);
        if (row === undefined) break;
        if (row.blank) skipped.blank(row.number);
        else yield toRawRecord(row, layout, notPayer);
      }
      warnings.push(...skipped.warnings());
    } finally {
      scan.close();
      close();
    }
  }
  const { header, positions } = layout;
  return { file, header, positions, headerLine: headerRow.number, records: records(), sheets, warnings };
}

/** A sheet's columns: the header's cells that name something, each with its place in the sheet. */
interface SheetColumns {
  header: string[];
  positions: number[];
  /** By place in the sheet, the column's index in `header`. */
  slots: Map<number, number>;
  /** Past the last named cell: a value there is right of the header. */
  width: number;
}

function sheetColumns(headerRow: ScannedRow): SheetColumns {
  const layout: SheetColumns = { header: [], positions: [], slots: new Map(), width: 0 };
  for (const { column, text } of headerRow.cells) {
    const name = text.trim();
    if (name === '') continue;
    layout.slots.set(column, layout.header.length);
    layout.header.push(name);
    layout.positions.push(column);
    layout.width = column + 1;
  }
  return layout;
}

/**
 * A row of a sheet: `original` holds the texts of the header's columns, `values` the same with number cells as they
 * are (the digits they show and what they hold), `unnamed` what shows under a column with no name.
 */
class SheetRecord implements RawRecord {
  problem?: RowIssue;
  unnamed?: UnnamedCell[];

  constructor(
    readonly line: number,
    readonly original: string[],
    readonly values: unknown[],
    private readonly header: readonly string[],
  ) {}

  get cells(): Cell[] {
    return this.header.map((column, i) => ({ column, value: this.values[i] }));
  }
}

function toRawRecord(row: ScannedRow, layout: SheetColumns, notPayer: NotPayerCheck): RawRecord {
  const { header, slots, width } = layout;
  const original = new Array<string>(header.length).fill('');
  let values: unknown[] = original;
  let unnamed: UnnamedCell[] | undefined;
  let beyond = row.beyond;
  for (const { column, cell, text } of row.cells) {
    const slot = slots.get(column);
    if (slot !== undefined) {
      original[slot] = text;
      // Most rows hold no number cell: their values are their texts, not a copy.
      if (cell instanceof NumberCell && values === original) values = original.slice();
      values[slot] = cell instanceof NumberCell ? cell : text;
    } else if (text.trim() !== '' && column < width) {
      unnamed ??= [];
      unnamed.push({ column, text });
    } else if (text.trim() !== '') beyond ??= column;
  }
  const record = new SheetRecord(row.number, original, values, header);
  if (unnamed !== undefined) record.unnamed = unnamed;
  // A text too long to keep reads as empty: that, not the row's few other cells, is its problem.
  const unkept = row.tooLong !== undefined || row.cells.some((c) => marked(c.cell, 'tooLong'));
  const others = unnamed?.map((cell) => `column ${columnLetter(cell.column)}`);
  const problem = (unkept ? undefined : notPayer(original, others)) ?? rowProblem(row, layout, beyond);
  if (problem !== undefined) record.problem = problem;
  return record;
}

type NotPayerCheck = ReturnType<typeof notAPayerRow>;

/** A cell that is not text but says something of itself: an Excel error, a formula never saved, a text too long. */
function marked<K extends 'error' | 'noResult' | 'tooLong'>(
  cell: SheetCell,
  mark: K,
): cell is Extract<SheetCell, Record<K, unknown>> {
  return typeof cell === 'object' && !(cell instanceof NumberCell) && mark in cell;
}

function rowProblem(row: ScannedRow, layout: SheetColumns, beyond: number | undefined): RowIssue | undefined {
  if (row.tooLong !== undefined)
    return {
      column: '(row)',
      message: `is larger than ${MAX_RECORD_SIZE / 1024 / 1024} MB (${row.tooLong} characters in its cells)`,
    };
  if (beyond !== undefined)
    return {
      column: '(row)',
      message: `has a value in column ${columnLetter(beyond)}, right of the last header: give that column a header or clear it`,
    };
  const columnOf = (column: number) => nameOf(layout, column) ?? columnLetter(column);
  const error = row.cells.find((c) => marked(c.cell, 'error'));
  if (error !== undefined)
    return {
      column: columnOf(error.column),
      message: `holds the spreadsheet error ${error.text}: fix the formula or type the value`,
    };
  const unsaved = row.cells.find((c) => marked(c.cell, 'noResult'));
  if (unsaved !== undefined)
    return {
      column: columnOf(unsaved.column),
      message:
        'holds a formula whose result was never saved (the program that wrote the file does not calculate): open the file in Excel or LibreOffice and save it, or type the value',
    };
  return longCell(row, layout);
}

const nameOf = (layout: SheetColumns, column: number): string | undefined => {
  const slot = layout.slots.get(column);
  return slot === undefined ? undefined : layout.header[slot];
};

/** A cell longer than MAX_CELL_LENGTH; one too long to keep is empty in `original`, its length counted. */
function longCell(row: ScannedRow, layout: SheetColumns): RowIssue | undefined {
  const lengthOf = ({ cell, text }: ScannedCell) => (marked(cell, 'tooLong') ? cell.tooLong : text.length);
  const long = row.cells.find((c) => c.column < layout.width && lengthOf(c) > MAX_CELL_LENGTH);
  if (long === undefined) return undefined;
  return {
    column: nameOf(layout, long.column) ?? '(row)',
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
