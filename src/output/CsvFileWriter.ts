import { once } from 'node:events';
import { createWriteStream, chmodSync, openSync, type WriteStream } from 'node:fs';
import { stringify } from 'csv-stringify/sync';

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

/** Records turned into text together at most. */
const MAX_BATCH = 512;
/**
 * How long a record may wait for others. A write to the file stream costs about a tenth of a millisecond of CPU
 * however little it carries: a run at full speed that wrote at the end of every turn of the event loop (a few
 * rows each) spent more on its results file than on deciding its rows.
 */
const MAX_WAIT_MS = 100;

/**
 * A CSV file written row by row, mode 0600, in a given dialect. Records go to the file together, at most a tenth
 * of a second after the first of them or once there are MAX_BATCH: csv-stringify turns them into one string, and
 * the file takes one write, instead of a stream step and a write for every record (validate writes a million).
 */
export class CsvFileWriter {
  private readonly file: WriteStream;
  private readonly format: { delimiter: string; record_delimiter: 'windows' | 'unix'; quoted_match: RegExp };
  /** A byte order mark is still to go before the first record. */
  private bom: boolean;
  private records: string[][] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly done: Promise<void>;
  /** The first error of the file or of turning records into text: every later write rethrows it. */
  private error: Error | undefined;

  constructor(
    readonly path: string,
    header: readonly string[],
    dialect: { delimiter?: string; eol?: string; bom?: boolean } = {},
  ) {
    this.file = openPrivateFile(path);
    this.format = {
      delimiter: dialect.delimiter ?? ',',
      record_delimiter: dialect.eol === '\r\n' ? 'windows' : 'unix',
      // csv-stringify quotes a cell holding the record delimiter itself, not a lone CR or LF: in a CRLF file a cell
      // with a bare newline would split the row for any other reader, and what follows could start a row (`=...`).
      quoted_match: /[\r\n]/,
    };
    this.bom = dialect.bom ?? false;
    this.done = new Promise((resolve, reject) => {
      this.file.once('finish', resolve);
      this.file.once('error', (error: Error) => {
        this.error ??= error;
        reject(error);
      });
    });
    this.done.catch(() => {}); // surfaced by write() and close(), not as an unhandled rejection
    this.records.push([...header]);
    this.flush();
  }

  /** Writes a record; resolves when the file can take more (so a slow disk slows the run rather than memory). */
  async write(record: readonly string[]): Promise<void> {
    if (this.error) throw this.error;
    this.records.push([...record]);
    if (this.records.length >= MAX_BATCH) this.flush();
    // Not unref'd: a process that ends without close() still writes what waits (at most MAX_WAIT_MS later).
    else this.timer ??= setTimeout(() => this.flush(), MAX_WAIT_MS);
    if (this.file.writableNeedDrain) {
      // Wait for room, or for the error that means there will never be any.
      await Promise.race([once(this.file, 'drain'), this.done]).catch(() => undefined);
      if (this.error) throw this.error;
    }
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.records.length === 0 || this.error || this.file.writableEnded) return;
    const records = this.records;
    this.records = [];
    try {
      this.file.write(stringify(records, { ...this.format, bom: this.bom }));
      this.bom = false;
    } catch (error) {
      this.error ??= error as Error;
    }
  }

  async close(): Promise<void> {
    this.flush();
    this.file.end();
    await this.done;
    if (this.error) throw this.error;
  }
}
