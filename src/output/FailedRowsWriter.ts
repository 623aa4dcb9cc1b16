import type { CsvDialect, InputFile } from '../input/InputFile.js';
import { RowFiles, type RowFileRow, type RowFileSet } from './RowFiles.js';

/**
 * Transitional: the one-file API run.ts and sendRows.ts call until they route rows through RowFiles by outcome.
 * Every row it gets goes to the failed file, as before. Delete this file once nothing imports it.
 */
export class FailedRowsWriter {
  private readonly files: RowFiles;

  constructor(outDir: string, file: InputFile, header: string[] = [], dialect?: CsvDialect, set?: RowFileSet) {
    this.files = new RowFiles(outDir, file, header, dialect, set);
  }

  write(row: RowFileRow): Promise<void> {
    return this.files.write({ ...row, outcome: 'failed' });
  }

  close(): Promise<void> {
    return this.files.close();
  }

  get path(): string {
    return this.files.written().failed ?? '';
  }

  get written(): boolean {
    return this.files.written().failed !== undefined;
  }
}
