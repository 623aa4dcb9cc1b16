import type ExcelJS from 'exceljs';
import type { RowError } from '../core/types.js';
import type { UnnamedCell } from '../input/InputFile.js';
import { openPrivateFile } from './CsvFileWriter.js';
import { formatErrors } from './results.js';

export interface RowFileRow {
  /** CSV and a sheet: the cells as read, in header order. JSONL: the line's text. */
  original: string[] | string;
  /** A sheet: what showed under columns with no name, written back where it was. */
  unnamed?: readonly UnnamedCell[] | undefined;
  errors: readonly RowError[];
  /** The cell's text, as formatCompletedSteps writes it. */
  completedSteps: string;
}

type Workbook = InstanceType<typeof ExcelJS.stream.xlsx.WorkbookWriter>;
type Worksheet = ReturnType<Workbook['addWorksheet']>;

// Light red fill, the "bad" cell colour people know from Excel's own conditional formatting.
const ERROR_FILL = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFC7CE' } } as const;

/**
 * Every cell's style is one of these objects. exceljs gives each new cell a fresh copy of its column's style and
 * turns a style it has not seen (by identity) into XML to look it up: a third of an all-invalid workbook's time.
 * Shared, each is turned once. Text format keeps what the team types next (a routing number's leading zero) as typed.
 */
const STYLES = {
  text: { numFmt: '@' },
  plain: {},
  error: { numFmt: '@', fill: ERROR_FILL },
} as const satisfies Record<string, Partial<ExcelJS.Style>>;

/**
 * Rows of a sheet whose red cells also get a note saying what is wrong. exceljs's streaming writer holds a sheet's
 * notes in memory until the sheet ends (they are other parts of the package, written after it): on a 50,000-row sheet
 * of invalid rows they cost 50 MB and a quarter of the time. Past this many rows, cells are still red and the row's
 * `error` cell still says what is wrong.
 */
const NOTED_ROWS = 1000;

/**
 * Where a failed or pending sheet puts its columns, each from 0 for A: the input's own where the input had them (a
 * sheet's unnamed columns stay between them), then `error` and `completedSteps`: where a failed file fed back had
 * them, else right after the last column; undefined when that is past Excel's last column (XFD).
 */
export interface SheetColumns {
  names: string[];
  positions: number[];
  error: number | undefined;
  completedSteps: number | undefined;
}

interface SheetSlot {
  name: string;
  columns: SheetColumns;
  worksheet?: Worksheet;
  /** Rows given notes so far. */
  noted: number;
}

interface Book {
  /** Where it goes, asked on its first row: a workbook that gets no row takes no name. */
  place: () => string;
  path?: string;
  workbook?: Workbook;
  sheets: SheetSlot[];
}

/**
 * The failed and pending workbooks of one run, one per input .xlsx and kind, each with a sheet per sheet that was
 * read (payers and a `Bank details` sheet land in one workbook, as they came, so the file runs again as is).
 * Written with exceljs's streaming writer, mode 0600, created on their first row. `close()` after the last input.
 */
export class RowWorkbooks {
  private readonly books = new Map<string, Book>();

  /**
   * Registers a sheet (in the order the inputs are read) with the input's own columns; nothing is written until it
   * gets a row. Sheets of one `key` (an input workbook and a kind) share a workbook, placed by the first `place`.
   */
  sheet(key: string, place: () => string, name: string, columns: SheetColumns): XlsxRowSheet {
    let book = this.books.get(key);
    if (book === undefined) {
      book = { place, sheets: [] };
      this.books.set(key, book);
    }
    const slot: SheetSlot = { name, columns, noted: 0 };
    book.sheets.push(slot);
    return new XlsxRowSheet(book, slot);
  }

  async close(): Promise<void> {
    for (const book of this.books.values()) {
      if (book.workbook) await book.workbook.commit();
    }
    this.books.clear();
  }
}

/**
 * One sheet of a failed or pending workbook: the input's columns as read, then `error` and `completedSteps` (in the
 * first cell's note when the input's columns reach Excel's last); cells in error in red.
 */
export class XlsxRowSheet {
  constructor(
    private readonly book: Book,
    private readonly slot: SheetSlot,
  ) {}

  /** The workbook's path once it has a row. */
  get path(): string | undefined {
    return this.book.path;
  }

  /** `keep`: which of the row's cells are the input's own columns (an earlier file's error/completedSteps are not). */
  async write(row: RowFileRow, keep: number[]): Promise<void> {
    const worksheet = await this.open();
    const { names, positions, error, completedSteps } = this.slot.columns;
    const cells = row.original as string[];
    // An empty cell is left out (exceljs makes no cell of a hole): a sheet whose header reaches XFD would otherwise
    // make and write 16,384 cells a row. The column's Text format still applies to what the team types there.
    const values: (string | undefined)[] = [];
    for (let k = 0; k < keep.length; k++) if (cells[keep[k]!]) values[positions[k]!] = cells[keep[k]!];
    for (const cell of row.unnamed ?? []) values[cell.column] ??= cell.text;
    const errorText = formatErrors(row.errors);
    if (error !== undefined) values[error] = errorText;
    if (completedSteps !== undefined) values[completedSteps] = row.completedSteps;
    // No `'` before a formula, unlike the CSV files: a string is stored as a text cell, which a spreadsheet never runs.
    const added = worksheet.addRow(values);
    added.eachCell((cell, column) => {
      cell.style = column - 1 === error || column - 1 === completedSteps ? STYLES.plain : STYLES.text;
    });
    // A cell an error is about is red, the problem in its note; step failures name no column.
    const notes = new Map<number, string[]>();
    for (const { column, message } of row.errors) {
      const index = column === undefined ? -1 : names.indexOf(column);
      if (index >= 0) notes.set(positions[index]!, [...(notes.get(positions[index]!) ?? []), message]);
    }
    // A sheet with no room for the two columns says them in its first cell's note instead.
    if (error === undefined && (errorText !== '' || row.completedSteps !== ''))
      notes.set(0, [...(notes.get(0) ?? []), `error: ${errorText}`, `completedSteps: ${row.completedSteps}`]);
    const noted = notes.size > 0 && this.slot.noted < NOTED_ROWS;
    if (noted) this.slot.noted++;
    for (const [column, messages] of notes) {
      const cell = added.getCell(column + 1);
      cell.style = STYLES.error;
      if (noted) cell.note = messages.join('\n');
    }
    added.commit();
  }

  async close(): Promise<void> {
    this.slot.worksheet?.commit();
  }

  /** Creates the workbook on its first row, with any sheet registered before this one (header only) kept in order. */
  private async open(): Promise<Worksheet> {
    if (this.slot.worksheet) return this.slot.worksheet;
    // Loaded on the first row of a workbook: a CSV run never pays for exceljs in memory.
    const { default: excel } = await import('exceljs');
    if (this.slot.worksheet) return this.slot.worksheet; // another row of this sheet opened it meanwhile
    if (this.book.workbook === undefined) {
      this.book.path = this.book.place();
      this.book.workbook = new excel.stream.xlsx.WorkbookWriter({
        stream: openPrivateFile(this.book.path),
        useStyles: true,
        useSharedStrings: false,
      });
    }
    for (const slot of this.book.sheets) {
      if (slot.worksheet) continue;
      slot.worksheet = addSheet(this.book.workbook, slot);
      if (slot === this.slot) break;
      slot.worksheet.commit();
    }
    return this.slot.worksheet!;
  }
}

function addSheet(workbook: Workbook, slot: SheetSlot): Worksheet {
  const worksheet = workbook.addWorksheet(slot.name);
  const { names, positions, error, completedSteps } = slot.columns;
  // Laid out by place: a column with no name gets no style (exceljs writes a styled cell even empty: 16,384 a row
  // under a header that reaches XFD with nothing between). Text format keeps what the team types next (a routing
  // number's leading zero) as typed.
  const columns: Partial<ExcelJS.Column>[] = [];
  const width = Math.max(-1, error ?? -1, completedSteps ?? -1, ...positions.slice(-1)) + 1;
  for (let at = 0; at < width; at++) columns.push({});
  names.forEach((header, k) => {
    columns[positions[k]!] = { header, width: Math.max(12, Math.min(40, header.length + 4)), style: STYLES.text };
  });
  if (error !== undefined) columns[error] = { header: 'error', width: 60 };
  if (completedSteps !== undefined) columns[completedSteps] = { header: 'completedSteps', width: 24 };
  worksheet.columns = columns;
  worksheet.getRow(1).font = { bold: true };
  return worksheet;
}
