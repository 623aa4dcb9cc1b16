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
  let record: string[] | undefined;
  try {
    record = iterator.read() ?? (await iterator.next());
  } catch (error) {
    throw asInputError(error, source, lines);
  }
  if (record === undefined) return undefined;
  return { record, start: lines.startOf(record) };
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
  read(): string[] | undefined {
    if (this.failed) throw this.failed;
    if (this.parser.destroyed) return undefined;
    return (this.parser.read() as string[] | null) ?? undefined;
  }

  /** The next record, waiting for the parser; undefined at the end. */
  async next(): Promise<string[] | undefined> {
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
 * The line each record starts on, which is the one users look for: the line after the previous record's end, since
 * every record (a blank line too: empty lines are not skipped) ends at a line break, plus the breaks inside its
 * quoted cells (CRLF counted once). Counted here rather than asked of csv-parse (`info`), which builds an object of
 * a dozen fields per record and counts a CRLF inside a quoted field as two lines.
 */
export class LineTracker {
  lastEnd = 0;

  startOf(record: string[]): number {
    let breaks = 0;
    for (const cell of record) {
      if (cell.includes('\n') || cell.includes('\r')) breaks += cell.match(/\r\n|\r|\n/g)?.length ?? 0;
    }
    const start = this.lastEnd + 1;
    this.lastEnd = start + breaks;
    return start;
  }
}
