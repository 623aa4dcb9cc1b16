import { loadColumnMap } from '../rows/columns.js';
import { type InputFile, inputFile, type OpenedInput, type ReadingOptions } from './InputFile.js';
import { readCsv } from './readCsv.js';
import { readJsonl } from './readJsonl.js';
import { readXlsx, sheetKey } from './readXlsx.js';

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
  const reading: ReadingOptions = {
    columns: options.columns,
    dateFormat: options.dateFormat,
    encoding: options.encoding,
  };
  if (file.format === 'xlsx')
    return { ...(await readXlsx(file, options.sheet === undefined ? {} : { sheet: options.sheet })), reading };
  return { ...(await (file.format === 'jsonl' ? readJsonl(file) : readCsv(file, options.encoding))), reading };
}

/** Sheet names that mean "bank accounts of the payers on the first sheet" (compared without case, spaces, `_-.`). */
const BANK_SHEETS = new Set([
  'bankdetails',
  'bankaccounts',
  'bankaccount',
  'paymentdetails',
  'bankinfo',
  'banks',
  'bank',
]);

/**
 * The sheet of a payers workbook that holds bank rows, read like a `--bank-details` file: one named like
 * `Bank details` other than the sheet the payers came from. Undefined for anything but an .xlsx input.
 */
export function bankSheetOf(input: OpenedInput): string | undefined {
  return input.sheets?.find((name) => name !== input.file.sheet && BANK_SHEETS.has(sheetKey(name)));
}

/** `--map` (loaded and checked here: exit 2 for a bad one), `--date-format` and `--encoding`, for every input of the run. */
export function readingOptions(
  options: { map?: string | undefined; dateFormat?: string | undefined; encoding?: string | undefined },
  cwd: string,
): ReadingOptions {
  return {
    ...(options.encoding === undefined ? {} : { encoding: options.encoding }),
    ...(options.map === undefined ? {} : { columns: loadColumnMap(options.map, cwd) }),
    ...(options.dateFormat === undefined ? {} : { dateFormat: options.dateFormat }),
  };
}
