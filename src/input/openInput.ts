import { open } from 'node:fs/promises';
import { InputError } from '../core/errors.js';
import { loadColumnMap, SPLIT_NAME } from '../rows/columns.js';
import { normalizeName } from '../rows/synonyms.js';
import type { InputFormat } from '../core/types.js';
import { type InputFile, inputFile, type OpenedInput, type ReadingOptions, unreadable } from './InputFile.js';
import { readCsv } from './readCsv.js';
import { readJsonl } from './readJsonl.js';
import { readXlsx, sheetKey } from './readXlsx.js';

export interface OpenOptions extends ReadingOptions {
  /** xlsx: the sheet to read (`--sheet`, or a `Bank details` sheet); the first sheet otherwise. */
  sheet?: string | undefined;
}

/**
 * Opens an input file by what its bytes are, its extension only telling text formats apart: a workbook named `.csv` is
 * read as the workbook it is and a CSV named `.xlsx` as CSV, each with a warning; other binary content (an old .xls, a
 * PDF) is an InputError (exit 2), never parsed as text. Given the InputFile of an earlier opening, reads it the same
 * way again (same format, sheet and encoding): pass 2.
 */
export async function openInput(target: string | InputFile, options: OpenOptions = {}): Promise<OpenedInput> {
  const named = typeof target === 'string' ? inputFile(target) : undefined;
  const file = named ? await byContent(named) : (target as InputFile);
  const reading: ReadingOptions = {
    columns: options.columns,
    dateFormat: options.dateFormat,
    encoding: options.encoding,
    readers: options.readers,
  };
  const opened =
    file.format === 'xlsx'
      ? await readXlsx(file, {
          ...(options.sheet === undefined ? {} : { sheet: options.sheet }),
          columns: options.columns,
          readers: options.readers,
        })
      : await (file.format === 'jsonl'
          ? readJsonl(file)
          : readCsv(file, { columns: options.columns, encoding: options.encoding, readers: options.readers }));
  if (named && named.format !== file.format) {
    // The same array: a CSV's reader adds its encoding warning to it once read to the end.
    opened.warnings ??= [];
    opened.warnings.unshift(
      `${named.name}: is ${file.format === 'xlsx' ? 'an .xlsx workbook' : `${FORMAT_NAMES[file.format]} text`}, not ${FORMAT_NAMES[named.format]} as its name says; read as what it is`,
    );
  }
  return { ...opened, reading };
}

const FORMAT_NAMES: Record<InputFormat, string> = { csv: 'CSV', tsv: 'TSV', jsonl: 'JSONL', xlsx: 'an .xlsx workbook' };

/** What the first bytes of a file say it is. A zip is an .xlsx (or another office package readXlsx turns away). */
function contentOf(head: Buffer): 'zip' | 'ole2' | 'pdf' | 'utf-16' | 'binary' | 'text' {
  if (head.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return 'zip';
  if (head.subarray(0, 4).equals(Buffer.from('PK\x05\x06', 'latin1'))) return 'zip';
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) return 'ole2';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return 'text';
  const nul = head.indexOf(0);
  if (nul < 0) return 'text';
  // ASCII text saved as UTF-16 without a byte order mark: every other byte is zero.
  const zeros = head.filter((b, i) => b === 0 && i % 2 === nul % 2).length;
  return zeros * 2 >= head.length - 1 ? 'utf-16' : 'binary';
}

const NOT_TEXT: Record<'ole2' | 'pdf' | 'utf-16' | 'binary', string> = {
  ole2: 'is an old Excel .xls workbook or a password-protected one: save it as .xlsx without a password, or as "CSV UTF-8"',
  pdf: 'is a PDF, not a spreadsheet: export the payers from where they were made as .xlsx or "CSV UTF-8"',
  'utf-16': 'is UTF-16 text without a byte order mark: save it as "CSV UTF-8" (or Excel\'s "Unicode text")',
  binary: 'is not a spreadsheet or text file (it holds binary data): save the payers as .xlsx or "CSV UTF-8"',
};

/** The file with the format its bytes say, where they say another than its name; an InputError for what is neither. */
async function byContent(file: InputFile): Promise<InputFile> {
  const head = Buffer.alloc(512);
  let length: number;
  try {
    const handle = await open(file.path, 'r');
    try {
      ({ bytesRead: length } = await handle.read(head, 0, head.length, 0));
    } finally {
      await handle.close();
    }
  } catch (cause) {
    throw unreadable(file, cause);
  }
  if (length === 0) return file; // each reader has its own words for an empty file
  const content = contentOf(head.subarray(0, length));
  if (content === 'zip') return file.format === 'xlsx' ? file : { ...file, format: 'xlsx' };
  if (content !== 'text') throw new InputError(file.name, NOT_TEXT[content]);
  if (file.format !== 'xlsx') return file;
  const text = head
    .subarray(0, length)
    .toString('latin1')
    .replace(/^\xef\xbb\xbf/, '')
    .trimStart();
  // Text named .xlsx: a CSV when its first line has a delimiter, JSONL when it starts with an object; anything else is
  // left to the workbook reader to turn away as a damaged workbook.
  if (text.startsWith('{')) return { ...file, format: 'jsonl' };
  return /^[^\r\n]*[,;\t]/.test(text) ? { ...file, format: 'csv' } : file;
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

/**
 * `--map` (loaded and checked here: exit 2 for a bad one), `--split-name`, `--date-format` and `--encoding`, for every
 * input of the run.
 */
export function readingOptions(
  options: {
    map?: string | undefined;
    splitName?: string | undefined;
    dateFormat?: string | undefined;
    encoding?: string | undefined;
  },
  cwd: string,
): ReadingOptions {
  const map = options.map === undefined ? undefined : loadColumnMap(options.map, cwd);
  // `--split-name` is one more entry of the column map: that column read as the first name and the last.
  const columns =
    options.splitName === undefined ? map : new Map([...(map ?? []), [normalizeName(options.splitName), SPLIT_NAME]]);
  return {
    ...(options.encoding === undefined ? {} : { encoding: options.encoding }),
    ...(columns === undefined ? {} : { columns }),
    ...(options.dateFormat === undefined ? {} : { dateFormat: options.dateFormat }),
  };
}
