import { inputFile, type OpenedInput } from './InputFile.js';
import { readCsv } from './readCsv.js';
import { readJsonl } from './readJsonl.js';

/** Opens an input file by its extension; rejects what cannot be read with an InputError (exit 2). */
export async function openInput(path: string): Promise<OpenedInput> {
  const file = inputFile(path);
  return file.format === 'jsonl' ? readJsonl(file) : readCsv(file);
}
