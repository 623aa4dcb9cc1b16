import { stringify, type Stringifier } from 'csv-stringify';
import { finish, openPrivateFile } from './openPrivateFile.js';

/** A CSV file written row by row, mode 0600, in a given dialect. */
export class CsvFileWriter {
  private readonly stringifier: Stringifier;
  private readonly done: Promise<void>;

  constructor(readonly path: string, header: readonly string[], dialect: { delimiter?: string; eol?: string; bom?: boolean } = {}) {
    const file = openPrivateFile(path);
    this.stringifier = stringify({ delimiter: dialect.delimiter ?? ',', record_delimiter: dialect.eol === '\r\n' ? 'windows' : 'unix', bom: dialect.bom ?? false });
    this.stringifier.pipe(file);
    this.done = new Promise((resolve, reject) => {
      file.once('finish', resolve);
      file.once('error', reject);
      this.stringifier.once('error', reject);
    });
    this.stringifier.write([...header]);
  }

  /** Writes a record; resolves when the stream can take more (so a slow disk slows the run rather than memory). */
  async write(record: readonly string[]): Promise<void> {
    if (!this.stringifier.write([...record])) {
      await new Promise<void>((resolve) => this.stringifier.once('drain', resolve));
    }
  }

  async close(): Promise<void> {
    this.stringifier.end();
    await this.done;
  }
}

export { finish };
