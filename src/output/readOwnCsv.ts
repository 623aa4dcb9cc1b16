import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { csvUnguard } from '../core/formulaGuard.js';

/**
 * The lines of a CSV file this tool wrote (results.csv, status.csv), by column, each cell as it was before it was
 * written: the `'` the formula guard put before `=cmd` (csvSafe) comes off here, where the file is read back, so no
 * reader shows or looks up a payer by the guarded text. One line in memory at a time.
 */
export async function* readOwnCsv(path: string): AsyncGenerator<Record<string, string>> {
  const parser = createReadStream(path).pipe(parse({ columns: true, relax_column_count: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    for (const column of Object.keys(record)) record[column] = csvUnguard(record[column] ?? '');
    yield record;
  }
}
