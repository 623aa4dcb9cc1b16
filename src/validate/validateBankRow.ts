import type { ColumnMap } from '../rows/columns.js';
import { PAYMENT_DETAIL_FIELDS, REQUIRED_PAYMENT_DETAIL_FIELDS, type PaymentDetailField } from '../rows/fields.js';
import { fieldId, layoutOf } from '../rows/layout.js';
import type { BankRowResult, Cell } from '../core/types.js';
import { repairSpreadsheetDamage } from './cellTexts.js';
import type { DateFormat } from '../core/types.js';
import type { Readers } from '../core/advice.js';
import { type OrderedIssue, guardIssues, joinIssues } from './textChecks.js';
import { inColumnOrder, clientSchemas, localDay, specBodies, type ClientSchemas } from './clientSchemas.js';
import { checkFields } from './checkFields.js';
import { carry, readControls } from './controls.js';
import type { PaymentDetailRequest } from '../core/schemas.js';
import { BLANK, readCells, type RowCells, TEXT, UNUSABLE } from './rowCells.js';
import { CORRIDOR_FIELDS, corridorIssues } from './corridors.js';

export interface BankRowOptions {
  today?: Date;
  columns?: ColumnMap | undefined;
  dateFormat?: DateFormat | undefined;
  /** The row is a JSONL line: a damaged value's fix is written for JSON. */
  json?: boolean | undefined;
  /** Who reads the row's messages (a terminal when absent): their advice is in their words. */
  readers?: Readers | undefined;
  schemas?: ClientSchemas;
}

/**
 * One row of a `--bank-details` file: `clientUserId` and a payment detail by the fields' own names.
 * There is no payer row to lend shared fields, so every required one is the row's own.
 */
export function validateBankRow(cells: readonly Cell[], options: BankRowOptions = {}): BankRowResult {
  return checkBankRow(
    cells.map((cell) => cell.column),
    cells.map((cell) => cell.value),
    options,
  );
}

/** validateBankRow for a row given as its columns and, in the same order, its values (a CSV header and a record). */
export function checkBankRow(
  columns: readonly string[],
  values: readonly unknown[],
  options: BankRowOptions = {},
): BankRowResult {
  const schemas = options.schemas ?? clientSchemas(localDay(options.today ?? new Date()));
  const read = readCells(values, layoutOf(columns, 'bank-details', '', options.columns), -1);
  const row = read.row;
  const damage = repairSpreadsheetDamage(row, options);

  const id: (string | undefined)[] = [];
  const byName = { absentColumn: (field: string) => field };
  const idIssues = checkFields(schemas.checks.clientUserId, row, byName, id, options.readers);
  const controls = readControls(row);
  const quiet = OWN.map((cell) => row.state[cell] === UNUSABLE);
  const detail = validatePaymentDetail(
    { row, from: OWN, quiet, absentColumn: byName.absentColumn, readers: options.readers },
    schemas,
  );
  const issues = joinIssues([read.repeated, read.issues, damage, idIssues, controls.issues, detail.issues]);

  const clientUserId = id[0];
  if (issues.length === 0 && clientUserId !== undefined && detail.detail) {
    // A bank row was never registered as a payer: a compliance digest on it would compare with nothing.
    const valid: BankRowResult = {
      ok: true,
      clientUserId,
      paymentDetail: detail.detail,
      completedSteps: controls.completedSteps ?? [],
    };
    return carry(controls, false, valid);
  }
  const invalid: BankRowResult = row.has(CLIENT_USER_ID)
    ? { ok: false, clientUserId: row.text[CLIENT_USER_ID]!, issues: inColumnOrder(issues) }
    : { ok: false, issues: inColumnOrder(issues) };
  return carry(controls, false, invalid);
}

const CLIENT_USER_ID = fieldId('clientUserId');
// A bank-details row names each payment-detail field by its own name.
const OWN: readonly number[] = PAYMENT_DETAIL_FIELDS.map(fieldId);
const REQUIRED: readonly number[] = REQUIRED_PAYMENT_DETAIL_FIELDS.map((field) => PAYMENT_DETAIL_FIELDS.indexOf(field));

/**
 * What a payer row lends its payment details, by PAYMENT_DETAIL_FIELDS index: the payer's valid, normalised value,
 * or `null` when the payer's own cell was absent or wrong. That was reported under the payer's column, so the detail
 * stays quiet about it. Undefined where the payer lends nothing.
 */
export type PayerDefaults = readonly (string | null | undefined)[];

export interface PaymentDetailInput {
  row: RowCells;
  /** By PAYMENT_DETAIL_FIELDS index: the field id of the cell giving the field (its own, or a `bank*` one), or -1. */
  from: readonly number[];
  /** By PAYMENT_DETAIL_FIELDS index: fields whose cell could not be read as text (already reported). Added to here. */
  quiet: boolean[];
  defaults?: PayerDefaults;
  absentColumn: (field: PaymentDetailField) => string;
  /** Who reads the detail's messages. */
  readers?: Readers | undefined;
}

/** One payment detail: its own cells checked, shared fields filled from the payer, the spec's schema as the last word. */
export function validatePaymentDetail(
  input: PaymentDetailInput,
  schemas: ClientSchemas,
): { detail?: PaymentDetailRequest; issues: OrderedIssue[] } {
  const { row, from, quiet, defaults } = input;
  // By index, the payer's values this detail takes; those fields are not checked again.
  let inherited: (string | undefined)[] | undefined;
  if (defaults !== undefined) {
    for (let k = 0; k < defaults.length; k++) {
      const value = defaults[k];
      if (value === undefined) continue;
      const cell = from[k]!;
      if (cell >= 0 && row.state[cell] === TEXT) continue; // a bank* override wins
      if (value === null) quiet[k] = true;
      else {
        inherited ??= [];
        inherited[k] = value;
      }
    }
  }
  const values: (string | undefined)[] = new Array<undefined>(PAYMENT_DETAIL_FIELDS.length);
  const issues = checkFields(
    schemas.checks.paymentDetail,
    row,
    {
      from,
      quiet,
      given: inherited,
      absentColumn: input.absentColumn as (field: string) => string,
    },
    values,
    input.readers,
  );
  // A quiet required field is a problem reported elsewhere on the row: no detail. What the corridor needs is said
  // beside the other problems all the same, so that one round of fixes is enough.
  if (issues.length > 0 || REQUIRED.some((k) => quiet[k]))
    return { issues: [...issues, ...lacking(input, values, issues)] };

  if (inherited !== undefined) for (let k = 0; k < values.length; k++) values[k] ??= inherited[k];
  const guarded = specBodies.paymentDetail(values);
  if (!guarded.success)
    return { issues: guardIssues(guarded.error, (field) => input.absentColumn(field as PaymentDetailField)) };
  // Every field of it passed: now what its currency and rails need together.
  const needs = lacking(input, values, NO_ISSUES);
  if (needs.length > 0) return { issues: [...needs] };
  return { detail: guarded.data, issues: [] };
}

const NO_ISSUES: readonly OrderedIssue[] = [];

/**
 * What the detail's currency and rails need that it lacks, once the fields they read passed or were left blank
 * (a cell that could not be read, or told already under another column, is no ground to ask for more).
 */
function lacking(
  input: PaymentDetailInput,
  values: readonly (string | undefined)[],
  told: readonly OrderedIssue[],
): readonly OrderedIssue[] {
  const { row, from, quiet } = input;
  for (const k of CORRIDOR_FIELDS) {
    if (quiet[k]) return NO_ISSUES;
    const id = from[k]!;
    if (id >= 0 && row.state[id] === TEXT && values[k] === undefined) return NO_ISSUES;
  }
  const needs = corridorIssues(values, (k) => placeOf(input, k));
  if (told.length === 0 || needs.length === 0) return needs;
  return needs.filter((need) => !told.some((issue) => issue.column === need.column));
}

/** A field the detail lacks is named by its blank cell's column as written, else as the caller names absent fields. */
function placeOf(input: PaymentDetailInput, k: number): { column: string; order: number } {
  const id = input.from[k]!;
  if (id >= 0 && input.row.state[id] === BLANK) return { column: input.row.column(id), order: input.row.order(id) };
  return { column: input.absentColumn(PAYMENT_DETAIL_FIELDS[k]!), order: Number.MAX_SAFE_INTEGER };
}
