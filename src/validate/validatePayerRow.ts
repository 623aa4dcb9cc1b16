import type { ColumnMap } from '../rows/columns.js';
import {
  BANK_ONLY_FIELDS,
  PAYER_FIELDS,
  PAYMENT_DETAIL_FIELDS,
  REQUIRED_PAYER_FIELDS,
  SHARED_FIELDS,
  type PaymentDetailField,
} from '../rows/fields.js';
import { fieldId, idOf, layoutOf } from '../rows/layout.js';
import type { PaymentDetailRequest } from '../core/schemas.js';
import type { Cell, PayerRowResult } from '../core/types.js';
import { repairSpreadsheetDamage } from './cellTexts.js';
import type { DateFormat } from '../core/types.js';
import type { Readers } from '../core/advice.js';
import { guardIssues, joinIssues, type OrderedIssue } from './textChecks.js';
import { inColumnOrder, clientSchemas, localDay, specBodies, type ClientSchemas } from './clientSchemas.js';
import { checkFields } from './checkFields.js';
import { AGREEMENT_COMPLETED, carry, readControls } from './controls.js';
import { validatePaymentDetail, type PayerDefaults } from './validateBankRow.js';
import { BLANK, readCells, type RowCells, TEXT, UNUSABLE } from './rowCells.js';
import { payerChecks } from './corridors.js';
import { validatePaymentDetailEntries } from './paymentDetailEntries.js';

export interface ValidatePayerRowOptions {
  /**
   * For a blank `agreementCompleted` cell: `--agreement-signed-elsewhere` (the operator says every payer of the file
   * signed), else false: the agreement is the payer's to sign, and a blank never says they did.
   */
  defaultAgreementCompleted: boolean;
  /** The day a date of birth may not be after; the current day when absent. */
  today?: Date;
  /** `--map`: the user's own column names for fields. */
  columns?: ColumnMap | undefined;
  /** `--date-format`: how to read dates not written YYYY-MM-DD (`MM/DD/YYYY`). */
  dateFormat?: DateFormat | undefined;
  /** The row is a JSONL line: a damaged value's fix is written for JSON, not for a spreadsheet's column. */
  json?: boolean | undefined;
  /** Who reads the row's messages (a terminal when absent): their advice is in their words. */
  readers?: Readers | undefined;
  /** The schemas for `today`, built once by a caller that checks many rows. */
  schemas?: ClientSchemas;
}

/**
 * One row of a payer file: the payer's compliance body and, when the row has any bank-only cell or a JSONL
 * `paymentDetails`, its payment-detail bodies. Every issue of the row is collected, each
 * named by the user's own column. Unknown columns are the caller's to carry through; they are ignored here.
 */
export function validatePayerRow(cells: readonly Cell[], options: ValidatePayerRowOptions): PayerRowResult {
  return checkPayerRow(
    cells.map((cell) => cell.column),
    cells.map((cell) => cell.value),
    options,
  );
}

/** validatePayerRow for a row given as its columns and, in the same order, its values (a CSV header and a record). */
export function checkPayerRow(
  columns: readonly string[],
  values: readonly unknown[],
  options: ValidatePayerRowOptions,
): PayerRowResult {
  const schemas = options.schemas ?? clientSchemas(localDay(options.today ?? new Date()));
  const read = readCells(values, layoutOf(columns, 'payers', '', options.columns), AGREEMENT_COMPLETED);
  const row = read.row;
  const damage = repairSpreadsheetDamage(row, options);

  const compliance: (string | undefined)[] = new Array<undefined>(PAYER_FIELDS.length);
  const payerIssues = checkFields(schemas.checks.compliance, row, BY_NAME, compliance, options.readers);
  const today = localDay(options.today ?? new Date());
  const controls = readControls(row, { dateFormat: options.dateFormat, today, readers: options.readers });
  const defaults = payerDefaults(compliance, row);

  const paymentDetails: PaymentDetailRequest[] = [];
  const issues = joinIssues([read.repeated, read.issues, damage, payerIssues, controls.issues]);
  // What the payer's fields need together (a cell that could not be read is told first): beside the other problems,
  // so that one round of fixes is enough, but never again under a column told already. Warnings go with a valid row.
  let warnings: readonly OrderedIssue[] | undefined;
  if (read.issues.length === 0) {
    const checked = payerChecks(compliance, (k) => payerPlace(row, k));
    for (const issue of checked.issues) if (!issues.some((told) => told.column === issue.column)) issues.push(issue);
    if (payerIssues.length === 0 && damage.length === 0) warnings = checked.warnings;
  }

  // A row with any bank-only cell filled has a bank account; one with none has not.
  if (hasBankAccount(row)) {
    const quiet = NOT_QUIET.slice();
    for (let k = 0; k < FROM.length; k++) if (FROM[k]! >= 0 && row.state[FROM[k]!] === UNUSABLE) quiet[k] = true;
    const checked = validatePaymentDetail(
      { row, from: FROM, quiet, defaults, absentColumn: BY_NAME.absentColumn, readers: options.readers },
      schemas,
    );
    for (const issue of checked.issues) issues.push(issue);
    if (checked.detail) paymentDetails.push(checked.detail);
  }
  const nested = row.at[PAYMENT_DETAILS]!;
  if (nested >= 0) {
    const at = { column: row.column(PAYMENT_DETAILS), order: nested };
    const entries = validatePaymentDetailEntries(values[nested], at, defaults, schemas);
    issues.push(...entries.issues);
    paymentDetails.push(...entries.details);
  }

  const clientUserId = row.has(CLIENT_USER_ID) ? row.text[CLIENT_USER_ID] : undefined;
  if (issues.length === 0) {
    const guarded = specBodies.compliance(compliance);
    if (guarded.success && clientUserId !== undefined) {
      const valid: PayerRowResult = {
        ok: true,
        clientUserId,
        compliance: guarded.data,
        paymentDetails,
        agreementCompleted: controls.agreementCompleted ?? options.defaultAgreementCompleted,
        completedSteps: controls.completedSteps ?? [],
      };
      if (controls.agreementCompleted === undefined && options.defaultAgreementCompleted)
        valid.agreementSignedElsewhere = true;
      if (warnings !== undefined && warnings.length > 0) valid.warnings = inColumnOrder([...warnings]);
      return carry(controls, true, valid);
    }
    if (!guarded.success) issues.push(...guardIssues(guarded.error, (field) => columnOf(row, field)));
  }
  const invalid: PayerRowResult =
    clientUserId === undefined
      ? { ok: false, issues: inColumnOrder(issues) }
      : { ok: false, clientUserId, issues: inColumnOrder(issues) };
  // Kept on an invalid row too: its next failed file must still skip what was done and name where it came from.
  return carry(controls, true, invalid);
}

/** A field with no cell is named by its own name. */
const BY_NAME = { absentColumn: (field: string) => field };

function hasBankAccount(row: RowCells): boolean {
  for (const id of BANK_ONLY) if (row.state[id] === TEXT || row.state[id] === UNUSABLE) return true;
  return false;
}

const CLIENT_USER_ID = fieldId('clientUserId');
const PAYMENT_DETAILS = fieldId('paymentDetails');
const BANK_ONLY: readonly number[] = BANK_ONLY_FIELDS.map(fieldId);
const REQUIRED_PAYER: ReadonlySet<string> = new Set(REQUIRED_PAYER_FIELDS);

/** Where an issue about the payer field at PAYER_FIELDS index `k` sits: its cell, filled or blank, else its name. */
function payerPlace(row: RowCells, k: number): { column: string; order: number } {
  const id = PAYER_IDS[k]!;
  return row.state[id] === TEXT || row.state[id] === BLANK
    ? { column: row.column(id), order: row.order(id) }
    : { column: PAYER_FIELDS[k]!, order: Number.MAX_SAFE_INTEGER };
}

const PAYER_IDS: readonly number[] = PAYER_FIELDS.map(fieldId);

/** The column of a field with a text cell, else the field's name. */
function columnOf(row: RowCells, field: string): string {
  const id = idOf(field);
  return id >= 0 && row.has(id) ? row.column(id) : field;
}

/**
 * By PAYMENT_DETAIL_FIELDS index, the cell a payer row's bank account takes each field from: a bank-only field's own
 * cell, or the `bank*` column that overrides a shared one (`bankCity`); the payer's own `city` is a default, not a cell.
 */
const FROM: readonly number[] = PAYMENT_DETAIL_FIELDS.map((field) => {
  const shared = SHARED_FIELDS.find((s) => s.field === field);
  if (shared !== undefined) return fieldId(shared.override);
  return (BANK_ONLY_FIELDS as readonly string[]).includes(field) ? fieldId(field) : -1;
});

const NOT_QUIET: readonly boolean[] = PAYMENT_DETAIL_FIELDS.map(() => false);
const NO_DEFAULTS: readonly undefined[] = PAYMENT_DETAIL_FIELDS.map(() => undefined);

// The shared fields by where they sit in a payment detail and in the payer's row.
const SHARED = SHARED_FIELDS.map(({ field, payerField }) => ({
  index: PAYMENT_DETAIL_FIELDS.indexOf(field as PaymentDetailField),
  payerIndex: PAYER_FIELDS.indexOf(payerField),
  payerId: fieldId(payerField),
  required: REQUIRED_PAYER.has(payerField),
}));

/**
 * What the payer lends its bank accounts (shared fields default to the payer's, `postalCode` from
 * `postcode`). A payer value that was wrong or missing is reported once, under the payer's column, so it lends `null`.
 */
function payerDefaults(values: readonly (string | undefined)[], row: RowCells): PayerDefaults {
  const defaults: (string | null | undefined)[] = NO_DEFAULTS.slice();
  for (const { index, payerIndex, payerId, required } of SHARED) {
    const value = values[payerIndex];
    if (value !== undefined) defaults[index] = value;
    else if (row.state[payerId] === TEXT || row.state[payerId] === UNUSABLE || required) defaults[index] = null;
  }
  return defaults;
}
