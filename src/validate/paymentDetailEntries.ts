import { PAYMENT_DETAIL_FIELDS, SHARED_FIELDS } from '../rows/fields.js';
import { JsonNumber } from '../rows/findData.js';
import { FIELD_COUNT, fieldId, layoutOf } from '../rows/layout.js';
import type { PaymentDetailRequest } from '../core/schemas.js';
import type { ClientSchemas } from './clientSchemas.js';
import { BLANK, readCells, type RowCells, TEXT, UNUSABLE } from './rowCells.js';
import type { OrderedIssue } from './textChecks.js';
import { type PayerDefaults, validatePaymentDetail } from './validateBankRow.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);

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
    return {
      details: [],
      issues: [{ column: at.column, message: 'must be an object or an array of objects', order: at.order }],
    };
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
    const layout = layoutOf(Object.keys(entry), 'payment-details-entry', prefix);
    const read = readCells(Object.values(entry), layout, -1, defaults[COUNTRY] ?? '');
    const own = entryCells(read.row);
    const checked = validatePaymentDetail(
      { row: read.row, from: own.from, quiet: own.quiet, defaults, absentColumn: (field) => prefix + field },
      schemas,
    );
    const entryIssues = [
      ...read.repeated,
      // Unknown keys are an issue here, not a warning as in a header: a misspelt key (`routingCode`) would silently
      // drop a bank field.
      ...layout.unknown.map((i) => ({ column: layout.named[i]!, message: 'is not a payment-detail field', order: i })),
      ...read.issues,
      ...own.conflicts,
      ...checked.issues,
    ];
    entryIssues.sort((a, b) => a.order - b.order);
    issues.push(...entryIssues.map(({ column, message }) => ({ column, message, order: at.order })));
    if (entryIssues.length === 0 && checked.detail) details.push(checked.detail);
  }
  return { details, issues };
}

const COUNTRY = PAYMENT_DETAIL_FIELDS.indexOf('country');

// By field id, the PAYMENT_DETAIL_FIELDS index an entry's key gives: its own field, or the one a `bank*` key overrides.
const DETAIL_INDEX: readonly number[] = (() => {
  const index = new Array<number>(FIELD_COUNT).fill(-1);
  PAYMENT_DETAIL_FIELDS.forEach((field, k) => {
    index[fieldId(field)] = k;
  });
  for (const { field, override } of SHARED_FIELDS) index[fieldId(override)] = PAYMENT_DETAIL_FIELDS.indexOf(field);
  return index;
})();

/**
 * The cell each payment-detail field of an entry comes from. An entry may give a field by its name and by its
 * `bank*` name (`city` and `bankCity`): the first filled one counts and the second is an issue; with neither filled,
 * the first blank one says where the field is. A key that could not be read as text quiets its field.
 */
function entryCells(row: RowCells): { from: number[]; quiet: boolean[]; conflicts: OrderedIssue[] } {
  const from = new Array<number>(PAYMENT_DETAIL_FIELDS.length).fill(-1);
  const quiet = new Array<boolean>(PAYMENT_DETAIL_FIELDS.length).fill(false);
  const conflicts: OrderedIssue[] = [];
  const { sequence } = row.layout;
  for (const id of sequence) {
    const k = DETAIL_INDEX[id]!;
    if (k < 0) continue;
    if (row.state[id] === UNUSABLE) quiet[k] = true;
    if (row.state[id] !== TEXT) continue;
    const earlier = from[k]!;
    if (earlier < 0) from[k] = id;
    else
      conflicts.push({
        column: row.column(id),
        message: `gives ${PAYMENT_DETAIL_FIELDS[k]} a second time (already given as "${row.column(earlier)}")`,
        order: row.order(id),
      });
  }
  for (const id of sequence) {
    const k = DETAIL_INDEX[id]!;
    if (k >= 0 && from[k]! < 0 && row.state[id] === BLANK) from[k] = id;
  }
  return { from, quiet, conflicts };
}
