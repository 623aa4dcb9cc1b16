import { writeFileSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { PayerOnboardError } from '../core/errors.js';
import { bankSheetOf, openInput } from '../input/openInput.js';

/** An upload's rows as the tool reads them: the header it chose (below any title rows) and each row's texts by line. */
export interface UploadTable {
  header: string[];
  rows: Array<{ line: number; texts: string[] }>;
  /** A workbook's sheet of bank rows beside the payers' (a run reads it too; a CSV written from the table cannot). */
  bankSheet?: string;
}

/** One change a person made in the grid, as the audit keeps it. `column` is the header's name as written. */
export interface Fix {
  line: number;
  column: string;
  value: string;
  at: string;
}

/** What the person decided for the upload: their column names' fields, the cells changed, the rows left out. */
export interface Edits {
  mapping: Readonly<Record<string, string>>;
  fixes: readonly Fix[];
  leftOut: readonly number[];
}

/**
 * The table of an upload with a header (CSV, TSV, a workbook's sheet), read as a run reads it; undefined for JSON
 * lines (keys go by their names: nothing to map or lay out in a grid) and for a file the tool cannot read.
 */
export async function readTable(path: string): Promise<UploadTable | undefined> {
  try {
    const input = await openInput(path);
    if (input.header === undefined) {
      for await (const _ of input.records) break;
      return undefined;
    }
    const rows: UploadTable['rows'] = [];
    for await (const record of input.records)
      if (Array.isArray(record.original)) rows.push({ line: record.line, texts: record.original });
    const bankSheet = bankSheetOf(input);
    return { header: input.header, rows, ...(bankSheet === undefined ? {} : { bankSheet }) };
  } catch (error) {
    if (error instanceof PayerOnboardError) return undefined;
    throw error;
  }
}

/** The header as the sent file carries it: each mapped column renamed to its field, the others as written. */
export function sentHeader(header: readonly string[], mapping: Edits['mapping']): string[] {
  return header.map((column) => mapping[column] ?? column);
}

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
  const rows = fixedRows(table, edits.fixes);
  const out = new Set(edits.leftOut);
  const records = [sentHeader(table.header, edits.mapping)];
  const lines = new Map<number, number>();
  let next = 1 + lineCount(records[0]!);
  for (const row of table.rows) {
    if (out.has(row.line)) continue;
    const texts = rows.get(row.line)!;
    lines.set(next, row.line);
    next += lineCount(texts);
    records.push(texts);
  }
  writeFileSync(path, stringify(records, { record_delimiter: '\n' }), { mode: 0o600 });
  return lines;
}

/** How many lines a record takes in the CSV: a cell may hold line breaks (quoted, they stay in the cell). */
function lineCount(texts: readonly string[]): number {
  return 1 + texts.reduce((n, text) => n + (text.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
}
