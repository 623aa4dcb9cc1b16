import { advice, type Readers } from '../core/advice.js';
import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { InputError } from '../core/errors.js';
import type { ColumnMap } from '../rows/columns.js';
import { type InputFile, type OpenedInput, unreadable } from './InputFile.js';
import { PartTooLargeError, ZipPackage } from './package/ZipPackage.js';
import { findDataSheet, type SheetScan, scanSheet } from './sheet/scanSheet.js';
import { sheetInput } from './sheet/sheetInput.js';
import { refuseTooManyRows, SheetDamage, sheetRows } from './xlsx/sheetRows.js';
import { readWorkbookParts, type SheetEntry, type WorkbookParts } from './xlsx/workbookParts.js';

export { columnLetter } from './sheet/sheetInput.js';

/** Sheet names compare as people read them: case, spaces and `_-.` do not matter (`Bank details` = `bank_details`). */
export const sheetKey = (name: string): string => name.replace(/[\s_.-]+/g, '').toLowerCase();

type SheetOptions = { sheet?: string; columns?: ColumnMap | undefined; readers?: Readers | undefined };

/**
 * Opens an .xlsx workbook, whatever wrote it, by its parts' relationships (ECMA-376), one row in memory at a time
 * however long the sheet (the shared-strings table is held whole). Reads the sheet named `options.sheet`, or else
 * the first visible sheet, in tab order, with a header row naming fields within its first rows: an instructions
 * sheet before the data is passed over. Rows above the header (a title, notes) and blank rows are skipped, each
 * noted in a warning; line numbers are the sheet's own row numbers, the row the team sees in Excel.
 */
export async function readXlsx(file: InputFile, options: SheetOptions = {}): Promise<OpenedInput> {
  const { pkg, book } = await openWorkbook(file);
  try {
    const { opened, entry, scan } = await findSheet(file, pkg, book, options);
    const names = book.sheets.map((s) => s.name);
    return sheetInput(opened, entry.name, scan, names, options.columns, () => pkg.close());
  } catch (error) {
    pkg.close();
    throw error;
  }
}

async function openWorkbook(file: InputFile): Promise<{ pkg: ZipPackage; book: WorkbookParts }> {
  try {
    // Checked apart, so a missing file is said as such rather than as a damaged workbook.
    await access(file.path, constants.R_OK);
  } catch (cause) {
    throw readError(cause, file);
  }
  try {
    const pkg = await ZipPackage.open(file.path);
    return { pkg, book: await readWorkbookParts(pkg) };
  } catch (cause) {
    throw readError(cause, file);
  }
}

/**
 * The sheet asked for by name, or else the data sheet findDataSheet finds; scanned to its header. The input is named
 * after the sheet unless it is the first visible one.
 */
async function findSheet(
  file: InputFile,
  pkg: ZipPackage,
  book: WorkbookParts,
  options: SheetOptions,
): Promise<{ opened: InputFile; entry: SheetEntry; scan: SheetScan }> {
  const wanted = options.sheet ?? file.sheet;
  const readable = book.sheets.filter((s) => s.part !== undefined);
  const chosen =
    wanted === undefined
      ? await findDataSheet(
          file,
          readable.filter((s) => !s.hidden),
          (entry) => openSheet(file, pkg, book, entry, options.columns),
          options.columns,
          options.readers,
        )
      : undefined;
  const entry =
    chosen?.entry ?? (wanted === undefined ? undefined : readable.find((s) => sheetKey(s.name) === sheetKey(wanted)));
  if (entry === undefined) {
    if (wanted === undefined) throw new InputError(file.name, 'has no sheets');
    const names = book.sheets.map((s) => `"${s.name}"`).join(', ');
    throw new InputError(
      file.name,
      `has no sheet named "${wanted}" (its sheets: ${names}): ${advice({ kind: 'sheet' }, options.readers ?? 'terminal')}`,
    );
  }
  const firstVisible = readable.find((s) => !s.hidden);
  const opened: InputFile = {
    ...file,
    sheet: entry.name,
    name: entry === firstVisible ? basename(file.path) : `${basename(file.path)}[${entry.name}]`,
  };
  return { opened, entry, scan: chosen?.scan ?? (await openSheet(opened, pkg, book, entry, options.columns)) };
}

/** A worksheet's rows, scanned to its header; a sheet of more rows than Excel holds is refused before any is read. */
async function openSheet(
  file: InputFile,
  pkg: ZipPackage,
  book: WorkbookParts,
  entry: SheetEntry,
  columns: ColumnMap | undefined,
): Promise<SheetScan> {
  let stream: Readable | undefined;
  try {
    await refuseTooManyRows((await pkg.open(entry.part!, 'sheet'))!);
    stream = await pkg.open(entry.part!, 'sheet');
  } catch (cause) {
    throw readError(cause, file);
  }
  return scanSheet(sheetRows(stream!, book, entry.name), columns, (cause) => readError(cause, file));
}

/** Why the workbook cannot be read, as an InputError naming the file. */
function readError(cause: unknown, file: InputFile): InputError {
  if (cause instanceof InputError) return cause;
  if (cause instanceof PartTooLargeError)
    return new InputError(file.name, `refused: ${cause.message}. Save it again from Excel as .xlsx, or as CSV`, {
      cause,
    });
  if (cause instanceof SheetDamage)
    return new InputError(file.name, `${cause.message}: save it again from Excel as .xlsx`, { cause });
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return unreadable(file, cause);
  return new InputError(
    file.name,
    'is not a readable .xlsx workbook (a password-protected or damaged file, or another format renamed .xlsx): save it again from Excel as .xlsx',
    { cause },
  );
}
