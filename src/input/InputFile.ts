import type { Readers } from '../core/advice.js';
import { basename, extname } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Cell, InputFormat, RowIssue } from '../core/types.js';
import type { ColumnMap } from '../rows/columns.js';
import type { DateFormat } from '../core/types.js';

/** An input file and the format its extension says it is (any other extension is refused before reading). */
export interface InputFile {
  path: string;
  /** The file's base name, as `source` in results.csv and in `failed-<name>`. */
  name: string;
  format: InputFormat;
  /** xlsx: the sheet read (set once opened); its name is in `name` too unless it is the workbook's first sheet. */
  sheet?: string;
  /** CSV: the encoding found by reading it once, so a second pass (and its failed file) knows it from the start. */
  encoding?: TextEncoding;
}

/**
 * A text encoding by its TextDecoder name: `utf-8`, `utf-16le`/`utf-16be` (from a byte order mark), or a single-byte
 * one (`windows-1252`, `macintosh`, `iso-8859-2`, ...) as spreadsheets' "Save as CSV" writes them.
 */
export type TextEncoding = string;

/** How a CSV file was written, so its failed rows can be written back the same way. */
export interface CsvDialect {
  delimiter: string;
  bom: boolean;
  eol: '\r\n' | '\n';
}

/** One record as read, before mapping: the cells by the user's column names, and the original text for the failed file. */
export interface RawRecord {
  /** 1-based line where the record starts (a CSV header is line 1). */
  line: number;
  cells: Cell[];
  /** CSV and a sheet: the cells exactly as read, in header order. JSONL: the line's text. */
  original: string[] | string;
  /** A sheet: what its cells show under columns without a name (no field reads them; the failed file keeps them). */
  unnamed?: readonly UnnamedCell[] | undefined;
  /** A problem that makes the row invalid before any validation: ragged row, line that is not JSON, oversized cell. */
  problem?: RowIssue;
  /** CSV: the cells' values in the order of the input's header, as `cells` holds them (absent with a problem). */
  readonly values?: readonly unknown[] | undefined;
}

/** A sheet's cell under a header cell that names nothing: where it is (from 0 for A), and its text. */
export interface UnnamedCell {
  column: number;
  text: string;
}

export interface OpenedInput {
  file: InputFile;
  /** CSV: the header as written. A sheet: the header's named cells. JSONL: none (keys are per line). */
  header?: string[];
  /**
   * A sheet: where each of the header's columns is (from 0 for A). Only named cells are columns: a header that
   * reaches XFD with nothing between would otherwise make every row 16,384 cells wide.
   */
  positions?: readonly number[];
  /** The line (a sheet's row number) the header is on: a title or notes may come first. */
  headerLine?: number;
  dialect?: CsvDialect;
  records: AsyncIterable<RawRecord>;
  /**
   * CSV: reads the rows to the end only to count them (records are then spent), `every` called every 1,024 rows;
   * file damage and the warnings of a whole reading come out as `records` gives them.
   */
  count?: (every: (rows: number) => void) => Promise<number>;
  /** Things the user should know about the file as a whole (an assumed encoding); complete once `records` has ended. */
  warnings?: string[];
  /** xlsx: every sheet of the workbook, in tab order, so a `Bank details` sheet beside the payers can be found. */
  sheets?: string[];
  /** How the run reads this file's cells: `--map` column names and `--date-format`. */
  reading?: ReadingOptions;
  /** Bytes read so far of the file's size: how far a single reading has got, for a progress bar with no row count. */
  position?: () => { read: number; size: number };
}

export interface ReadingOptions {
  columns?: ColumnMap | undefined;
  dateFormat?: DateFormat | undefined;
  /** `--encoding`: what a CSV that is not UTF-8 is read as, instead of a guess. */
  encoding?: string | undefined;
  /** Who reads what is said of the file (a terminal, the web page, the inbox's notes): its advice in their words. */
  readers?: Readers | undefined;
}

const FORMATS: Record<string, InputFormat> = {
  '.csv': 'csv',
  '.txt': 'csv',
  '.tsv': 'tsv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.xlsx': 'xlsx',
};

const HINTS: Record<string, string> = {
  '.xls': 'the old Excel format ".xls" cannot be read: save it as .xlsx or "CSV UTF-8"',
  '.xlsm': 'save the workbook as .xlsx (without macros) or as "CSV UTF-8"',
  '.ods': 'save it as .xlsx or as CSV',
  '.numbers': 'export it as .xlsx or as CSV',
};

export function inputFile(path: string): InputFile {
  const name = basename(path);
  const format = FORMATS[extname(path).toLowerCase()];
  if (format === undefined) {
    const hint = HINTS[extname(path).toLowerCase()];
    throw new InputError(
      name,
      hint ?? `unsupported file type "${extname(path) || '(none)'}": use .csv, .txt, .tsv, .xlsx, .jsonl or .ndjson`,
    );
  }
  return { path, name, format };
}

/** The format a file's name says, `unsupported` for none: for the summary of a run that stopped before reading it. */
export function formatByName(path: string): InputFormat | 'unsupported' {
  return FORMATS[extname(path).toLowerCase()] ?? 'unsupported';
}

/**
 * The most a CSV record or a JSONL line may hold, in bytes: a payer row is a few hundred bytes, so a bigger one is an
 * unterminated quote swallowing the file or a file with no line breaks, never a payer, and reading it whole would
 * only fill memory.
 */
export const MAX_RECORD_SIZE = 4 * 1024 * 1024;

/** Longest cell we accept: no field of the API is anywhere near this, and it keeps a runaway cell from filling memory. */
export const MAX_CELL_LENGTH = 10_000;

/** A spreadsheet's columns (Excel's, to XFD): a header or a row above it with more cells was not written by one. */
export const MAX_COLUMNS = 16_384;

const UNREADABLE: Readonly<Record<string, string>> = {
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
};

/** The error for a file that cannot be opened or read, its cause said in words where there are some. */
export function unreadable(file: InputFile, cause: unknown): InputError {
  const code = (cause as NodeJS.ErrnoException).code;
  // The one a newcomer meets first: what is wrong and what to do, not the errno. The full path says which folder
  // was looked in, whether the name was given with one or not.
  if (code === 'ENOENT')
    return new InputError(file.name, `no such file (looked for ${file.path}): check its name and folder`, { cause });
  return new InputError(file.name, `cannot be read: ${(code && UNREADABLE[code]) ?? code}`, { cause });
}
