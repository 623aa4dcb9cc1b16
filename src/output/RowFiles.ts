import { join } from 'node:path';
import type { CsvDialect, InputFile } from '../input/InputFile.js';
import { CsvFileWriter } from './CsvFileWriter.js';
import { csvSafe } from './csvSafe.js';
import { finish, openPrivateFile } from './openPrivateFile.js';
import { FailedWorkbooks, type XlsxFailedSheet } from './XlsxFailedWriter.js';

/** The two columns the failed file adds; given back as input, `error` is ignored and `completedSteps` is honoured. */
const TRAILING = ['error', 'completedSteps'] as const;

const isTrailing = (column: string) => {
  const key = column.toLowerCase().replace(/[\s_.-]/g, '');
  return key === 'error' || key === 'completedsteps';
};

export interface FailedRow {
  /** CSV: the cells as read, in header order. JSONL: the line's text. */
  original: string[] | string;
  error: string;
  completedSteps: string;
}

/**
 * `failed-<input name>`: the rows that were not ok, in the input's own format and dialect, with the original
 * cell text unchanged plus `error` and `completedSteps`, so the team fixes them and feeds the file straight back.
 * Created on the first failed row only: a clean input leaves no empty failed file behind.
 */
export class FailedRowsWriter {
  readonly path: string;
  private csv: CsvFileWriter | undefined;
  private jsonl: NodeJS.WritableStream | undefined;
  private jsonlError: Error | undefined;
  private readonly xlsx: XlsxFailedSheet | undefined;
  /** Set when this writer made its own FailedWorkbooks (no run-wide one given) and so must close it. */
  private readonly ownBooks: FailedWorkbooks | undefined;
  /** Indices of the input's own columns, without an `error`/`completedSteps` pair from an earlier failed file. */
  private readonly keep: number[];
  count = 0;

  /** `books`: the run's failed workbooks, so the sheets of one .xlsx input (payers, Bank details) share one file. */
  constructor(outDir: string, private readonly file: InputFile, private readonly header: string[] = [], private readonly dialect?: CsvDialect, books?: FailedWorkbooks) {
    this.keep = header.map((_, i) => i).filter((i) => !isTrailing(header[i]!));
    if (file.format === 'xlsx') {
      if (books === undefined) this.ownBooks = books = new FailedWorkbooks();
      this.xlsx = books.sheet(outDir, file.path, file.sheet ?? 'Sheet1', this.keep.map((i) => header[i]!));
    }
    this.path = this.xlsx?.path ?? join(outDir, `failed-${file.name}`);
  }

  async write(row: FailedRow): Promise<void> {
    this.count++;
    if (this.xlsx) return this.xlsx.write(row, this.keep);
    if (this.file.format === 'jsonl') {
      if (this.jsonl === undefined) {
        this.jsonl = openPrivateFile(this.path);
        this.jsonl.on('error', (error: Error) => (this.jsonlError ??= error));
      }
      if (this.jsonlError) throw this.jsonlError;
      this.jsonl.write(`${jsonlLine(row)}\n`);
      return;
    }
    this.csv ??= new CsvFileWriter(this.path, [...this.keep.map((i) => this.header[i]!), ...TRAILING], this.dialect);
    const cells = row.original as string[];
    await this.csv.write([...this.keep.map((i) => cells[i] ?? ''), csvSafe(row.error), row.completedSteps]);
  }

  async close(): Promise<void> {
    await this.xlsx?.close();
    await this.ownBooks?.close();
    if (this.csv) await this.csv.close();
    if (this.jsonl) await finish(this.jsonl);
  }

  get written(): boolean {
    return this.count > 0;
  }
}

function jsonlLine(row: FailedRow): string {
  const text = row.original as string;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // A line that is not JSON goes back exactly as it was, for the user to fix; its error is in results.csv.
    return text;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  return JSON.stringify({ ...(value as object), error: row.error, completedSteps: row.completedSteps });
}
