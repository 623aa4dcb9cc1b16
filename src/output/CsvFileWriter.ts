import { createWriteStream, chmodSync, openSync, type WriteStream } from 'node:fs';
import { stringify, type Stringifier } from 'csv-stringify';

/**
 * Creates (or truncates) a file only its owner can read: results and failed rows hold personal data.
 * The mode is forced after opening too, because `mode` is ignored when the file already existed.
 */
export function openPrivateFile(path: string): WriteStream {
  const fd = openSync(path, 'w', 0o600);
  chmodSync(path, 0o600);
  return createWriteStream(path, { fd, encoding: 'utf8' });
}

/** Ends a stream and waits until everything is on disk. */
export function finish(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.end(() => resolve());
  });
}

// A spreadsheet runs a cell as a formula when it starts with `=`, `@`, a tab or CR, or `+`/`-` (a signed number such as
// `-5` or a phone `+12175550100` is only a number, so those stay as they are). A value that already starts with `'`
// before one of them gets another, so that reading back takes off exactly the one added.
const FORMULA = /^'*(?:[=@\t\r]|[+-](?!\d))/;
const GUARDED = /^''*(?:[=@\t\r]|[+-](?!\d))/;

/**
 * Guards a cell of a file the tool writes (results.csv, status.csv, the `error` column) against CSV/formula injection:
 * a cell that a spreadsheet would run as a formula gets a leading `'`, which spreadsheets show as text.
 */
export function csvSafe(value: string): string {
  // Only a cell starting with one of `'=@+-`, a tab or CR can be one: most cells are tested by their first character.
  return FIRST_CHARACTERS.has(value.charCodeAt(0)) && FORMULA.test(value) ? `'${value}` : value;
}

const FIRST_CHARACTERS: ReadonlySet<number> = new Set([..."'=@+-\t\r"].map((c) => c.charCodeAt(0)));

/** The inverse of csvSafe, for a file of ours read back: the `'` it put before a formula character goes. */
export function csvUnguard(value: string): string {
  return GUARDED.test(value) ? value.slice(1) : value;
}

/** A CSV file written row by row, mode 0600, in a given dialect. */
export class CsvFileWriter {
  private readonly stringifier: Stringifier;
  private readonly done: Promise<void>;
  /** The first error of the file or the stringifier (disk full, file too large): every later write rethrows it. */
  private error: Error | undefined;

  constructor(
    readonly path: string,
    header: readonly string[],
    dialect: { delimiter?: string; eol?: string; bom?: boolean } = {},
  ) {
    const file = openPrivateFile(path);
    this.stringifier = stringify({
      delimiter: dialect.delimiter ?? ',',
      record_delimiter: dialect.eol === '\r\n' ? 'windows' : 'unix',
      bom: dialect.bom ?? false,
    });
    this.stringifier.pipe(file);
    this.done = new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        this.error ??= error;
        reject(error);
      };
      file.once('finish', resolve);
      file.once('error', fail);
      this.stringifier.once('error', fail);
    });
    this.done.catch(() => {}); // surfaced by write() and close(), not as an unhandled rejection
    this.stringifier.write([...header]);
  }

  /** Writes a record; resolves when the stream can take more (so a slow disk slows the run rather than memory). */
  async write(record: readonly string[]): Promise<void> {
    if (this.error) throw this.error;
    if (!this.stringifier.write([...record])) {
      // Wait for room, or for the error that means there will never be any.
      await Promise.race([new Promise<void>((resolve) => this.stringifier.once('drain', resolve)), this.done]);
      if (this.error) throw this.error;
    }
  }

  async close(): Promise<void> {
    this.stringifier.end();
    await this.done;
  }
}
