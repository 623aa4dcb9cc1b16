import { bankCells, collectCells, type ColumnMap } from '../rows/columns.js';
import { PAYMENT_DETAIL_FIELDS, REQUIRED_PAYMENT_DETAIL_FIELDS, type PaymentDetailField } from '../rows/fields.js';
import type { BankRowResult, Cell } from '../types.js';
import { cellTexts, repairSpreadsheetDamage, type DateFormat, type CellPlace, type TextCell } from './cellTexts.js';
import { type OrderedIssue, guardIssues } from './textChecks.js';
import {
  checkFields,
  inColumnOrder,
  clientSchemas,
  localDay,
  specRequests,
  type ClientSchemas,
} from './clientSchemas.js';
import { carried, readControls } from './controls.js';
import type { PaymentDetailRequest } from '../schema/index.js';

const NO_BOOLEANS: ReadonlySet<string> = new Set();
const CLIENT_USER_ID = ['clientUserId'] as const;

/**
 * One row of a `--bank-details` file: `clientUserId` and a payment detail by the fields' own names.
 * There is no payer row to lend shared fields, so every required one is the row's own.
 */
export function validateBankRow(
  cells: readonly Cell[],
  options: {
    today?: Date;
    columns?: ColumnMap | undefined;
    dateFormat?: DateFormat | undefined;
    schemas?: ClientSchemas;
  } = {},
): BankRowResult {
  const schemas = options.schemas ?? clientSchemas(localDay(options.today ?? new Date()));
  const collected = collectCells(cells, 'bank-details', '', 0, options.columns);
  const { texts, blanks, unusable, issues: cellIssues } = cellTexts(collected.byField, NO_BOOLEANS);
  const damage = repairSpreadsheetDamage(texts, unusable, options);

  const id = checkFields(schemas.compliance.shape, CLIENT_USER_ID, texts, {
    required: new Set(CLIENT_USER_ID),
    quiet: unusable,
    blanks,
    absentColumn: (field) => field,
    fast: schemas.fast.compliance,
  });
  const controls = readControls(texts);
  const detail = validatePaymentDetail(
    {
      cells: bankCells(texts, PAYMENT_DETAIL_FIELDS).cells,
      blanks: bankCells(blanks, PAYMENT_DETAIL_FIELDS).cells,
      unusable,
      absentColumn: (field) => field,
    },
    schemas,
  );
  const issues: OrderedIssue[] = [
    ...collected.repeated,
    ...cellIssues,
    ...damage,
    ...id.issues,
    ...controls.issues,
    ...detail.issues,
  ];

  const clientUserId = id.values.clientUserId;
  if (issues.length === 0 && clientUserId !== undefined && detail.detail) {
    // A bank row was never registered as a payer: a compliance digest on it would compare with nothing.
    return {
      ok: true,
      clientUserId,
      paymentDetail: detail.detail,
      ...carried(controls, false),
      completedSteps: controls.completedSteps ?? [],
    };
  }
  const given = texts.get('clientUserId')?.text;
  return {
    ok: false,
    ...(given === undefined ? {} : { clientUserId: given }),
    issues: inColumnOrder(issues),
    ...carried(controls, false),
  };
}

const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_PAYMENT_DETAIL_FIELDS);

/**
 * What a payer row lends its payment details: the payer's valid, normalised value, or `null` when the payer's
 * own cell was absent or wrong. That was reported under the payer's column, so the detail stays quiet about it.
 */
export type PayerDefaults = ReadonlyMap<PaymentDetailField, string | null>;

export interface PaymentDetailInput {
  cells: ReadonlyMap<PaymentDetailField, TextCell>;
  blanks: ReadonlyMap<PaymentDetailField, CellPlace>;
  /** Fields whose cell could not be read as text (already reported). */
  unusable?: ReadonlySet<string>;
  defaults?: PayerDefaults;
  absentColumn: (field: PaymentDetailField) => string;
}

/** One payment detail: its own cells checked, shared fields filled from the payer, the spec's schema as the last word. */
export function validatePaymentDetail(
  input: PaymentDetailInput,
  schemas: ClientSchemas,
): { detail?: PaymentDetailRequest; issues: OrderedIssue[] } {
  const quiet = new Set(input.unusable);
  // A Map, not an object: every payment-detail field is looked up in it, for every row.
  const inherited = new Map<PaymentDetailField, string>();
  for (const [field, value] of input.defaults ?? []) {
    if (input.cells.has(field)) continue; // a bank* override wins
    if (value === null) quiet.add(field);
    else inherited.set(field, value);
  }
  const own =
    inherited.size === 0 ? PAYMENT_DETAIL_FIELDS : PAYMENT_DETAIL_FIELDS.filter((field) => !inherited.has(field));
  const { values, issues } = checkFields(schemas.paymentDetail.shape, own, input.cells, {
    required: REQUIRED,
    quiet,
    blanks: input.blanks,
    absentColumn: input.absentColumn,
    fast: schemas.fast.paymentDetail,
  });
  // A quiet required field is a problem reported elsewhere on the row: no detail, and nothing more to say.
  if (issues.length > 0 || REQUIRED_PAYMENT_DETAIL_FIELDS.some((field) => quiet.has(field))) return { issues };

  const body: Partial<Record<PaymentDetailField, string>> = {};
  for (const field of PAYMENT_DETAIL_FIELDS) {
    const value = values[field] ?? inherited.get(field);
    if (value !== undefined) body[field] = value;
  }
  const guarded = specRequests.paymentDetail(body);
  if (!guarded.success)
    return { issues: guardIssues(guarded.error, (field) => input.absentColumn(field as PaymentDetailField)) };
  return { detail: guarded.data, issues: [] };
}
