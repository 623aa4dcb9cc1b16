import { createReadStream, type ReadStream } from 'node:fs';
import { basename } from 'node:path';
import { InputError } from '../errors.js';
import type { Cell } from '../types.js';
import { MAX_CELL_LENGTH, type InputFile, type OpenedInput, type RawRecord } from './InputFile.js';

interface SheetReader extends AsyncIterable<XlsxRow> {
  name?: string;
}
interface XlsxRow {
  number: number;
  eachCell(options: { includeEmpty: boolean }, each: (cell: XlsxCell, column: number) => void): void;
}
interface BookModel {
  sheets?: { name: string; state?: string }[];
}

/** Sheet names compare as people read them: case, spaces and `_-.` do not matter (`Bank details` = `bank_details`). */
export const sheetKey = (name: string): string => name.replace(/[\s_.-]+/g, '').toLowerCase();

/**
 * Opens an .xlsx workbook with exceljs's streaming reader: one row in memory at a time, however long the sheet
 * (the shared-strings table, one part of the file, is held whole). Reads the first visible sheet in tab order, or
 * the one named `options.sheet`. The first non-empty row is the header; line numbers are the sheet's own row
 * numbers, so a message's line is the row the team sees in Excel.
 */
export async function readXlsx(file: InputFile, options: { sheet?: string } = {}): Promise<OpenedInput> {
  const wanted = options.sheet ?? file.sheet;
  // Loaded only for a workbook: exceljs is the largest module here, and whatever a process has loaded stays on
  // its heap, which V8 then lets grow several times over before it collects (a million CSV rows must fit in 200 MB).
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(await openStream(file), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // the number format is what tells a date cell from a number
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const stop = () => (reader as unknown as { stream?: { destroy(): void } }).stream?.destroy();
  const sheets = reader[Symbol.asyncIterator]() as AsyncIterator<SheetReader>;
  const passed: string[] = [];
  let sheet: SheetReader | undefined;
  const order = () => (reader as unknown as { model?: BookModel }).model?.sheets ?? [];
  for (;;) {
    const step = await guard(() => sheets.next(), file);
    if (step.done) break;
    const name = step.value.name ?? `Sheet${passed.length + 1}`;
    passed.push(name);
    const first = order().find((s) => s.state !== 'hidden')?.name ?? passed[0];
    if (wanted === undefined ? name === first : sheetKey(name) === sheetKey(wanted)) {
      sheet = step.value;
      break;
    }
  }
  const names = order().length > 0 ? order().map((s) => s.name) : passed;
  if (sheet === undefined) {
    stop();
    if (wanted === undefined) throw new InputError(file.name, 'has no sheets');
    throw new InputError(
      file.name,
      `has no sheet named "${wanted}" (its sheets: ${names.map((n) => `"${n}"`).join(', ')})`,
    );
  }
  const sheetName = sheet.name ?? passed[passed.length - 1]!;
  const isFirst = sheetName === (order().find((s) => s.state !== 'hidden')?.name ?? passed[0]);
  const opened: InputFile = {
    ...file,
    sheet: sheetName,
    name: isFirst ? basename(file.path) : `${basename(file.path)}[${sheetName}]`,
  };

  const rows = sheet[Symbol.asyncIterator]();
  let header: string[] | undefined;
  for (;;) {
    const step = await guard(() => rows.next(), opened);
    if (step.done) break;
    const texts = rowTexts(step.value);
    if (texts.some((t) => t.text.trim() !== '')) {
      header = texts.map((t) => t.text.trim());
      break;
    }
  }
  if (header === undefined) {
    stop();
    throw new InputError(opened.name, `sheet "${sheetName}" is empty: expected a header row and at least one row`);
  }
  const columns = header;
  while (columns.length > 0 && columns[columns.length - 1] === '') columns.pop();

  async function* records(): AsyncGenerator<RawRecord> {
    try {
      for (;;) {
        const step = await guard(() => rows.next(), opened);
        if (step.done) return;
        const texts = rowTexts(step.value);
        // Excel keeps formatted but empty rows; they are no one's payer.
        if (texts.every((t) => t.text.trim() === '' && t.error === undefined)) continue;
        yield toRawRecord(texts, step.value.number, columns);
      }
    } finally {
      stop();
    }
  }
  return { file: opened, header: columns, records: records(), sheets: names };
}

type RowText = { text: string; error?: string };

function rowTexts(row: XlsxRow): RowText[] {
  const texts: RowText[] = [];
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    while (texts.length < column - 1) texts.push({ text: '' });
    const read = xlsxCellText(cell);
    texts[column - 1] = 'error' in read ? { text: read.error, error: read.error } : { text: read.text };
  });
  return texts;
}

function toRawRecord(texts: RowText[], line: number, header: string[]): RawRecord {
  const original = header.map((_, i) => texts[i]?.text ?? '');
  const cells: Cell[] = header.map((column, i) => ({ column, value: original[i] }));
  const record: RawRecord = { line, cells, original };
  const beyond = texts.slice(header.length).findIndex((t) => t.text.trim() !== '');
  const error = texts.findIndex((t) => t.error !== undefined);
  const long = cells.find((cell) => (cell.value as string).length > MAX_CELL_LENGTH);
  if (beyond >= 0) {
    record.problem = {
      column: '(row)',
      message: `has a value in column ${columnLetter(header.length + beyond)}, right of the last header: give that column a header or clear it`,
    };
  } else if (error >= 0) {
    record.problem = {
      column: header[error] || columnLetter(error),
      message: `holds the spreadsheet error ${texts[error]!.error}: fix the formula or type the value`,
    };
  } else if (long) {
    record.problem = {
      column: long.column || '(row)',
      message: `is ${(long.value as string).length} characters long, at most ${MAX_CELL_LENGTH}`,
    };
  }
  return record;
}

/** 0 -> A, 25 -> Z, 26 -> AA: how Excel names a column. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    out = String.fromCharCode(65 + rest) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** Opens the file first: exceljs would leave a missing file's error unhandled on its own stream. */
function openStream(file: InputFile): Promise<ReadStream> {
  return new Promise((resolve, reject) => {
    const stream = createReadStream(file.path);
    stream.once('open', () => resolve(stream));
    stream.once('error', (cause) => reject(guardError(cause, file)));
  });
}

/** The reader's errors (not a zip, a damaged part) become an InputError naming the file. */
async function guard<T>(next: () => Promise<T>, file: InputFile): Promise<T> {
  try {
    return await next();
  } catch (cause) {
    throw guardError(cause, file);
  }
}

function guardError(cause: unknown, file: InputFile): InputError {
  if (cause instanceof InputError) return cause;
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new InputError(file.name, 'cannot be read: no such file', { cause });
  if (code === 'EACCES') return new InputError(file.name, 'cannot be read: permission denied', { cause });
  if (code === 'EISDIR') return new InputError(file.name, 'cannot be read: is a directory', { cause });
  return new InputError(
    file.name,
    'is not a readable .xlsx workbook (a password-protected or damaged file, or another format renamed .xlsx): save it again from Excel as .xlsx',
    { cause },
  );
}

/** A cell as the streaming reader gives it: its value and the number format of its style. */
interface XlsxCell {
  value: unknown;
  numFmt?: string | undefined;
}

/** What a cell means to us: its text as the person sees it, or an Excel error (`#N/A`) that is that row's problem. */
type CellText = { text: string } | { error: string };

/**
 * One spreadsheet cell as text: text cells as typed; date cells `YYYY-MM-DD`; numbers the digits as
 * displayed, never in scientific notation (`12175550100`, not `1.21755E+10`), zero-padded where the column's format
 * pads them (`000000000` shows `021000021`); formulas by their result; TRUE/FALSE as `true`/`false`.
 */
function xlsxCellText(cell: XlsxCell): CellText {
  const { value } = cell;
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'boolean') return { text: value ? 'true' : 'false' };
  if (typeof value === 'number')
    return { text: isDateFormat(cell.numFmt) ? dateText(serialToDate(value)) : numberText(value, cell.numFmt) };
  if (value instanceof Date) return { text: dateText(value) };
  const object = value as {
    richText?: { text?: string }[];
    formula?: string;
    result?: unknown;
    error?: string;
    text?: unknown;
    sharedString?: number;
  };
  if (Array.isArray(object.richText)) return { text: object.richText.map((run) => run.text ?? '').join('') };
  if (object.error !== undefined) return { error: String(object.error) };
  if (object.formula !== undefined || 'result' in object) {
    const result = object.result as unknown;
    if (result !== null && typeof result === 'object' && 'error' in result)
      return { error: String((result as { error: unknown }).error) };
    return xlsxCellText({ value: result, numFmt: cell.numFmt });
  }
  if (object.text !== undefined) return xlsxCellText({ value: object.text, numFmt: cell.numFmt }); // a hyperlink's shown text
  return { text: '' };
}

/** Excel's date formats use y, m, d (h, s for times); text in quotes and [colour]/[locale] parts do not count. */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhs]/i.test(
    format
      .replace(/\[[^\]]*]/g, '')
      .replace(/"[^"]*"/g, '')
      .replace(/\\./g, ''),
  );
}

/** A date cell's serial (days since 1899-12-30, the 1900 system) as a UTC date. */
function serialToDate(serial: number): Date {
  return new Date(Math.round((serial - 25569) * 86_400_000));
}

/** A date as its calendar day. The reader builds dates at UTC midnight, so the UTC day is the day the sheet shows. */
function dateText(date: Date): string {
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 10);
}

/**
 * The digits a number cell shows. A format of only zeros (`00000`, `000000000`, `0.00`) pads and fixes the decimals
 * as Excel would; anything else shows the number's shortest exact form, in plain digits however large or small.
 */
function numberText(value: number, format: string | undefined): string {
  const padded = /^(0+)(?:\.(0+))?$/.exec(format ?? '');
  if (padded) {
    const fixed = plainDigits(Math.abs(value), padded[2]?.length ?? 0);
    const [whole = '', fraction] = fixed.split('.');
    const text = whole.padStart(padded[1]!.length, '0') + (fraction === undefined ? '' : `.${fraction}`);
    return value < 0 ? `-${text}` : text;
  }
  // 15 significant digits is what Excel keeps; it also drops binary noise such as 0.30000000000000004.
  const exact = Number(value.toPrecision(15));
  return plainDigits(exact);
}

function plainDigits(value: number, decimals?: number): string {
  if (decimals !== undefined) return value.toFixed(Math.min(decimals, 100));
  const text = String(value);
  if (!/e/i.test(text)) return text;
  if (Number.isInteger(value)) return BigInt(value).toString();
  return value.toFixed(20).replace(/\.?0+$/, '');
}
