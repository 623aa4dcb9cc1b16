import { once } from 'node:events';
import { createWriteStream, chmodSync, openSync, type WriteStream } from 'node:fs';

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

/** Records handed to the file together at most. */
const MAX_BATCH = 512;
/**
 * How long a record may wait for others. A write to the file stream costs about a tenth of a millisecond of CPU
 * however little it carries: a run at full speed that wrote at the end of every turn of the event loop (a few
 * rows each) spent more on its results file than on deciding its rows.
 */
const MAX_WAIT_MS = 100;

/**
 * A record as one line of the dialect, as csv-stringify writes it: a cell holding the delimiter, a quote, or a CR or
 * LF anywhere is quoted, its quotes doubled; any other cell is written as it is. A lone CR or LF is quoted too (which
 * csv-stringify does for the record delimiter only): in a CRLF file a cell with a bare newline would split the row
 * for any other reader, and what follows could start a row (`=...`). csv-stringify itself took a fifth of the time
 * of a run whose every row was invalid (a failed-file line of 28 cells each): it looks at its options for every cell.
 */
function csvLine(record: readonly string[], delimiter: string, special: RegExp, eol: string): string {
  let line = '';
  for (let i = 0; i < record.length; i++) {
    const cell = record[i] ?? '';
    if (i > 0) line += delimiter;
    line += special.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  }
  return line + eol;
}

/**
 * A CSV file written row by row, mode 0600, in a given dialect. Each record is turned into its line as it comes
 * (a later change to the array changes nothing); the lines go to the file together, at most a tenth of a second
 * after the first of them or once there are MAX_BATCH, in one write instead of a stream step and a write for every
 * record (validate writes a million).
 */
export class CsvFileWriter {
  private readonly file: WriteStream;
  private readonly delimiter: string;
  private readonly eol: string;
  /** What makes a cell quoted: the delimiter, a quote, a CR or an LF. */
  private readonly special: RegExp;
  /** The lines not yet handed to the file (a byte order mark first, in a file that has one). */
  private lines: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly done: Promise<void>;
  /** The first error of the file: every later write rethrows it. */
  private error: Error | undefined;

  constructor(
    readonly path: string,
    header: readonly string[],
    dialect: { delimiter?: string; eol?: string; bom?: boolean } = {},
  ) {
    this.file = openPrivateFile(path);
    this.delimiter = dialect.delimiter ?? ',';
    this.eol = dialect.eol === '\r\n' ? '\r\n' : '\n';
    const delimiter = this.delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.special = new RegExp(`["\\r\\n]|${delimiter}`);
    this.done = new Promise((resolve, reject) => {
      this.file.once('finish', resolve);
      this.file.once('error', (error: Error) => {
        this.error ??= error;
        reject(error);
      });
    });
    this.done.catch(() => {}); // surfaced by write() and close(), not as an unhandled rejection
    this.lines.push((dialect.bom ? '\uFEFF' : '') + csvLine(header, this.delimiter, this.special, this.eol));
    this.flush();
  }

  /** Writes a record; resolves when the file can take more (so a slow disk slows the run rather than memory). */
  async write(record: readonly string[]): Promise<void> {
    if (this.error) throw this.error;
    this.lines.push(csvLine(record, this.delimiter, this.special, this.eol));
    if (this.lines.length >= MAX_BATCH) this.flush();
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
    if (this.lines.length === 0 || this.error || this.file.writableEnded) return;
    const lines = this.lines;
    this.lines = [];
    this.file.write(lines.join(''));
  }

  async close(): Promise<void> {
    this.flush();
    this.file.end();
    await this.done;
    if (this.error) throw this.error;
  }
}
