import { basename, extname, resolve } from 'node:path';
import { type CsvDialect, type InputFile, MAX_COLUMNS } from '../input/InputFile.js';
import { nestedTooDeep, withNote } from '../input/jsonLineProblem.js';
import type { Outcome } from '../core/types.js';
import { CsvFileWriter, finish, openPrivateFile } from './CsvFileWriter.js';
import { csvSafe } from '../core/formulaGuard.js';
import { formatErrors } from './results.js';
import { type RowFileRow, RowWorkbooks, type SheetColumns, type XlsxRowSheet } from './XlsxRowBooks.js';

/**
 * `failed`: a person must fix or act on the row (`invalid`, `failed`). `pending`: the tool finishes it by itself on a
 * later run (`waiting` on the payer, or `skipped` because the run stopped).
 */
export type RowFileKind = 'failed' | 'pending';

export const ROW_FILE_KINDS: readonly RowFileKind[] = ['failed', 'pending'];

/** The file a row goes to; an ok row goes to neither. */
function rowFileKind(outcome: Outcome): RowFileKind | undefined {
  if (outcome === 'invalid' || outcome === 'failed') return 'failed';
  if (outcome === 'waiting' || outcome === 'skipped') return 'pending';
  return undefined;
}

/**
 * The input's name without the `failed-`/`pending-` prefixes earlier runs put on it (`failed-pending-payers.csv` ->
 * `payers.csv`): the files of a re-fed file are named after the original, and so is its rows' `source`.
 */
function originalName(fileName: string): string {
  const stripped = fileName.replace(/^(?:failed-|pending-)+/i, '');
  return stripped === '' ? fileName : stripped;
}

const EXTENSIONS: Record<InputFile['format'], RegExp> = {
  csv: /\.(?:csv|txt|tsv)$/i,
  tsv: /\.(?:csv|txt|tsv)$/i,
  jsonl: /\.(?:jsonl|ndjson)$/i,
  xlsx: /\.xlsx$/i,
};

/**
 * The name with an extension that says what the file holds: a workbook that came named `payers.csv` gets its failed
 * rows in `failed-payers.xlsx`, so the mistake is not passed on.
 */
function namedAsWritten(fileName: string, format: InputFile['format']): string {
  if (EXTENSIONS[format].test(fileName) || !Object.values(EXTENSIONS).some((ext) => ext.test(fileName)))
    return fileName;
  return `${fileName.slice(0, -extname(fileName).length)}.${format === 'tsv' ? 'csv' : format}`;
}

/** The two columns these files add; given back as input, `error` is ignored and `completedSteps` is honoured. */
const TRAILING = ['error', 'completedSteps'] as const;

/** Which of the two columns these files add the column is, however its name is spelt; undefined for neither. */
function trailingKey(column: string): (typeof TRAILING)[number] | undefined {
  const key = column.toLowerCase().replace(/[\s_.-]/g, '');
  return key === 'error' ? 'error' : key === 'completedsteps' ? 'completedSteps' : undefined;
}

/**
 * A sheet's columns where they were, `error` and `completedSteps` where a failed file fed back had them (so a file
 * fixed and run again keeps its layout), else right after the last; none past Excel's last column.
 */
function sheetColumns(
  header: readonly string[],
  positions: readonly number[] | undefined,
  keep: number[],
): SheetColumns {
  const at = (i: number) => positions?.[i] ?? i;
  let end = header.length === 0 ? 0 : at(header.length - 1) + 1;
  const place = (name: (typeof TRAILING)[number]) => {
    const i = header.findIndex((column) => trailingKey(column) === name);
    if (i >= 0) return at(i);
    return end < MAX_COLUMNS ? end++ : undefined;
  };
  const error = place('error');
  const completedSteps = place('completedSteps');
  // Both or neither: a note on the first cell says both when one has no room.
  const room = error !== undefined && completedSteps !== undefined;
  return {
    names: keep.map((i) => header[i]!),
    positions: keep.map(at),
    error: room ? error : undefined,
    completedSteps: room ? completedSteps : undefined,
  };
}

export type NotOkRow = RowFileRow & { outcome: Outcome };

/**
 * What the failed and pending files of one run share: their names, so that no two inputs write to one file and none
 * overwrites an input (`run out/failed-payers.csv --out out` would otherwise truncate the file it reads), and the
 * .xlsx workbooks, one per input workbook and kind. `close()` after the last input.
 */
export class RowFileSet {
  private readonly taken = new Set<string>();
  readonly workbooks = new RowWorkbooks();

  /** `inputs`: every file the run reads, so none of them is chosen as an output's name. */
  constructor(inputs: readonly string[] = []) {
    for (const path of inputs) this.protect(path);
  }

  protect(path: string): void {
    this.taken.add(resolve(path));
  }

  /** `failed-payers.csv`, or `failed-payers-2.csv` when that name is an input or already another input's file. */
  claim(outDir: string, kind: RowFileKind, fileName: string): string {
    const name = `${kind}-${originalName(fileName)}`;
    const ext = extname(name);
    let path = resolve(outDir, name);
    for (let n = 2; this.taken.has(path); n++)
      path = resolve(outDir, `${name.slice(0, name.length - ext.length)}-${n}${ext}`);
    this.taken.add(path);
    return path;
  }

  close(): Promise<void> {
    return this.workbooks.close();
  }
}

/**
 * The rows of one input that are not ok, each in exactly one of `failed-<name>` and `pending-<name>`: the input's
 * own format and dialect, its header and original cell text unchanged, plus `error` and `completedSteps`, so the file
 * runs again as it is. A CSV file's cell that a spreadsheet would run as a formula is guarded with a `'` (csvSafe),
 * which the reader takes off again for a file with these two columns. Each file is created on its first row: a clean
 * input leaves no empty file behind.
 */
export class RowFiles {
  private readonly files: Record<RowFileKind, RowFile>;
  /** Set when no run-wide set was given: this input's files are then named and closed on their own. */
  private readonly ownSet: RowFileSet | undefined;

  /** `positions`: a sheet's, where each of the header's columns is (from 0 for A); by default one after another. */
  constructor(
    outDir: string,
    file: InputFile,
    header: string[] = [],
    dialect?: CsvDialect,
    set?: RowFileSet,
    positions?: readonly number[],
  ) {
    if (set === undefined) this.ownSet = set = new RowFileSet();
    set.protect(file.path);
    // An earlier file's error/completedSteps pair is not the input's own: this run writes its own.
    const keep = header.map((_, i) => i).filter((i) => trailingKey(header[i]!) === undefined);
    const ownColumns = keep.map((i) => header[i]!);
    // An xlsx input's name may carry its sheet (`payers.xlsx[Bank details]`); its workbook is named after the file.
    const fileName = namedAsWritten(file.format === 'xlsx' ? basename(file.path) : file.name, file.format);
    const columns = file.format === 'xlsx' ? sheetColumns(header, positions, keep) : undefined;
    const make = (kind: RowFileKind) => {
      const place = () => set.claim(outDir, kind, fileName);
      const sheet =
        columns === undefined
          ? undefined
          : set.workbooks.sheet(`${kind}\0${resolve(file.path)}`, place, file.sheet ?? 'Sheet1', columns);
      return new RowFile(file.format === 'jsonl' ? 'jsonl' : 'csv', place, keep, ownColumns, dialect, sheet);
    };
    this.files = { failed: make('failed'), pending: make('pending') };
  }

  /** Routes the row by its outcome; an ok row is written nowhere. */
  async write(row: NotOkRow): Promise<void> {
    const kind = rowFileKind(row.outcome);
    if (kind !== undefined) await this.files[kind].write(row);
  }

  /** Closes every file, even after one failed (what the others hold is still written); then gives the first error. */
  async close(): Promise<void> {
    const closed = await Promise.allSettled(ROW_FILE_KINDS.map((kind) => this.files[kind].close()));
    await this.ownSet?.close();
    const failed = closed.find((c) => c.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** The files this input's rows were written to. An .xlsx input's sheets share one workbook per kind. */
  written(): Partial<Record<RowFileKind, string>> {
    const paths: Partial<Record<RowFileKind, string>> = {};
    for (const kind of ROW_FILE_KINDS) {
      const path = this.files[kind].path;
      if (path !== undefined) paths[kind] = path;
    }
    return paths;
  }

  get count(): Record<RowFileKind, number> {
    return { failed: this.files.failed.count, pending: this.files.pending.count };
  }
}

/** One of the two files of an input, in its format. */
class RowFile {
  private csvPath: string | undefined;
  private csv: CsvFileWriter | undefined;
  private jsonl: NodeJS.WritableStream | undefined;
  private jsonlError: Error | undefined;
  count = 0;

  constructor(
    private readonly format: 'csv' | 'jsonl',
    private readonly place: () => string,
    private readonly keep: number[],
    private readonly columns: string[],
    private readonly dialect: CsvDialect | undefined,
    private readonly xlsx: XlsxRowSheet | undefined,
  ) {}

  get path(): string | undefined {
    return this.count === 0 ? undefined : (this.xlsx?.path ?? this.csvPath);
  }

  async write(row: RowFileRow): Promise<void> {
    this.count++;
    if (this.xlsx) return this.xlsx.write(row, this.keep);
    this.csvPath ??= this.place();
    if (this.format === 'jsonl') {
      if (this.jsonl === undefined) {
        this.jsonl = openPrivateFile(this.csvPath);
        this.jsonl.on('error', (error: Error) => (this.jsonlError ??= error));
      }
      if (this.jsonlError) throw this.jsonlError;
      this.jsonl.write(`${jsonlLine(row)}\n`);
      return;
    }
    // The input's cells go to a finance person's spreadsheet: a `=cmd|...` cell must open as text, not run.
    this.csv ??= new CsvFileWriter(this.csvPath, [...this.columns.map(csvSafe), ...TRAILING], this.dialect);
    const cells = row.original as string[];
    await this.csv.write([
      ...this.keep.map((i) => csvSafe(cells[i] ?? '')),
      csvSafe(formatErrors(row.errors)),
      csvSafe(row.completedSteps),
    ]);
  }

  async close(): Promise<void> {
    await this.xlsx?.close();
    if (this.csv) await this.csv.close();
    if (this.jsonl) await finish(this.jsonl);
  }
}

/**
 * The row's line with its error and completedSteps; no formula guard, since spreadsheets do not open JSON as cells.
 * A line that is not a JSON object carries them too, in a note at its start (withNote): whoever fixes the line sees
 * why it failed, and the fixed line is an object with the two keys like any other failed line's.
 */
function jsonlLine(row: RowFileRow): string {
  const text = row.original as string;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  // A line nested deeper than a row can is written back as it came, with the note: never walked again.
  if (value === null || typeof value !== 'object' || Array.isArray(value) || nestedTooDeep(value))
    return withNote(text, formatErrors(row.errors), row.completedSteps);
  return JSON.stringify({ ...(value as object), error: formatErrors(row.errors), completedSteps: row.completedSteps });
}
