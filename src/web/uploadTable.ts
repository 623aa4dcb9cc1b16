import { SPLIT_NAME } from '../rows/columns.js';
import { splitName } from '../rows/splitName.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { PayerOnboardError } from '../core/errors.js';
import type { DateFormat } from '../core/types.js';
import type { UnnamedCell } from '../input/InputFile.js';
import { bankSheetOf, openInput } from '../input/openInput.js';

/**
 * An upload's rows as the tool reads them: the header it chose (below any title rows) and each row's texts by line
 * (every row, or those asked for: see `RowsKept`).
 */
export interface UploadTable {
  header: string[];
  /** A sheet's: where each of the header's columns is (from 0 for A). */
  positions?: readonly number[];
  /** Each row's texts by the header's columns, and a sheet row's under columns with no name (written back as they were). */
  rows: Array<{ line: number; texts: string[]; unnamed?: readonly UnnamedCell[] }>;
  /** A workbook's sheet of bank rows beside the payers' (a run reads it too; a CSV written from the table cannot). */
  bankSheet?: string;
}

/** Who did something to an upload: a user's name, and their id (none for the shared password). */
export interface Person {
  name: string;
  id?: string;
}

/** The person a signed-in user is, as an upload keeps who did what. */
export function personOf(user: { name: string; userId?: string | undefined }): Person {
  return user.userId === undefined ? { name: user.name } : { name: user.name, id: user.userId };
}

/** One change a person made in the grid, as the audit keeps it. `column` is the header's name as written. */
export interface Fix {
  line: number;
  column: string;
  value: string;
  at: string;
  /** Who made it (none in an upload kept from before changes were signed). */
  by?: Person;
}

/**
 * What the person decided for the upload: their column names' fields, the cells changed, the rows left out, and how
 * its dates are written (the file sent has them as YYYY-MM-DD).
 */
export interface Edits {
  mapping: Readonly<Record<string, string>>;
  fixes: readonly Fix[];
  leftOut: readonly number[];
  dateFormat?: DateFormat;
}

/**
 * The rows a page needs of a table: its first ones (samples of each column) and those at these lines (the rows the
 * check refuses, those changed or left out). A file of 100,000 rows kept whole is some 300 MB: only a file written
 * with the person's edits needs every row.
 */
export interface RowsKept {
  first: number;
  lines: readonly number[];
}

/**
 * The table of an upload with a header (CSV, TSV, a workbook's sheet), read as a run reads it, with every row or those
 * `kept`; undefined for JSON lines (keys go by their names: nothing to map or lay out in a grid) and for a file the
 * tool cannot read.
 */
export async function readTable(path: string, kept?: RowsKept): Promise<UploadTable | undefined> {
  try {
    const input = await openInput(path);
    if (input.header === undefined) {
      for await (const _ of input.records) break;
      return undefined;
    }
    const rows: UploadTable['rows'] = [];
    const lines = new Set(kept?.lines);
    // The header alone asked for: the file is let go after it, not read to its end for nothing.
    const headerOnly = kept !== undefined && kept.first === 0 && lines.size === 0;
    let index = 0;
    for await (const record of input.records) {
      if (headerOnly) break;
      if (!Array.isArray(record.original)) continue;
      if (kept === undefined || index < kept.first || lines.has(record.line))
        rows.push({
          line: record.line,
          texts: record.original,
          ...(record.unnamed === undefined ? {} : { unnamed: record.unnamed }),
        });
      index++;
    }
    const bankSheet = bankSheetOf(input);
    return {
      header: input.header,
      ...(input.positions === undefined ? {} : { positions: input.positions }),
      rows,
      ...(bankSheet === undefined ? {} : { bankSheet }),
    };
  } catch (error) {
    if (error instanceof PayerOnboardError) return undefined;
    throw error;
  }
}

/**
 * The header as the sent file carries it: each mapped column renamed to its field, the others as written; a column of
 * whole names the person chose to split is the first name's, and the last name's column follows the others.
 */
export function sentHeader(header: readonly string[], mapping: Edits['mapping']): string[] {
  const sent = header.map((column) => (mapping[column] === SPLIT_NAME ? 'firstName' : (mapping[column] ?? column)));
  return splitAt(header, mapping) < 0 ? sent : [...sent, 'lastName'];
}

/**
 * A row's texts as the sent file carries them: a whole name split into the first name, in its column, and the last,
 * after the others (`Mary Ann Smith`, `Smith, Mary Ann`). A name of one word stays whole as the first name, the last
 * left blank: the check then asks for it, and the cell can be fixed in the grid.
 */
export function sentTexts(texts: readonly string[], header: readonly string[], mapping: Edits['mapping']): string[] {
  const at = splitAt(header, mapping);
  if (at < 0) return [...texts];
  const whole = (texts[at] ?? '').trim();
  const parts = splitName(whole) ?? { first: whole, last: '' };
  const sent = [...texts];
  sent[at] = parts.first;
  // The row as long as the header, so the last name lands in its own column.
  while (sent.length < header.length) sent.push('');
  return [...sent, parts.last];
}

const splitAt = (header: readonly string[], mapping: Edits['mapping']) =>
  header.findIndex((column) => mapping[column] === SPLIT_NAME);

/** Each row's texts with the person's fixes on them (the latest fix of a cell wins), by line. */
export function fixedRows(table: UploadTable, fixes: readonly Fix[]): Map<number, string[]> {
  const rows = new Map(table.rows.map((row) => [row.line, [...row.texts]]));
  for (const fix of fixes) {
    const at = table.header.indexOf(fix.column);
    const texts = rows.get(fix.line);
    if (at >= 0 && texts !== undefined) texts[at] = fix.value;
  }
  return rows;
}

/**
 * The file that goes to the inbox for a CSV, TSV or text upload the person mapped or fixed (a workbook's:
 * sentWorkbook.ts): UTF-8 CSV, the mapping applied to its
 * header, the fixes to its cells, the rows left out gone. The inbox reads it as it stands (it runs every file with its
 * own options, no `--map` of this upload). Returns, by the sent file's line, the upload's line it came from: the
 * check's findings are shown at the lines the person knows.
 */
export function writeSentFile(path: string, table: UploadTable, edits: Edits): Map<number, number> {
  // Only the rows fixed are copied, and the file is written a slice at a time: a table of 100,000 rows is held once.
  const fixedLines = new Set(edits.fixes.map((fix) => fix.line));
  const fixed = fixedRows({ ...table, rows: table.rows.filter((row) => fixedLines.has(row.line)) }, edits.fixes);
  const out = new Set(edits.leftOut);
  const header = sentHeader(table.header, edits.mapping);
  const lines = new Map<number, number>();
  let next = 1 + lineCount(header);
  const fd = openSync(path, 'w', 0o600);
  try {
    let records = [header];
    for (const row of table.rows) {
      if (out.has(row.line)) continue;
      const texts = sentTexts(fixed.get(row.line) ?? row.texts, table.header, edits.mapping);
      lines.set(next, row.line);
      next += lineCount(texts);
      records.push(texts);
      if (records.length < 1000) continue;
      writeSync(fd, stringify(records, { record_delimiter: '\n' }));
      records = [];
    }
    if (records.length > 0) writeSync(fd, stringify(records, { record_delimiter: '\n' }));
  } finally {
    closeSync(fd);
  }
  return lines;
}

/** How many lines a record takes in the CSV: a cell may hold line breaks (quoted, they stay in the cell). */
function lineCount(texts: readonly string[]): number {
  return 1 + texts.reduce((n, text) => n + (text.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
}
