import { inputFile, type InputFile, type OpenedInput, type ReadingOptions } from './InputFile.js';
import { readCsv } from './readCsv.js';
import { readJsonl } from './readJsonl.js';
import { readXlsx } from './readXlsx.js';

export interface OpenOptions extends ReadingOptions {
  /** xlsx: the sheet to read (`--sheet`, or a `Bank details` sheet); the first sheet otherwise. */
  sheet?: string | undefined;
}

/**
 * Opens an input file by its extension; rejects what cannot be read with an InputError (exit 2).
 * Given the InputFile of an earlier opening, reads it the same way again (same sheet, same encoding): pass 2.
 */
export async function openInput(target: string | InputFile, options: OpenOptions = {}): Promise<OpenedInput> {
  const file = typeof target === 'string' ? inputFile(target) : target;
  const reading: ReadingOptions = { columns: options.columns, dateFormat: options.dateFormat };
  if (file.format === 'xlsx')
    return { ...(await readXlsx(file, options.sheet === undefined ? {} : { sheet: options.sheet })), reading };
  return { ...(await (file.format === 'jsonl' ? readJsonl(file) : readCsv(file))), reading };
}
