import { advice, type Readers } from '../../core/advice.js';
import { InputError } from '../../core/errors.js';
import type { ColumnMap } from '../../rows/columns.js';
import { chooseHeader, fieldCount, HEADER_SEARCH_ROWS, isHeaderRow, type NumberCell } from '../../rows/findData.js';
import type { InputFile } from '../InputFile.js';

// Finding the data in a spreadsheet, whatever its file format: the reader of a format hands over each sheet's rows as
// SheetRows, and the header, the sheet that holds the data and the records are found the same way for them all.

/**
 * One cell as the sheet shows it: text (a NumberCell for a number cell), or an Excel error (`#N/A`), or a formula
 * whose result the writer never stored (openpyxl and other libraries write formulas without calculating them), or a
 * text too long to keep, by its length.
 */
export type SheetCell = string | NumberCell | { error: string } | { noResult: true } | TooLongText;

/** A text longer than a cell is kept: only its length was counted. */
export interface TooLongText {
  tooLong: number;
}

export interface SheetRow {
  /** The sheet's own row number, as Excel shows it. */
  number: number;
  /** The cells that hold something, left to right, each by its column (from 0 for A): a row is as long as its cells. */
  cells: { column: number; cell: SheetCell }[];
  /** The characters of the row's cells in all, when more than a row keeps (its cells past that are left out). */
  tooLong?: number;
}

/** A cell of a row read: where it is (from 0 for A), what it is, and the text it shows. */
export interface ScannedCell {
  column: number;
  cell: SheetCell;
  text: string;
}

export interface ScannedRow {
  number: number;
  /**
   * The cells that hold something, left to right, as far as the row was read: a row costs what its cells do, not what
   * its last column does (a cell at XFD in a sheet of twenty columns is one cell, not 16,384).
   */
  cells: ScannedCell[];
  blank: boolean;
  /** The first column past the width the row was read to whose cell shows something. */
  beyond?: number;
  tooLong?: number;
}

/** The texts of a row's cells, left to right: enough to tell a header (the names count, not where they are). */
export const rowTexts = (row: ScannedRow): string[] => row.cells.map((c) => c.text);

/** A sheet read up to its header (or HEADER_SEARCH_ROWS non-blank rows), which then reads on from there. */
export interface SheetScan {
  rows: ScannedRow[];
  blanks: number[];
  foundHeader: boolean;
  /** The next row, its cells as far as `width` columns (the header's): those past it are only looked for. */
  next(width?: number): Promise<ScannedRow | undefined>;
  close(): void;
}

/**
 * Reads a sheet's rows up to its header. `fail` turns what the rows throw into the error that names the file and
 * says what is wrong with it in the format's own words.
 */
export async function scanSheet(
  sheetRows: AsyncGenerator<SheetRow>,
  columns: ColumnMap | undefined,
  fail: (cause: unknown) => Error,
): Promise<SheetScan> {
  const next = async (width = Number.POSITIVE_INFINITY): Promise<ScannedRow | undefined> => {
    let step: IteratorResult<SheetRow>;
    try {
      step = await sheetRows.next();
    } catch (cause) {
      throw fail(cause);
    }
    return step.done ? undefined : scannedRow(step.value, width);
  };
  const rows: ScannedRow[] = [];
  const blanks: number[] = [];
  let foundHeader = false;
  while (rows.length < HEADER_SEARCH_ROWS && !foundHeader) {
    const row = await next();
    if (row === undefined) break;
    if (row.blank) blanks.push(row.number);
    else {
      rows.push(row);
      foundHeader = isHeaderRow(rowTexts(row), columns);
    }
  }
  return { rows, blanks, foundHeader, next, close: () => void sheetRows.return(undefined).catch(() => {}) };
}

/** Fields a header names for its sheet to be taken as the data at once: a payer or bank row has more than two. */
const DATA_HEADER_FIELDS = 3;

/**
 * The first of the `candidates` (a workbook's visible sheets, in tab order) whose first rows hold a header naming
 * fields. With none, the only sheet with data (its first row is then the header, for the header check to name what
 * it lacks); with several, the user names one. The scans of the sheets not chosen are closed.
 */
export async function findDataSheet<Entry extends { name: string }>(
  file: InputFile,
  candidates: readonly Entry[],
  scan: (entry: Entry) => Promise<SheetScan>,
  columns: ColumnMap | undefined,
  readers: Readers = 'terminal',
): Promise<{ entry: Entry; scan: SheetScan } | undefined> {
  const scanned: { entry: Entry; scan: SheetScan }[] = [];
  const keep = (chosen: { entry: Entry; scan: SheetScan } | undefined) => {
    for (const other of scanned) if (other !== chosen) other.scan.close();
    return chosen;
  };
  // The first sheet whose header names a few fields is the data. An instructions sheet may name a column or two
  // (`Currency | Country`, or one a row): such a header is taken only when no later sheet has a fuller one.
  let first: { entry: Entry; scan: SheetScan } | undefined;
  for (const entry of candidates) {
    const sheet = { entry, scan: await scan(entry) };
    scanned.push(sheet);
    if (!sheet.scan.foundHeader) continue;
    const rows = sheet.scan.rows.map(rowTexts);
    if (fieldCount(rows[chooseHeader(rows, columns).index]!, columns) >= DATA_HEADER_FIELDS) return keep(sheet);
    first ??= sheet;
  }
  if (first !== undefined) return keep(first);
  const withData = scanned.filter((s) => s.scan.rows.length > 0);
  if (withData.length <= 1) return keep(withData[0] ?? scanned[0]);
  keep(undefined);
  const listed = withData.map((s) => `"${s.entry.name}"`).join(', ');
  throw new InputError(
    file.name,
    `no sheet has a header row naming payer columns in its first ${HEADER_SEARCH_ROWS} rows (sheets with data: ${listed}): ${advice({ kind: 'no-header-sheet' }, readers)}`,
  );
}

/** A row's cells as far as `width`; past it, only whether one shows something is looked at. */
function scannedRow(row: SheetRow, width: number): ScannedRow {
  const cells: ScannedCell[] = [];
  let beyond: number | undefined;
  let blank = true;
  for (const { column, cell } of row.cells) {
    const text = cellText(cell);
    const shows = text.trim() !== '';
    if (column >= width) {
      if (beyond === undefined && shows) beyond = column;
      continue;
    }
    cells.push({ column, cell, text });
    blank &&= !shows;
  }
  const scanned: ScannedRow = { number: row.number, cells, blank: blank && beyond === undefined };
  if (beyond !== undefined) scanned.beyond = beyond;
  if (row.tooLong !== undefined) {
    scanned.tooLong = row.tooLong;
    scanned.blank = false;
  }
  return scanned;
}

function cellText(cell: SheetCell): string {
  if (typeof cell === 'string') return cell;
  if ('error' in cell) return cell.error;
  if ('shown' in cell) return cell.shown;
  return '';
}
