import type { Readers } from '../core/advice.js';
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Parser, parse } from 'csv-parse';
import { asInputError, LineTracker, next, type ParsedRow, RecordPuller } from './csvRecords.js';
import { InputError } from '../core/errors.js';
import type { ColumnMap } from '../rows/columns.js';
import {
  chooseHeader,
  HEADER_SEARCH_ROWS,
  isBlankRow,
  isHeaderRow,
  isRowFileHeader,
  notAPayerRow,
  SkippedRows,
} from '../rows/findData.js';
import { csvUnguard } from '../core/formulaGuard.js';
import type { Cell, RowIssue } from '../core/types.js';
import { DecodeText, encodingFromBom, encodingAhead, detectDialect } from './decodeText.js';
import {
  type CsvDialect,
  MAX_CELL_LENGTH,
  MAX_COLUMNS,
  MAX_RECORD_SIZE,
  type InputFile,
  unreadable,
  type OpenedInput,
  type RawRecord,
} from './InputFile.js';

interface CsvOptions {
  columns?: ColumnMap | undefined;
  encoding?: string | undefined;
  readers?: Readers | undefined;
}

/** A file being parsed: what reading its header and then its rows share. */
interface CsvReading {
  file: InputFile;
  bytes: ReadStream;
  decoder: DecodeText;
  parser: Parser;
  iterator: RecordPuller;
  lines: LineTracker;
  skipped: SkippedRows;
  /** Filled as the file is read: the encoding's warning at its end, the skipped rows' once the rows are all read. */
  warnings: string[];
}

type ParsedRecord = { record: string[]; start: number };

/** The header found among the first rows, and those rows (the ones below it are the first data rows). */
interface CsvHeader {
  top: ParsedRecord[];
  index: number;
  header: string[];
  /** A failed or pending file of ours: the `'` csvSafe put before a formula comes off each cell. */
  ours: boolean;
  notPayer: (cells: readonly string[]) => RowIssue | undefined;
}

/**
 * Opens a CSV/TSV file as spreadsheets export it: UTF-8 with or without BOM, UTF-16 with BOM or a single-byte encoding
 * (DecodeText), `,` `;` or tab, CRLF or LF, quoted fields with delimiters, quotes and newlines inside. Every value
 * stays the string as written. Streams: only the current record is in memory.
 * A file that is not UTF-8 adds one warning to `warnings` once read to the end, and its failed file gets a BOM
 * (it is written in UTF-8, which only a BOM tells Excel).
 */
export async function readCsv(file: InputFile, options: CsvOptions = {}): Promise<OpenedInput> {
  const headBytes = await readHead(file);
  // Only for the empty check and the delimiter guess: a Windows-1252 byte read as U+FFFD changes neither.
  const head = new TextDecoder(encodingFromBom(headBytes) ?? 'utf-8').decode(headBytes);
  const { size } = await stat(file.path);
  if (head.trim() === '' || head.replace(/^\uFEFF/, '').trim() === '') {
    throw new InputError(file.name, 'is empty: expected a header line and at least one row');
  }
  // Found before the first row, on every first opening: a file read once only (validate) needs it before its first
  // failed row is written, and a file that no encoding reads is refused at this point whichever command reads it, not
  // here by one and at its first damaged row by another.
  if (file.encoding === undefined && encodingFromBom(headBytes) === undefined)
    file.encoding = await encodingAhead(file.name, file.path, options.encoding, options.readers);
  const dialect = detectDialect(head, file.format === 'tsv' ? 'tsv' : 'csv', head.charCodeAt(0) === 0xfeff);
  const reading = startParsing(file, dialect, options);
  const found = await findHeader(reading, options.columns);
  const { decoder } = reading;
  dialect.bom = decoder.hadBom;
  // Pass 2 knows the encoding from pass 1: a Windows-1252 file's failed rows need their BOM before the first non-ASCII byte.
  if (decoder.hadBom || decoder.encoding !== 'utf-8' || (file.encoding ?? 'utf-8') !== 'utf-8') dialect.bom = true;
  return {
    file,
    header: found.header,
    headerLine: found.top[found.index]!.start,
    dialect,
    records: records(reading, found),
    count: (every) => countRows(reading, found, every),
    warnings: reading.warnings,
    position: () => ({ read: reading.bytes.bytesRead, size }),
  };
}

/** Pipes the file's bytes through DecodeText into csv-parse; nothing is read until a record is asked for. */
function startParsing(file: InputFile, dialect: CsvDialect, options: CsvOptions): CsvReading {
  const { encoding, readers } = options;
  const decoder = new DecodeText(file.name, { path: file.path, encoding, known: file.encoding, readers });
  const warnings: string[] = [];
  // Listened to before the first read: a small file can be decoded to its end while the header is parsed.
  decoder.on('end', () => {
    file.encoding = decoder.encoding;
    const warning = decoder.warning();
    if (warning) warnings.push(warning);
  });
  const bytes = createReadStream(file.path);
  const parser: Parser = bytes
    .on('error', (cause) =>
      parser.destroy(new InputError(file.name, `cannot be read (${(cause as NodeJS.ErrnoException).code})`, { cause })),
    )
    .pipe(decoder)
    .on('error', (error) => parser.destroy(error))
    .pipe(
      parse({
        bom: true,
        delimiter: dialect.delimiter,
        relax_column_count: true,
        // Skipped by the parser, counted by LineTracker from `info`, and reported with the rows of only delimiters.
        skip_empty_lines: true,
        info: true,
        max_record_size: MAX_RECORD_SIZE,
      }),
    );
  const skipped = new SkippedRows(file.name);
  return {
    file,
    bytes,
    decoder,
    parser,
    iterator: new RecordPuller(parser),
    lines: new LineTracker((first, count) => skipped.blank(first, count)),
    skipped,
    warnings,
  };
}

/** The header is the first row naming fields among the first rows; a title or notes above it are passed over. */
async function findHeader(reading: CsvReading, columns: ColumnMap | undefined): Promise<CsvHeader> {
  const { file, iterator, lines } = reading;
  const top: ParsedRecord[] = [];
  while (top.length < HEADER_SEARCH_ROWS) {
    const parsed = await next(iterator, file.name, lines);
    if (parsed === undefined) break;
    if (isBlankRow(parsed.record)) continue;
    // Each cell of a row here is matched against the fields, and a header's columns are listed and checked one by
    // one: a line of four million commas held gigabytes.
    if (parsed.record.length > MAX_COLUMNS)
      throw new InputError(
        file.name,
        `has ${parsed.record.length.toLocaleString('en-US')} cells on this line, more than the ${MAX_COLUMNS.toLocaleString('en-US')} columns a spreadsheet holds: check that its separator is the one the file uses`,
        { line: parsed.start },
      );
    top.push(parsed);
    if (isHeaderRow(parsed.record, columns)) break;
  }
  if (top.length === 0) throw new InputError(file.name, 'is empty: expected a header line and at least one row');
  const { index } = chooseHeader(
    top.map((row) => row.record),
    columns,
  );
  const first = top[index]!;
  if (index > 0) reading.skipped.aboveHeader(index, first.start);
  // The `'` before a formula comes off only in a failed or pending file of ours (it has the `error` and
  // `completedSteps` columns those add): there it is always the one csvSafe added (a value that had one got another),
  // so each cell reaches the service as the original input had it. In a person's own file a leading `'` is what they
  // typed, and is sent as typed.
  const ours = isRowFileHeader(first.record, columns);
  const header = first.record.map((h) => (ours ? csvUnguard(h.trim()) : h.trim()));
  if (header.every((h) => h === '')) throw new InputError(file.name, 'has no usable header', { line: first.start });
  reading.skipped.forgetBlanks();
  return { top, index, header, ours, notPayer: notAPayerRow(header, columns) };
}

/**
 * The rows below the header. An iterator, not a generator: a record the parser has ready is handed on at once,
 * without a generator's steps and awaits, which cost more than checking many a row.
 */
function records(reading: CsvReading, found: CsvHeader): AsyncIterableIterator<RawRecord> {
  const { file, parser, iterator, lines, skipped, warnings } = reading;
  const { header, ours, notPayer } = found;
  const above = found.top.slice(found.index + 1);
  let taken = 0;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    parser.destroy();
  };
  const row = (record: string[], start: number): IteratorResult<RawRecord> => ({
    done: false,
    value: toRawRecord(ours ? unguarded(record) : record, start, header, notPayer),
  });
  // Waits for the parser; at the end, what the reading skipped becomes warnings.
  const later = async (): Promise<IteratorResult<RawRecord>> => {
    for (;;) {
      let parsed: ParsedRecord | undefined;
      try {
        parsed = await next(iterator, file.name, lines);
      } catch (error) {
        close();
        throw error;
      }
      if (parsed === undefined) {
        warnings.push(...skipped.warnings());
        close();
        return { done: true, value: undefined };
      }
      if (isBlankRow(parsed.record)) skipped.blank(parsed.start);
      else return row(parsed.record, parsed.start);
    }
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (closed) return Promise.resolve({ done: true, value: undefined });
      if (taken < above.length) {
        const first = above[taken++]!;
        return Promise.resolve(row(first.record, first.start));
      }
      for (;;) {
        let parsed: ParsedRow | undefined;
        try {
          parsed = iterator.read();
        } catch (error) {
          close();
          return Promise.reject(asInputError(error, file.name, lines));
        }
        if (parsed === undefined) return later();
        const start = lines.startOf(parsed);
        if (isBlankRow(parsed.record)) skipped.blank(start);
        else return Promise.resolve(row(parsed.record, start));
      }
    },
    async return() {
      close();
      return { done: true, value: undefined };
    },
  };
}

/** The rows `records` would give, counted without making them: a check pass needs no cells. */
async function countRows(reading: CsvReading, found: CsvHeader, every: (rows: number) => void): Promise<number> {
  const { file, parser, iterator, lines, skipped } = reading;
  let rows = found.top.length - found.index - 1;
  try {
    for (;;) {
      const parsed = await next(iterator, file.name, lines);
      if (parsed === undefined) break;
      if (isBlankRow(parsed.record)) skipped.blank(parsed.start);
      else if ((++rows & 1023) === 0) every(rows);
    }
    reading.warnings.push(...skipped.warnings());
  } finally {
    parser.destroy();
  }
  return rows;
}

function toRawRecord(
  record: string[],
  line: number,
  header: string[],
  notPayer: (cells: readonly string[]) => RowIssue | undefined,
): RawRecord {
  const raw = new CsvRecord(line, record, header);
  const notAPayer = notPayer(record);
  if (notAPayer) {
    raw.problem = notAPayer;
    return raw;
  }
  if (record.length !== header.length) {
    // Even one extra empty cell is refused: a stray delimiter inside an unquoted cell (`Smith, John`) shifts every
    // cell after it and pushes the blank last column out, and the shifted values could still look valid.
    raw.problem = {
      column: '(row)',
      message: `has ${record.length} cells but the header has ${header.length}: check for a missing or extra delimiter`,
    };
    return raw;
  }
  for (let i = 0; i < record.length; i++) {
    const length = record[i]!.length;
    if (length <= MAX_CELL_LENGTH) continue;
    raw.problem = { column: header[i] || '(row)', message: `is ${length} characters long, at most ${MAX_CELL_LENGTH}` };
    break;
  }
  return raw;
}

/**
 * A CSV record: its values are the header's cells in order, so they are checked as they are (`values`), and the cells
 * by column are only made for the rare reader that wants them.
 */
class CsvRecord implements RawRecord {
  problem?: RowIssue;

  constructor(
    readonly line: number,
    readonly original: string[],
    private readonly header: readonly string[],
  ) {}

  get values(): readonly string[] | undefined {
    return this.problem === undefined ? this.original : undefined;
  }

  get cells(): Cell[] {
    return this.header.map((column, i) => ({ column, value: this.original[i] ?? '' }));
  }
}

/** Takes off the `'` csvSafe put before a formula, cell by cell; in place, since the record is the parser's copy. */
function unguarded(record: string[]): string[] {
  for (let i = 0; i < record.length; i++) if (record[i]!.charCodeAt(0) === 39) record[i] = csvUnguard(record[i]!);
  return record;
}

async function readHead(file: InputFile): Promise<Buffer> {
  const stream = createReadStream(file.path, { start: 0, end: 64 * 1024 - 1 });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (cause) {
    throw unreadable(file, cause);
  }
  return Buffer.concat(chunks);
}
