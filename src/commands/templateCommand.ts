import { writeFileSync, existsSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type ExcelJS from 'exceljs';
import { TEMPLATE_OPTIONS } from '../options/templateOptions.js';
import { ConfigError } from '../core/errors.js';
import { columnLetter } from '../input/readXlsx.js';
import { REQUIRED_PAYER_FIELDS, TEMPLATE_COLUMNS, TEMPLATE_EXAMPLE } from '../rows/fields.js';
import { ACCOUNT_TYPES, BENEFICIARY_TYPES, RAILS } from '../core/schemas.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CommandBody } from './CliCommand.js';

// `payer-onboard template`: a blank input file with every column in the documented order and one example row, as
// CSV or as a workbook made to be filled in by hand.

/** The CSV template: the header row and the example row. */
export function templateCsv(): string {
  return stringify([[...TEMPLATE_COLUMNS], TEMPLATE_COLUMNS.map((c) => TEMPLATE_EXAMPLE[c] ?? '')]);
}

export const templateCommand: CommandBody = {
  // `--out` takes the word after it whatever it is: yargs would otherwise leave `-` (stdout) as a stray argument.
  builder: (yargs) => addOptions(yargs, TEMPLATE_OPTIONS).nargs('out', 1),
  handler: async (argv, io) => {
    const given = argv.out as string | undefined;
    const format =
      (argv.format as 'csv' | 'xlsx' | undefined) ?? (given?.toLowerCase().endsWith('.xlsx') ? 'xlsx' : 'csv');
    const out = given ?? `payers-template.${format}`;
    const text = format === 'xlsx' ? await templateWorkbook() : templateCsv();
    if (out === '-') {
      io.stdout.write(text);
      return 0;
    }
    const path = resolve(io.cwd, out);
    if (existsSync(path) && !argv.force)
      throw new ConfigError(`${out} already exists (use --force to overwrite)`, 'E_USAGE');
    writeFileSync(path, text, { mode: 0o600 });
    chmodSync(path, 0o600);
    io.stderr.write(
      `wrote ${out}: ${TEMPLATE_COLUMNS.length} columns and one example row${format === 'xlsx' ? ' (hover a header for what it takes)' : ''}\n`,
    );
    return 0;
  },
};

// What each header's note says beyond "required"/"optional": the format the API wants, and why a column is text.
const KEEP_AS_TEXT = 'This column is formatted as text so leading zeros and a leading + stay as typed.';
const NOTES: Record<string, string> = {
  clientUserId: 'Your own id for the payer; unique in the file. Joins bank rows to their payer.',
  email: 'E-mail address.',
  beneficiaryType: 'individual or business (pick from the list).',
  dateOfBirth: 'Date of birth. Type it as a date; it is read as YYYY-MM-DD.',
  state: 'State or province code, e.g. IL.',
  postcode: `Postal or ZIP code. ${KEEP_AS_TEXT}`,
  country: 'ISO 3166-1 alpha-2 country code, e.g. US, GB, DE.',
  nationality: 'ISO 3166-1 alpha-2 country code, e.g. US.',
  phone: `E.164: + and country code, e.g. +12175550100. ${KEEP_AS_TEXT}`,
  ssn: `Social security or tax number; never shown in messages. ${KEEP_AS_TEXT}`,
  bankName: 'Name of the bank. Any bank column filled means this row has a bank account.',
  accountName: 'Name of the account holder.',
  currency: 'ISO 4217 currency code, e.g. USD, EUR, GBP.',
  accountNumber: `Bank account number. ${KEEP_AS_TEXT}`,
  routingNumber: `US ABA routing number, 9 digits. ${KEEP_AS_TEXT}`,
  rails: 'local, swift or wire (pick from the list); blank means local.',
  sortCode: `UK sort code, 6 digits. ${KEEP_AS_TEXT}`,
  iban: 'International Bank Account Number; spaces are fine.',
  swiftBic: 'SWIFT/BIC code, 8 or 11 letters and digits.',
  documentNumber: `Government ID number. ${KEEP_AS_TEXT}`,
  accountType: 'checking or savings (pick from the list).',
  bsbNumber: `Australian BSB number. ${KEEP_AS_TEXT}`,
  agreementCompleted:
    "Only if the team collected the payer's signature of the agreement: yes, x or the day. Blank: the payer signs it on their page.",
};
const LISTS: Record<string, readonly string[]> = {
  beneficiaryType: BENEFICIARY_TYPES,
  bankBeneficiaryType: BENEFICIARY_TYPES,
  rails: RAILS,
  accountType: ACCOUNT_TYPES,
  agreementCompleted: ['yes', 'no'],
};
const DATE_COLUMNS = new Set(['dateOfBirth', 'bankDateOfBirth']);
type Validations = { dataValidations: { add(address: string, validation: ExcelJS.DataValidation): void } };
/** Rows that get the drop-down lists and formats: far more than a hand-filled sheet holds. */
const ROWS = 5000;

function noteFor(column: string): string {
  const need = (REQUIRED_PAYER_FIELDS as readonly string[]).includes(column) ? 'Required.' : 'Optional.';
  const override = /^bank[A-Z]/.test(column) && !['bankName', 'bankCode'].includes(column);
  const own =
    NOTES[column] ??
    (override
      ? `The bank account's own value when it differs from the payer's ${column.slice(4, 5).toLowerCase()}${column.slice(5)}.`
      : '');
  return `${need} ${own}`.trim();
}

/**
 * The `template --format xlsx` workbook: every column in documented order, a note on each header, columns
 * formatted as text (dates as yyyy-mm-dd dates) so that what a person types arrives as typed, drop-down lists for the
 * enums, and one example row. Filled in by hand and saved by a spreadsheet program, it runs clean.
 */
async function templateWorkbook(): Promise<Buffer> {
  // Loaded here, not with the CLI: every other command would carry it in memory.
  const { default: excel } = await import('exceljs');
  const workbook = new excel.Workbook();
  const sheet = workbook.addWorksheet('Payers', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = TEMPLATE_COLUMNS.map((column) => ({
    header: column,
    key: column,
    width: Math.max(14, column.length + 4),
    style: { numFmt: DATE_COLUMNS.has(column) ? 'yyyy-mm-dd' : '@' },
  }));
  TEMPLATE_COLUMNS.forEach((column, i) => {
    const cell = sheet.getRow(1).getCell(i + 1);
    cell.note = noteFor(column);
    cell.font = { bold: true };
    const list = LISTS[column];
    const letter = columnLetter(i);
    if (list) {
      // exceljs has dataValidations on a worksheet (and writes range addresses as is) but leaves it out of its types.
      (sheet as unknown as Validations).dataValidations.add(`${letter}2:${letter}${ROWS}`, {
        type: 'list',
        allowBlank: true,
        formulae: [`"${list.join(',')}"`],
        showErrorMessage: true,
        errorTitle: column,
        error: `Pick one of ${list.join(', ')}`,
      });
    }
  });
  const example = Object.fromEntries(
    TEMPLATE_COLUMNS.map((column) => {
      const text = TEMPLATE_EXAMPLE[column] ?? '';
      // A real date cell, as a person typing a date makes one.
      return [column, DATE_COLUMNS.has(column) && text ? new Date(`${text}T00:00:00Z`) : text === '' ? null : text];
    }),
  );
  sheet.addRow(example);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
