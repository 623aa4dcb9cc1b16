import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import ExcelJS from 'exceljs';
import * as XLSX from 'xlsx';

/**
 * One workbook's content, typed as a person types it, for every producer to write its own way: text, numbers,
 * dates (a date cell), formulas with their result, rich text (bold runs). `null` leaves the cell empty.
 */
export type TypedCell =
  | string
  | number
  | null
  | { date: string }
  | { formula: string; result: number; isDate?: boolean }
  | { rich: { text: string; bold?: boolean }[] };

export interface BookSpec {
  sheets: { name: string; rows: TypedCell[][] }[];
  date1904?: boolean;
}

const DAY_MS = 86_400_000;
/** A date's serial number in the 1900 system (past 1900-03-01) or the 1904 one. */
export function serialOf(iso: string, date1904 = false): number {
  const days = (Date.parse(`${iso}T00:00:00Z`) - Date.UTC(1899, 11, 30)) / DAY_MS;
  return date1904 ? days - 1462 : days;
}

const plain = (cell: { rich: { text: string }[] }) => cell.rich.map((r) => r.text).join('');

/** exceljs's own writer (shared strings, styles per cell, rich text, formulas with their results). */
export async function writeWithExceljs(path: string, spec: BookSpec): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  if (spec.date1904) workbook.properties.date1904 = true;
  for (const { name, rows } of spec.sheets) {
    const sheet = workbook.addWorksheet(name);
    rows.forEach((row, r) => {
      row.forEach((cell, c) => {
        if (cell === null) return;
        const target = sheet.getCell(r + 1, c + 1);
        if (typeof cell === 'string' || typeof cell === 'number') target.value = cell;
        else if ('date' in cell) {
          target.value = new Date(`${cell.date}T00:00:00Z`);
          target.numFmt = 'yyyy-mm-dd';
        } else if ('formula' in cell) {
          // exceljs takes a date cell's result as a Date, and stores its serial in the book's date system.
          const days = cell.result + (spec.date1904 ? 1462 : 0);
          const result = cell.isDate ? new Date(Date.UTC(1899, 11, 30) + days * DAY_MS) : cell.result;
          target.value = { formula: cell.formula, result } as ExcelJS.CellFormulaValue;
          if (cell.isDate) target.numFmt = 'yyyy-mm-dd';
        } else
          target.value = { richText: cell.rich.map((r) => ({ text: r.text, font: r.bold ? { bold: true } : {} })) };
      });
    });
  }
  await workbook.xlsx.writeFile(path);
  return path;
}

/** SheetJS (the `xlsx` package): no shared strings table (`bookSST: false`), its own part order, dates as serials. */
export function writeWithSheetJs(path: string, spec: BookSpec): string {
  const book = XLSX.utils.book_new();
  for (const { name, rows } of spec.sheets) {
    const sheet: XLSX.WorkSheet = {};
    let width = 0;
    rows.forEach((row, r) => {
      width = Math.max(width, row.length);
      row.forEach((cell, c) => {
        if (cell === null) return;
        const ref = XLSX.utils.encode_cell({ r, c });
        if (typeof cell === 'string') sheet[ref] = { t: 's', v: cell };
        else if (typeof cell === 'number') sheet[ref] = { t: 'n', v: cell };
        else if ('date' in cell) sheet[ref] = { t: 'n', v: serialOf(cell.date, spec.date1904), z: 'yyyy-mm-dd' };
        else if ('formula' in cell)
          sheet[ref] = { t: 'n', v: cell.result, f: cell.formula, ...(cell.isDate ? { z: 'yyyy-mm-dd' } : {}) };
        else sheet[ref] = { t: 's', v: plain(cell) }; // the community edition writes no rich text
      });
    });
    sheet['!ref'] = XLSX.utils.encode_range({
      s: { r: 0, c: 0 },
      e: { r: rows.length - 1, c: Math.max(0, width - 1) },
    });
    XLSX.utils.book_append_sheet(book, sheet, name);
  }
  if (spec.date1904) book.Workbook = { ...book.Workbook, WBProps: { date1904: true } };
  writeFileSync(path, XLSX.write(book, { type: 'buffer', bookType: 'xlsx', bookSST: false, compression: true }));
  return path;
}

/** Whether Debian's python3-openpyxl is there (.ci/run installs it). */
export const hasOpenpyxl = (): boolean =>
  spawnSync(PYTHON, ['-c', 'import openpyxl'], { stdio: 'ignore' }).status === 0;
// Debian's python, where apt puts python3-openpyxl, rather than whichever python3 comes first on PATH.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

// openpyxl writes its parts with absolute targets (`/xl/worksheets/sheet1.xml`) and formulas without results.
const OPENPYXL_SCRIPT = `
import json, sys, datetime, openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904
spec = json.load(sys.stdin)
book = openpyxl.Workbook()
book.remove(book.active)
if spec.get("date1904"):
    book.epoch = CALENDAR_MAC_1904
for s in spec["sheets"]:
    sheet = book.create_sheet(s["name"])
    for r, row in enumerate(s["rows"], start=1):
        for c, cell in enumerate(row, start=1):
            if cell is None:
                continue
            if isinstance(cell, dict) and "date" in cell:
                sheet.cell(r, c, datetime.date.fromisoformat(cell["date"])).number_format = "yyyy-mm-dd"
            elif isinstance(cell, dict) and "formula" in cell:
                sheet.cell(r, c, "=" + cell["formula"])
                if cell.get("isDate"):
                    sheet.cell(r, c).number_format = "yyyy-mm-dd"
            elif isinstance(cell, dict):
                sheet.cell(r, c, "".join(run["text"] for run in cell["rich"]))
            else:
                sheet.cell(r, c, cell)
book.save(sys.argv[1])
`;

/** openpyxl (what pandas' `to_excel` uses). */
export function writeWithOpenpyxl(path: string, spec: BookSpec): string {
  execFileSync(PYTHON, ['-c', OPENPYXL_SCRIPT, path], { input: JSON.stringify(spec) });
  return path;
}

/** Whether LibreOffice can convert headless here (.ci/run installs libreoffice-calc-nogui). */
export const hasLibreOffice = (): boolean => existsSync('/usr/bin/soffice') || existsSync('/usr/bin/libreoffice');

/**
 * LibreOffice's own package: a workbook (from another producer) opened and saved again by Calc, which recalculates
 * the formulas and writes the result of each.
 */
export function resaveWithLibreOffice(source: string, path: string): string {
  const out = join(dirname(path), `lo-${Date.now()}`);
  mkdirSync(out);
  // Its own profile folder: a second LibreOffice at once (another test file) must not share the user's.
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${out}/profile`,
      '--headless',
      '--convert-to',
      'xlsx:Calc MS Excel 2007 XML',
      '--outdir',
      out,
      source,
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
  copyFileSync(join(out, basename(source)), path);
  return path;
}
