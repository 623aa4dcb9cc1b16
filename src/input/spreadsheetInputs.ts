import { loadColumnMap } from '../rows/columnMap.js';
import type { OpenedInput, ReadingOptions } from './InputFile.js';
import { sheetKey } from './readXlsx.js';

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
 * The sheet of a payers workbook that holds bank rows, read like a `--bank-details` file (issue 5): one named like
 * `Bank details` other than the sheet the payers came from. Undefined for anything but an .xlsx input.
 */
export function bankSheetOf(input: OpenedInput): string | undefined {
  return input.sheets?.find((name) => name !== input.file.sheet && BANK_SHEETS.has(sheetKey(name)));
}

/** `--map` (loaded and checked here: exit 2 for a bad one) and `--date-format`, for every input of the run. */
export function readingOptions(
  options: { map?: string | undefined; dateFormat?: string | undefined },
  cwd: string,
): ReadingOptions {
  return {
    ...(options.map === undefined ? {} : { columns: loadColumnMap(options.map, cwd) }),
    ...(options.dateFormat === undefined ? {} : { dateFormat: options.dateFormat }),
  };
}
