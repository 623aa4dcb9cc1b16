import type { RowIssue } from '../core/types.js';
import { type ColumnMap, fieldForColumn, isBlank } from './columns.js';

/**
 * Where the data of a sheet or CSV file is, as people really lay it out: a title, a date or a few lines of notes
 * above the header, empty rows (or rows of only delimiters, which Excel keeps after cells are cleared) among the
 * payers, a totals or notes row below them. One set of rules for every reader, so a CSV and the same sheet saved as
 * .xlsx read alike.
 */

/** How far down the header is looked for: past this, a row naming no field is not a title but data. */
export const HEADER_SEARCH_ROWS = 30;

/** The row-level column name of a problem about the whole row. */
const ROW = '(row)';

/** Columns a failed file adds; they say nothing about whether a row is a header. */
const OUR_COLUMNS = new Set(['error', 'completedSteps']);

/** The field a header cell names, in either kind of file (payers or bank rows), or undefined. */
function knownField(cell: string, map?: ColumnMap): string | undefined {
  const field = fieldForColumn(cell, 'payers', map) ?? fieldForColumn(cell, 'bank-details', map);
  return field === undefined || OUR_COLUMNS.has(field) ? undefined : field;
}

/**
 * A header names at least two fields, or nothing but fields: a title cell that happens to read `Email` above other
 * text is not one, a one-column file of `clientUserId` is.
 */
export function isHeaderRow(cells: readonly string[], map?: ColumnMap): boolean {
  const fields = new Set<string>();
  let unknown = 0;
  for (const cell of cells) {
    const name = cell.trim();
    if (name === '') continue;
    const field = knownField(name, map);
    if (field === undefined) unknown++;
    else fields.add(field);
    if (fields.size >= 2) return true;
  }
  return fields.size === 1 && unknown === 0;
}

/** How many distinct fields a row names: what tells a payers sheet's header from a note naming two columns. */
export function fieldCount(cells: readonly string[], map?: ColumnMap): number {
  const fields = new Set<string>();
  for (const cell of cells) {
    const field = knownField(cell.trim(), map);
    if (field !== undefined) fields.add(field);
  }
  return fields.size;
}

/** A row with nothing in it: empty, or only delimiters and spaces. */
export const isBlankRow = (cells: readonly unknown[]): boolean => cells.every(isBlank);

/**
 * Which of the first non-blank rows is the header: the first that names fields, or (none doing so) the first of
 * them, so that the header check names what it found and what is missing. Rows before it are a title or notes.
 */
export function chooseHeader(rows: readonly (readonly string[])[], map?: ColumnMap): { index: number; found: boolean } {
  const index = rows.findIndex((row) => isHeaderRow(row, map));
  return index >= 0 ? { index, found: true } : { index: 0, found: false };
}

/**
 * A check for rows below the header that are no payer: a totals line (`Total` and a count) or a note
 * (`Prepared by ...`). Such a row fills at most two cells, and fewer than a third of the columns that name fields;
 * a payer with a few cells missing fills far more. It is reported as such rather than as a payer missing every
 * field. The message names columns, never values: `others` are the names of cells filled outside the header's columns.
 */
export function notAPayerRow(
  header: readonly string[],
  map?: ColumnMap,
): (cells: readonly unknown[], others?: readonly string[]) => RowIssue | undefined {
  const known = header.filter((column) => knownField(column, map) !== undefined).length;
  const most = Math.min(2, Math.ceil(known / 3) - 1);
  // A failed file's own `error` and `completedSteps` cells are ours, not the row's: its totals row stays one.
  const ours = header.map((column) => OUR_COLUMNS.has(fieldForColumn(column, 'payers', map) ?? ''));
  const counts = (value: unknown, i: number) => !ours[i] && !isBlank(value);
  return (cells, others = []) => {
    let filled = others.length;
    if (filled > most) return undefined;
    for (let i = 0; i < cells.length; i++) if (counts(cells[i], i) && ++filled > most) return undefined;
    if (filled === 0) return undefined;
    const which = cells.flatMap((value, i) => (counts(value, i) ? [`"${header[i] || `column ${i + 1}`}"`] : []));
    which.push(...others.map((name) => `"${name}"`));
    return {
      column: ROW,
      message: `is not a payer row: only ${which.join(' and ')} ${filled === 1 ? 'is' : 'are'} filled (a total or a note?): delete the row, or move it off the sheet`,
    };
  };
}

/**
 * A header with both columns a failed or pending file adds (`error` and `completedSteps`): a file this tool wrote,
 * fed back in. Anywhere in the header, not only last: a person fixing rows in a spreadsheet may add columns after them.
 */
export function isRowFileHeader(header: readonly string[], map?: ColumnMap): boolean {
  let error = false;
  let steps = false;
  for (const column of header) {
    const field = fieldForColumn(column, 'payers', map);
    error ||= field === 'error';
    steps ||= field === 'completedSteps';
  }
  return error && steps;
}

/** Warnings about what a reader skipped, complete once the file has been read to the end. */
export class SkippedRows {
  private blanks = 0;
  private firstBlank = 0;
  private above = 0;
  private headerLine = 0;

  constructor(private readonly source: string) {}

  /** `count` blank rows from `line` on. */
  blank(line: number, count = 1): void {
    if (this.blanks === 0) this.firstBlank = line;
    this.blanks += count;
  }

  /** Blank lines above the header are not the rows' to report: the title or notes above it are, if any. */
  forgetBlanks(): void {
    this.blanks = 0;
  }

  /** Rows above the header (a title, notes), the header being on `headerLine`. */
  aboveHeader(count: number, headerLine: number): void {
    this.above = count;
    this.headerLine = headerLine;
  }

  warnings(): string[] {
    const out: string[] = [];
    if (this.above > 0)
      out.push(
        `${this.source}: the header is on line ${this.headerLine}; the ${this.above === 1 ? 'row' : `${this.above} rows`} above it (a title or notes) ${this.above === 1 ? 'is' : 'are'} not read`,
      );
    if (this.blanks > 0)
      out.push(
        `${this.source}: ${this.blanks === 1 ? `line ${this.firstBlank} is blank and was` : `${this.blanks} blank rows (the first on line ${this.firstBlank}) were`} skipped`,
      );
    return out;
  }
}

/**
 * A spreadsheet cell that held a number, not text: read as the digits it shows (`String(cell)` is that text), and
 * kept as a number so the checks can tell where the spreadsheet certainly lost digits (leading zeros gone, or
 * digits past the 15th turned to 0), which a text cell never does. `byFormat` says whether its number format fixed
 * the digits shown (zero-padded, `000000000000`, or Text, `@`): under General or `#,##0`, 000123456789 shows as
 * 123456789, another account number that nothing else can tell from a real one.
 */
export class NumberCell {
  constructor(
    readonly shown: string,
    readonly value: number,
    readonly byFormat = false,
  ) {}

  toString(): string {
    return this.shown;
  }

  toJSON(): string {
    return this.shown;
  }
}

/**
 * A number of a JSONL line written otherwise than as its value's decimal text (`120000000.0` and `1.2E8` are both
 * 120000000; any other number stays a plain number): its value, and its text as the line writes it. Read as text it
 * is its value's decimal form, as a plain number would be; only a field of digits asks how it was written, where a
 * fraction or an exponent is never an identifier's.
 */
export class JsonNumber {
  constructor(
    readonly written: string,
    readonly value: number,
  ) {}

  toString(): string {
    return String(this.value);
  }

  toJSON(): number {
    return this.value;
  }
}
