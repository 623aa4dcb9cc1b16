import type { Readable } from 'node:stream';
import { CsvError } from 'csv-parse';
import { InputError } from '../core/errors.js';
import { MAX_RECORD_SIZE } from './InputFile.js';

// How readCsv takes records from csv-parse: straight from its buffer, each with the line it starts on, and its
// errors as InputErrors that name the line.

export async function next(
  iterator: RecordPuller,
  source: string,
  lines: LineTracker,
): Promise<{ record: string[]; start: number } | undefined> {
  let parsed: ParsedRow | undefined;
  try {
    parsed = iterator.read() ?? (await iterator.next());
  } catch (error) {
    throw asInputError(error, source, lines);
  }
  if (parsed === undefined) {
    lines.end(iterator.emptyLines());
    return undefined;
  }
  return { record: parsed.record, start: lines.startOf(parsed) };
}

/** A record as csv-parse hands it on with `info`: its cells, and how many empty lines it has skipped so far. */
export interface ParsedRow {
  record: string[];
  info: { empty_lines: number };
}

/**
 * The parser's records pulled straight from its buffer, waiting only when it is empty: a stream's async iterator
 * costs a promise and a generator step per record, more than parsing many a row.
 */
export class RecordPuller {
  private ended = false;
  private failed: Error | undefined;
  /** Every call waiting for the parser (one, when records are read one after the other, as everything does). */
  private waiting: (() => void)[] = [];

  constructor(private readonly parser: Readable) {
    const rouse = () => {
      for (const wake of this.waiting.splice(0)) wake();
    };
    parser.on('readable', rouse);
    parser.on('end', () => {
      this.ended = true;
      rouse();
    });
    parser.on('error', (error: Error) => {
      this.failed = error;
      rouse();
    });
  }

  /** The next record already parsed, without waiting; undefined when there is none yet. */
  read(): ParsedRow | undefined {
    if (this.failed) throw this.failed;
    if (this.parser.destroyed) return undefined;
    return (this.parser.read() as ParsedRow | null) ?? undefined;
  }

  /** The empty lines the parser skipped in all, at the end of the file: those after the last record. */
  emptyLines(): number {
    return (this.parser as unknown as { info: { empty_lines: number } }).info.empty_lines;
  }

  /** The next record, waiting for the parser; undefined at the end. */
  async next(): Promise<ParsedRow | undefined> {
    for (;;) {
      const record = this.read();
      if (record !== undefined || this.ended) return record;
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
      });
    }
  }
}

export function asInputError(error: unknown, source: string, lines: LineTracker): Error {
  if (error instanceof InputError) return error;
  if (error instanceof CsvError) {
    // The empty lines before the record it stopped in are counted only when a record follows them: here, from its own.
    const empties = (error as unknown as { empty_lines?: number }).empty_lines;
    if (typeof empties === 'number') lines.skip(empties);
    const after = lines.lastEnd + 1;
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
      return new InputError(source, 'a quoted field opened here is never closed: check for a stray `"`', {
        line: after,
        cause: error,
      });
    }
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      return new InputError(
        source,
        `a record here is larger than ${MAX_RECORD_SIZE / 1024 / 1024} MB: check for a stray \`"\``,
        {
          line: after,
          cause: error,
        },
      );
    }
    if (error.code === 'CSV_INVALID_CLOSING_QUOTE' || error.code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE') {
      return new InputError(
        source,
        'a quote is followed by other text inside a quoted field: double the quote (`""`) or remove it',
        { ...parserPlace(error, after), cause: error },
      );
    }
    if (error.code === 'INVALID_OPENING_QUOTE') {
      return new InputError(
        source,
        'a quote inside a cell that does not start with one: put the whole cell in quotes and double the quote (`""`), or remove it',
        { ...parserPlace(error, after), cause: error },
      );
    }
    // csv-parse's own messages quote the cell they stopped at, which may hold personal data: its code only.
    return new InputError(source, `cannot be parsed as CSV (${error.code})`, { line: after, cause: error });
  }
  // Not the parser's nor the decoder's (those are InputErrors): named by its code, its message may quote the file.
  const code = (error as NodeJS.ErrnoException).code;
  return new InputError(source, `cannot be read${code === undefined ? '' : ` (${code})`}`, { cause: error });
}

/** Where csv-parse stopped: its line (never before the record's), and its field as the column. */
function parserPlace(error: CsvError, after: number): { line: number; column?: number } {
  const { column, lines } = error as unknown as { column?: number; lines?: number };
  return { line: Math.max(after, lines ?? after), ...(typeof column === 'number' ? { column: column + 1 } : {}) };
}

/**
 * The line each record starts on, which is the one users look for: the line after the previous record's end, past
 * the empty lines csv-parse skipped before it, plus the breaks inside its quoted cells (CRLF counted once). Empty lines
 * are skipped by the parser, not handed on as blank records: csv-parse builds an error object for each record shorter
 * than the first, even when told to let it through, and a file of millions of empty lines took minutes. Its count of
 * them (`info.empty_lines`) is exact; its count of lines is not (a CRLF inside a quoted field counts as two).
 */
export class LineTracker {
  lastEnd = 0;
  /** The parser's running count of empty lines, as far as they are accounted for. */
  private empties = 0;

  /** `onBlank`: the empty lines skipped before a record (or at the end), the first of them and how many. */
  constructor(private readonly onBlank: (first: number, count: number) => void = () => {}) {}

  startOf({ record, info }: ParsedRow): number {
    this.skip(info.empty_lines);
    let breaks = 0;
    for (const cell of record) {
      if (cell.includes('\n') || cell.includes('\r')) breaks += cell.match(/\r\n|\r|\n/g)?.length ?? 0;
    }
    const start = this.lastEnd + 1;
    this.lastEnd = start + breaks;
    return start;
  }

  /**
   * At the end of the file: csv-parse counts the nothing after a file's last line break as one more empty line, which
   * no editor shows; it is not reported.
   */
  end(emptyLines: number): void {
    if (emptyLines > this.empties) this.skip(emptyLines - 1);
  }

  /** Accounts for the empty lines the parser skipped up to `emptyLines`, its running count. */
  skip(emptyLines: number): void {
    const count = emptyLines - this.empties;
    if (count <= 0) return;
    this.onBlank(this.lastEnd + 1, count);
    this.lastEnd += count;
    this.empties = emptyLines;
  }
}
