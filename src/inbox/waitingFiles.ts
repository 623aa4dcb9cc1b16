import { rename } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InputError } from '../core/errors.js';
import type { CsvDialect, InputFile, RawRecord, ReadingOptions, UnnamedCell } from '../input/InputFile.js';
import { bankSheetOf, openInput } from '../input/openInput.js';
import { payerKeyOf } from '../journal/RowJournal.js';
import { RowFiles, RowFileSet } from '../output/RowFiles.js';
import type { RowFileRow } from '../output/XlsxRowBooks.js';
import { isBankFile } from '../pipeline/classifyRows.js';
import { fieldForColumn, type FileKind, isBlank } from '../rows/columns.js';
import type { WaitingFile, WaitingRow } from '../store/Store.js';

/**
 * How a file's rows are written back: its format, and each part's sheet (an .xlsx), header, the places of a sheet's
 * columns and CSV dialect.
 */
interface Shape {
  parts: Array<{ sheet?: string; header: string[]; positions?: readonly number[]; dialect?: CsvDialect }>;
}

/** A row's cells as the store keeps them: a sheet row's with what showed under its unnamed columns beside. */
type StoredCells = string[] | string | { cells: string[]; unnamed: readonly UnnamedCell[] };

function storedCells(record: RawRecord): string {
  const kept: StoredCells =
    record.unnamed === undefined ? record.original : { cells: record.original as string[], unnamed: record.unnamed };
  return JSON.stringify(kept);
}

function cellsOf(text: string): Pick<RowFileRow, 'original' | 'unnamed'> {
  const kept = JSON.parse(text) as StoredCells;
  return typeof kept === 'object' && !Array.isArray(kept)
    ? { original: kept.cells, unnamed: kept.unnamed }
    : { original: kept };
}

/** A pending file read back: what the store keeps of it. */
export interface ReadBack {
  format: string;
  shape: string;
  rows: Array<Omit<WaitingRow, 'seq'>>;
}

/**
 * A run's pending file (or an old waiting/ file) read back in its own format, each row with its payer's id and key
 * and the steps it carries, and its cells exactly as read: written back by `writeWaiting`, it is the same file.
 */
export async function readWaiting(path: string, reading: ReadingOptions): Promise<ReadBack> {
  const rows: ReadBack['rows'] = [];
  const read = await readWaitingInChunks(path, reading, async (chunk) => {
    rows.push(...chunk);
  });
  return { ...read, rows };
}

/** Rows handed over at a time by `readWaitingInChunks`. */
const CHUNK = 1000;

/**
 * `readWaiting` for a file of any size: its rows handed to `each` a thousand at a time, as they are read, and its
 * format and shape given at the end; how many rows it had.
 */
export async function readWaitingInChunks(
  path: string,
  reading: ReadingOptions,
  each: (rows: ReadBack['rows']) => Promise<void>,
): Promise<Omit<ReadBack, 'rows'> & { count: number }> {
  const first = await openInput(path, reading);
  const shape: Shape = { parts: [] };
  let rows: ReadBack['rows'] = [];
  let count = 0;
  const bankSheet = bankSheetOf(first);
  const inputs = [first, ...(bankSheet === undefined ? [] : [await openInput(path, { ...reading, sheet: bankSheet })])];
  for (const [part, input] of inputs.entries()) {
    const kind: FileKind = part > 0 || isBankFile(input) ? 'bank-details' : 'payers';
    if (input.header && !input.header.some((c) => fieldForColumn(c, kind, reading.columns) === 'clientUserId'))
      throw new InputError(input.file.name, `has no clientUserId column (header: ${input.header.join(', ')})`, {
        line: 1,
      });
    shape.parts.push({
      ...(input.file.sheet === undefined ? {} : { sheet: input.file.sheet }),
      header: input.header ?? [],
      ...(input.positions === undefined ? {} : { positions: input.positions }),
      ...(input.dialect === undefined ? {} : { dialect: input.dialect }),
    });
    for await (const record of input.records) {
      let clientUserId = '';
      let completedSteps = '';
      for (const { column, value } of record.cells) {
        const field = fieldForColumn(column, kind, reading.columns);
        if (field === 'clientUserId' && !isBlank(value) && clientUserId === '') clientUserId = String(value).trim();
        else if (field === 'completedSteps' && typeof value === 'string') completedSteps = value;
      }
      rows.push({
        part,
        payerKey: clientUserId === '' ? '' : payerKeyOf(clientUserId),
        clientUserId,
        original: storedCells(record),
        completedSteps,
      });
      count++;
      if (rows.length >= CHUNK) {
        await each(rows);
        rows = [];
      }
    }
  }
  if (rows.length > 0) await each(rows);
  return { format: first.file.format, shape: JSON.stringify(shape), count };
}

/**
 * Rows the store keeps, written as a file of their own format into `dir` (named as the file they came from): the
 * input of a run of just those rows. Their error cells are left empty; the run says its own.
 */
export async function writeWaiting(dir: string, file: WaitingFile, rows: readonly WaitingRow[]): Promise<string> {
  const shape = JSON.parse(file.shape) as Shape;
  const format = file.format as InputFile['format'];
  const path = join(dir, file.name);
  const set = new RowFileSet();
  let written: string | undefined;
  try {
    for (const [part, { sheet, header, positions, dialect }] of shape.parts.entries()) {
      const input: InputFile = {
        path,
        name: part === 0 || sheet === undefined ? file.name : `${file.name}[${sheet}]`,
        format,
        ...(sheet === undefined ? {} : { sheet }),
      };
      const files = new RowFiles(dir, input, header, dialect, set, positions);
      try {
        for (const row of rows)
          if (row.part === part)
            await files.write({
              outcome: 'waiting',
              ...cellsOf(row.original),
              errors: [],
              completedSteps: row.completedSteps,
            });
      } finally {
        await files.close();
      }
      written ??= files.written().pending;
    }
  } finally {
    await set.close();
  }
  if (written === undefined) throw new Error(`no row of ${file.name} to write`);
  // `pending-<name>` unless the name was that already: the run reads it under the name the rows were kept by.
  if (basename(written) !== file.name) await rename(written, path);
  return path;
}
