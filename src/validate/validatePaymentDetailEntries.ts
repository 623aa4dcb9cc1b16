import { bankCells, bankFieldOf } from '../rows/bankCells.js';
import { collectCells } from '../rows/collectCells.js';
import { PAYMENT_DETAIL_FIELDS } from '../rows/fields.js';
import type { PaymentDetailRequest } from '../schema/index.js';
import type { Cell } from '../types.js';
import { cellTexts, type OrderedIssue } from './cellTexts.js';
import type { ClientSchemas } from './clientSchemas.js';
import { validatePaymentDetail, type PayerDefaults } from './validatePaymentDetail.js';

const NO_BOOLEANS: ReadonlySet<string> = new Set();

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSONL line's `paymentDetails`: one object or an array of them (design.md §3), each a payment detail by
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
    // Unknown keys are an issue here, not a warning as in a header: a misspelt `routing` would silently drop a bank field.
    entryIssues.sort((a, b) => a.order - b.order);
    issues.push(...entryIssues.map(({ column, message }) => ({ column, message, order: at.order })));
    if (entryIssues.length === 0 && checked.detail) details.push(checked.detail);
  }
  return { details, issues };
}
