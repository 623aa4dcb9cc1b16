import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { InputError } from '../errors.js';
import type { ColumnMap } from '../rows/columns.js';
import {
  chooseHeader,
  fieldCount,
  HEADER_SEARCH_ROWS,
  isBlankRow,
  isHeaderRow,
  notAPayerRow,
  SkippedRows,
} from '../rows/findData.js';
import type { Cell, RowIssue } from '../types.js';
import { MAX_CELL_LENGTH, type InputFile, type OpenedInput, type RawRecord, unreadable } from './InputFile.js';
import { columnLetter } from './xlsx/cellText.js';
import { refuseTooManyRows, type SheetCell, type SheetRow, sheetRows } from './xlsx/sheetRows.js';
import { readWorkbookParts, type SheetEntry, type WorkbookParts } from './xlsx/workbookParts.js';
import { PartTooLargeError, ZipPackage } from './xlsx/zipPackage.js';

export { columnLetter } from './xlsx/cellText.js';

/** Sheet names compare as people read them: case, spaces and `_-.` do not matter (`Bank details` = `bank_details`). */
export const sheetKey = (name: string): string => name.replace(/[\s_.-]+/g, '').toLowerCase();

/**
 * Opens an .xlsx workbook, whatever wrote it, by its parts' relationships (ECMA-376), one row in memory at a time
 * however long the sheet (the shared-strings table is held whole). Reads the sheet named `options.sheet`, or else
 * the first visible sheet, in tab order, with a header row naming fields within its first rows: an instructions
 * sheet before the data is passed over. Rows above the header (a title, notes) and blank rows are skipped, each
 * noted in a warning; line numbers are the sheet's own row numbers, the row the team sees in Excel.
 */
export async function readXlsx(
  file: InputFile,
  options: { sheet?: string; columns?: ColumnMap | undefined } = {},
): Promise<OpenedInput> {
  const { pkg, book } = await openWorkbook(file);
  try {
    return await readSheet(file, pkg, book, options);
  } catch (error) {
    pkg.close();
    throw error;
  }
}

async function readSheet(
  file: InputFile,
  pkg: ZipPackage,
  book: WorkbookParts,
  options: { sheet?: string; columns?: ColumnMap | undefined },
): Promise<OpenedInput> {
  const names = book.sheets.map((s) => s.name);
  const wanted = options.sheet ?? file.sheet;
  const chosen = wanted === undefined ? await findDataSheet(file, pkg, book, options.columns) : undefined;
  const entry =
    chosen?.entry ??
    (wanted === undefined
      ? undefined
      : book.sheets.find((s) => s.part !== undefined && sheetKey(s.name) === sheetKey(wanted)));
  if (entry === undefined) {
    if (wanted === undefined) throw new InputError(file.name, 'has no sheets');
    throw new InputError(
      file.name,
      `has no sheet named "${wanted}" (its sheets: ${names.map((n) => `"${n}"`).join(', ')}): give one of these to --sheet`,
    );
  }
  const firstVisible = book.sheets.find((s) => !s.hidden && s.part !== undefined);
  const opened: InputFile = {
    ...file,
    sheet: entry.name,
    name: entry === firstVisible ? basename(file.path) : `${basename(file.path)}[${entry.name}]`,
  };
  const scan = chosen?.scan ?? (await scanSheet(opened, pkg, book, entry, options.columns));
  if (scan.rows.length === 0) {
    scan.close();
    throw new InputError(opened.name, `sheet "${entry.name}" is empty: expected a header row and at least one row`);
  }
  const { index } = chooseHeader(
    scan.rows.map((row) => row.texts),
    options.columns,
  );
  const headerRow = scan.rows[index]!;
  const header = headerRow.texts.map((t) => t.trim());
  while (header.length > 0 && header[header.length - 1] === '') header.pop();
  const skipped = new SkippedRows(opened.name);
  const notPayer = notAPayerRow(header, options.columns);
  if (index > 0) skipped.aboveHeader(index, headerRow.number);
  for (const blank of scan.blanks.filter((line) => line > headerRow.number)) skipped.blank(blank);
  const warnings: string[] = [];

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      for (const row of scan.rows.slice(index + 1)) yield toRawRecord(row, header, notPayer);
      for (;;) {
        const row = await scan.next();
        if (row === undefined) break;
        if (row.blank) skipped.blank(row.number);
        else yield toRawRecord(row, header, notPayer);
      }
      warnings.push(...skipped.warnings());
    } finally {
      scan.close();
      pkg.close();
    }
  }
  return { file: opened, header, records: records(), sheets: names, warnings };
}

async function openWorkbook(file: InputFile): Promise<{ pkg: ZipPackage; book: WorkbookParts }> {
  try {
    // Checked apart, so a missing file is said as such rather than as a damaged workbook.
    await access(file.path, constants.R_OK);
  } catch (cause) {
    throw readError(cause, file);
  }
  try {
    const pkg = await ZipPackage.open(file.path);
    return { pkg, book: await readWorkbookParts(pkg) };
  } catch (cause) {
    throw readError(cause, file);
  }
}

/**
 * The first visible sheet whose first rows hold a header naming fields. With none, the only sheet with data (its
 * first row is then the header, for the header check to name what it lacks); with several, the user names one.
 */
/** Fields a header names for its sheet to be taken as the data at once: a payer or bank row has more than two. */
const DATA_HEADER_FIELDS = 3;

async function findDataSheet(
  file: InputFile,
  pkg: ZipPackage,
  book: WorkbookParts,
  columns: ColumnMap | undefined,
): Promise<{ entry: SheetEntry; scan: SheetScan } | undefined> {
  const scanned: { entry: SheetEntry; scan: SheetScan }[] = [];
  const keep = (chosen: { entry: SheetEntry; scan: SheetScan } | undefined) => {
    for (const other of scanned) if (other !== chosen) other.scan.close();
    return chosen;
  };
  // The first sheet whose header names a few fields is the data. An instructions sheet may name a column or two
  // (`Currency | Country`, or one a row): such a header is taken only when no later sheet has a fuller one.
  let first: { entry: SheetEntry; scan: SheetScan } | undefined;
  for (const entry of book.sheets.filter((s) => !s.hidden && s.part !== undefined)) {
    const sheet = { entry, scan: await scanSheet(file, pkg, book, entry, columns) };
    scanned.push(sheet);
    if (!sheet.scan.foundHeader) continue;
    const rows = sheet.scan.rows.map((row) => row.texts);
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
    `no sheet has a header row naming payer columns in its first ${HEADER_SEARCH_ROWS} rows (sheets with data: ${listed}): name the sheet to read with --sheet, and its columns with --map if they have names of their own`,
  );
}

interface ScannedRow {
  number: number;
  cells: (SheetCell | undefined)[];
  texts: string[];
  blank: boolean;
}

/** A sheet read up to its header (or HEADER_SEARCH_ROWS non-blank rows), which then reads on from there. */
interface SheetScan {
  rows: ScannedRow[];
  blanks: number[];
  foundHeader: boolean;
  next(): Promise<ScannedRow | undefined>;
  close(): void;
}

async function scanSheet(
  file: InputFile,
  pkg: ZipPackage,
  book: WorkbookParts,
  entry: SheetEntry,
  columns: ColumnMap | undefined,
): Promise<SheetScan> {
  let stream: Readable | undefined;
  try {
    await refuseTooManyRows((await pkg.open(entry.part!, 'sheet'))!);
    stream = await pkg.open(entry.part!, 'sheet');
  } catch (cause) {
    throw readError(cause, file);
  }
  const iterator = sheetRows(stream!, book);
  const next = async (): Promise<ScannedRow | undefined> => {
    let step: IteratorResult<SheetRow>;
    try {
      step = await iterator.next();
    } catch (cause) {
      throw readError(cause, file);
    }
    if (step.done) return undefined;
    // Array.from, not map: a row's cells may have holes (a styled cell with no value further along), each ''.
    const texts = Array.from(step.value.cells, cellText);
    return { number: step.value.number, cells: step.value.cells, texts, blank: isBlankRow(texts) };
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
      foundHeader = isHeaderRow(row.texts, columns);
    }
  }
  return { rows, blanks, foundHeader, next, close: () => void iterator.return(undefined).catch(() => {}) };
}

function cellText(cell: SheetCell | undefined): string {
  if (cell === undefined) return '';
  if (typeof cell === 'string') return cell;
  if ('error' in cell) return cell.error;
  if ('noResult' in cell) return '';
  return cell.shown;
}

function toRawRecord(row: ScannedRow, header: string[], notPayer: NotPayerCheck): RawRecord {
  const original = header.map((_, i) => row.texts[i] ?? '');
  const cells: Cell[] = header.map((column, i) => {
    const cell = row.cells[i];
    return { column, value: cell !== undefined && typeof cell === 'object' && 'shown' in cell ? cell : original[i] };
  });
  const record: RawRecord = { line: row.number, cells, original };
  record.problem = notPayer(row.texts) ?? rowProblem(row, header, original);
  if (record.problem === undefined) delete record.problem;
  return record;
}

type NotPayerCheck = ReturnType<typeof notAPayerRow>;

function rowProblem(row: ScannedRow, header: string[], original: string[]): RowIssue | undefined {
  const beyond = row.texts.slice(header.length).findIndex((t) => t.trim() !== '');
  if (beyond >= 0)
    return {
      column: '(row)',
      message: `has a value in column ${columnLetter(header.length + beyond)}, right of the last header: give that column a header or clear it`,
    };
  const columnOf = (i: number) => header[i] || columnLetter(i);
  const error = row.cells.findIndex((c) => c !== undefined && typeof c === 'object' && 'error' in c);
  if (error >= 0)
    return {
      column: columnOf(error),
      message: `holds the spreadsheet error ${row.texts[error]}: fix the formula or type the value`,
    };
  const unsaved = row.cells.findIndex((c) => c !== undefined && typeof c === 'object' && 'noResult' in c);
  if (unsaved >= 0)
    return {
      column: columnOf(unsaved),
      message:
        'holds a formula whose result was never saved (the program that wrote the file does not calculate): open the file in Excel or LibreOffice and save it, or type the value',
    };
  const long = original.findIndex((text) => text.length > MAX_CELL_LENGTH);
  if (long >= 0)
    return {
      column: header[long] || '(row)',
      message: `is ${original[long]!.length} characters long, at most ${MAX_CELL_LENGTH}`,
    };
  return undefined;
}

/** Why the workbook cannot be read, as an InputError naming the file. */
function readError(cause: unknown, file: InputFile): InputError {
  if (cause instanceof InputError) return cause;
  if (cause instanceof PartTooLargeError)
    return new InputError(file.name, `refused: ${cause.message}. Save it again from Excel as .xlsx, or as CSV`, {
      cause,
    });
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return unreadable(file, cause);
  return new InputError(
    file.name,
    'is not a readable .xlsx workbook (a password-protected or damaged file, or another format renamed .xlsx): save it again from Excel as .xlsx',
    { cause },
  );
}
