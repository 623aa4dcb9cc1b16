import { PAYMENT_DETAIL_FIELDS, REQUIRED_PAYMENT_DETAIL_FIELDS, type PaymentDetailField } from '../rows/fields.js';
import { paymentDetailRequest, type PaymentDetailRequest } from '../schema/index.js';
import type { CellPlace, OrderedIssue, TextCell } from './cellTexts.js';
import { checkFields } from './checkFields.js';
import type { ClientSchemas } from './clientSchemas.js';
import { guardIssues } from './guardIssues.js';

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
  const inherited: Partial<Record<PaymentDetailField, string>> = {};
  for (const [field, value] of input.defaults ?? []) {
    if (input.cells.has(field)) continue; // a bank* override wins
    if (value === null) quiet.add(field);
    else inherited[field] = value;
  }
  const own = PAYMENT_DETAIL_FIELDS.filter((field) => !(field in inherited));
  const { values, issues } = checkFields(schemas.paymentDetail.shape, own, input.cells, {
    required: REQUIRED,
    quiet,
    blanks: input.blanks,
    absentColumn: input.absentColumn,
  });
  // A quiet required field is a problem reported elsewhere on the row: no detail, and nothing more to say.
  if (issues.length > 0 || REQUIRED_PAYMENT_DETAIL_FIELDS.some((field) => quiet.has(field))) return { issues };

  const body: Partial<Record<PaymentDetailField, string>> = {};
  for (const field of PAYMENT_DETAIL_FIELDS) {
    const value = values[field] ?? inherited[field];
    if (value !== undefined) body[field] = value;
  }
  const guarded = paymentDetailRequest.safeParse(body);
  if (!guarded.success)
    return { issues: guardIssues(guarded.error, (field) => input.absentColumn(field as PaymentDetailField)) };
  return { detail: guarded.data, issues: [] };
}
