import { bankCells, bankFieldOf, collectCells, type ColumnMap } from '../rows/columns.js';
import {
  BANK_ONLY_FIELDS,
  PAYER_FIELDS,
  PAYMENT_DETAILS_KEY,
  REQUIRED_PAYER_FIELDS,
  SHARED_FIELDS,
  type PaymentDetailField,
  PAYMENT_DETAIL_FIELDS,
} from '../rows/fields.js';
import type { PaymentDetailRequest } from '../schema/index.js';
import type { Cell, PayerRowResult } from '../types.js';
import { cellTexts, type TextCell, repairSpreadsheetDamage, type DateFormat } from './cellTexts.js';
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
import { validatePaymentDetail, type PayerDefaults } from './validateBankRow.js';

export interface ValidatePayerRowOptions {
  /** For a blank `agreementCompleted` cell: the run's `--complete-agreement` / `--no-complete-agreement`. */
  defaultAgreementCompleted: boolean;
  /** The day a date of birth may not be after; the current day when absent. */
  today?: Date;
  /** `--map`: the user's own column names for fields. */
  columns?: ColumnMap | undefined;
  /** `--date-format`: how to read dates not written YYYY-MM-DD (`MM/DD/YYYY`). */
  dateFormat?: DateFormat | undefined;
  /** The schemas for `today`, built once by a caller that checks many rows. */
  schemas?: ClientSchemas;
}

const REQUIRED_PAYER: ReadonlySet<string> = new Set(REQUIRED_PAYER_FIELDS);
const BOOLEAN_CELLS: ReadonlySet<string> = new Set(['agreementCompleted']);

/**
 * One row of a payer file: the payer's compliance body and, when the row has any bank-only cell or a JSONL
 * `paymentDetails`, its payment-detail bodies. Every issue of the row is collected, each
 * named by the user's own column. Unknown columns are the caller's to carry through; they are ignored here.
 */
export function validatePayerRow(cells: readonly Cell[], options: ValidatePayerRowOptions): PayerRowResult {
  const schemas = options.schemas ?? clientSchemas(localDay(options.today ?? new Date()));
  const collected = collectCells(cells, 'payers', '', 0, options.columns);
  const nested = collected.byField.get(PAYMENT_DETAILS_KEY);
  collected.byField.delete(PAYMENT_DETAILS_KEY);
  const { texts, blanks, unusable, issues: cellIssues } = cellTexts(collected.byField, BOOLEAN_CELLS);
  const damage = repairSpreadsheetDamage(texts, unusable, options);

  const payer = checkFields(schemas.compliance.shape, PAYER_FIELDS, texts, {
    required: REQUIRED_PAYER,
    quiet: unusable,
    blanks,
    absentColumn: (field) => field,
    fast: schemas.fast.compliance,
  });
  const controls = readControls(texts);
  const defaults = payerDefaults(payer.values, texts, unusable);

  const paymentDetails: PaymentDetailRequest[] = [];
  const issues: OrderedIssue[] = [...collected.repeated, ...cellIssues, ...damage, ...payer.issues, ...controls.issues];

  // A row with any bank-only cell filled has a bank account; one with none has not.
  if (BANK_ONLY_FIELDS.some((field) => texts.has(field) || unusable.has(field))) {
    const own = bankCells(texts, BANK_ONLY_FIELDS);
    const quiet = new Set([...unusable].flatMap((name) => bankFieldOf(name, BANK_ONLY_FIELDS) ?? []));
    const checked = validatePaymentDetail(
      {
        cells: own.cells,
        blanks: bankCells(blanks, BANK_ONLY_FIELDS).cells,
        unusable: quiet,
        defaults,
        absentColumn: (field) => field,
      },
      schemas,
    );
    issues.push(...checked.issues);
    if (checked.detail) paymentDetails.push(checked.detail);
  }
  if (nested) {
    const entries = validatePaymentDetailEntries(nested.value, nested, defaults, schemas);
    issues.push(...entries.issues);
    paymentDetails.push(...entries.details);
  }

  const clientUserId = texts.get('clientUserId')?.text;
  if (issues.length === 0) {
    const guarded = specRequests.compliance(payer.values);
    if (guarded.success && clientUserId !== undefined) {
      return {
        ok: true,
        clientUserId,
        compliance: guarded.data,
        paymentDetails,
        agreementCompleted: controls.agreementCompleted ?? options.defaultAgreementCompleted,
        ...carried(controls, true),
        completedSteps: controls.completedSteps ?? [],
      };
    }
    if (!guarded.success) issues.push(...guardIssues(guarded.error, (field) => texts.get(field)?.column ?? field));
  }
  return {
    ok: false,
    ...(clientUserId === undefined ? {} : { clientUserId }),
    issues: inColumnOrder(issues),
    // Kept on an invalid row too: its next failed file must still skip what was done and name where it came from.
    ...carried(controls, true),
  };
}

/**
 * What the payer lends its bank accounts (shared fields default to the payer's, `postalCode` from
 * `postcode`). A payer value that was wrong or missing is reported once, under the payer's column, so it lends `null`.
 */
function payerDefaults(
  values: Partial<Record<string, string>>,
  texts: ReadonlyMap<string, TextCell>,
  unusable: ReadonlySet<string>,
): PayerDefaults {
  const defaults = new Map<PaymentDetailField, string | null>();
  for (const { field, payerField } of SHARED_FIELDS) {
    const value = values[payerField];
    if (value !== undefined) defaults.set(field, value);
    else if (texts.has(payerField) || unusable.has(payerField) || REQUIRED_PAYER.has(payerField))
      defaults.set(field, null);
  }
  return defaults;
}

const NO_BOOLEANS: ReadonlySet<string> = new Set();

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSONL line's `paymentDetails`: one object or an array of them, each a payment detail by
 * field names, filled from the payer like a CSV row's bank cells. Issues name the key inside the entry,
 * `paymentDetails[1].iban` (0-based, as in JSON paths), or `paymentDetails.iban` for a lone object. All of an
 * entry's issues sit where the `paymentDetails` key sits in the line.
 */
export function validatePaymentDetailEntries(
  value: unknown,
  at: { column: string; order: number },
  defaults: PayerDefaults,
  schemas: ClientSchemas,
): { details: PaymentDetailRequest[]; issues: OrderedIssue[] } {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    return { details: [], issues: [] };
  }
  if (!isPlainObject(value) && !Array.isArray(value)) {
    return { details: [], issues: [{ ...at, message: 'must be an object or an array of objects' }] };
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((entry, i) => [`${at.column}[${i}].`, entry])
    : [[`${at.column}.`, value]];

  const details: PaymentDetailRequest[] = [];
  const issues: OrderedIssue[] = [];
  for (const [prefix, entry] of entries) {
    if (!isPlainObject(entry)) {
      issues.push({ column: prefix.slice(0, -1), message: 'must be an object', order: at.order });
      continue;
    }
    const cells: Cell[] = Object.entries(entry).map(([column, cellValue]) => ({ column, value: cellValue }));
    const collected = collectCells(cells, 'payment-details-entry', prefix);
    const read = cellTexts(collected.byField, NO_BOOLEANS);
    const own = bankCells(read.texts, PAYMENT_DETAIL_FIELDS);
    const unusable = new Set([...read.unusable].flatMap((name) => bankFieldOf(name, PAYMENT_DETAIL_FIELDS) ?? []));
    const checked = validatePaymentDetail(
      {
        cells: own.cells,
        blanks: bankCells(read.blanks, PAYMENT_DETAIL_FIELDS).cells,
        unusable,
        defaults,
        absentColumn: (field) => prefix + field,
      },
      schemas,
    );
    const entryIssues = [
      ...collected.repeated,
      ...collected.unknown.map((cell) => ({ ...cell, message: 'is not a payment-detail field' })),
      ...read.issues,
      ...own.conflicts,
      ...checked.issues,
    ];
    // Unknown keys are an issue here, not a warning as in a header: a misspelt key (`routingCode`) would silently
    // drop a bank field.
    entryIssues.sort((a, b) => a.order - b.order);
    issues.push(...entryIssues.map(({ column, message }) => ({ column, message, order: at.order })));
    if (entryIssues.length === 0 && checked.detail) details.push(checked.detail);
  }
  return { details, issues };
}
