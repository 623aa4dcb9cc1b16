import ExcelJS from 'exceljs';
import { PAYER_HEADER } from './runHarness.js';

export type SheetSpec = {
  name: string;
  rows: unknown[][];
  textColumns?: string[];
  /** Number formats by column name (`{ routingNumber: '000000000' }`), as a person formats a column in Excel. */
  formats?: Record<string, string>;
};

/**
 * Writes an .xlsx as a spreadsheet program saves one: real date cells, numbers as numbers, the columns named in
 * `textColumns` formatted as text (numFmt `@`), where typed digits stay strings, and those in `formats` with theirs.
 */
export async function writeWorkbook(path: string, sheets: SheetSpec[]): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  for (const spec of sheets) {
    const sheet = workbook.addWorksheet(spec.name);
    const header = (spec.rows[0] ?? []) as string[];
    const formats: Record<string, string> = { ...spec.formats };
    for (const column of spec.textColumns ?? []) formats[column] = '@';
    for (const [column, numFmt] of Object.entries(formats)) {
      const index = header.indexOf(column);
      if (index >= 0) sheet.getColumn(index + 1).numFmt = numFmt;
    }
    for (const row of spec.rows) sheet.addRow(row);
  }
  await workbook.xlsx.writeFile(path);
  return path;
}

/** A UTC-midnight date, which is what a date typed into a cell is. */
export const day = (iso: string): Date => new Date(`${iso}T00:00:00Z`);

export const PAYER_COLUMNS = PAYER_HEADER.split(',');

/** A valid payer as spreadsheet cells: a real date of birth, text routing and account numbers, phone with its +. */
export function payerCells(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clientUserId: id,
    email: `${id}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    beneficiaryType: 'individual',
    dateOfBirth: day('1985-12-10'),
    addressLine1: '12 Analytical Way',
    city: 'Springfield',
    state: 'IL',
    postcode: '02101',
    country: 'US',
    nationality: 'US',
    phone: '+12175550100',
    ssn: '123-45-6789',
    bankName: 'First Midwest Bank',
    accountName: 'Ada Lovelace',
    currency: 'USD',
    accountNumber: '000123456789',
    routingNumber: '021000021',
    accountType: 'checking',
    ...over,
  };
}

/** Rows (header first) of payers, in `columns` order. */
export function payerRows(
  ids: string[],
  over: Record<string, Record<string, unknown>> = {},
  columns = PAYER_COLUMNS,
): unknown[][] {
  return [columns, ...ids.map((id) => columns.map((c) => payerCells(id, over[id])[c] ?? null))];
}

/** Reads a workbook back, for checking a failed file: every sheet's rows as arrays of cell values (1-based `values` dropped). */
export async function readWorkbook(path: string) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}
