import { SHARED_FIELDS, type PaymentDetailField } from './fields.js';

const OVERRIDDEN: ReadonlyMap<string, PaymentDetailField> = new Map(SHARED_FIELDS.map((s) => [s.override, s.field]));

/** The payment-detail field a name stands for: `bankCity` -> `city`; a field's own name -> itself; else undefined. */
export function bankFieldOf(name: string, ownFields: readonly string[]): PaymentDetailField | undefined {
  return OVERRIDDEN.get(name) ?? (ownFields.includes(name) ? (name as PaymentDetailField) : undefined);
}

/**
 * The cells that make up one payment detail, keyed by payment-detail field: its own fields by their names
 * (`ownFields`: the bank-only fields on a payer row, every payment-detail field in a JSONL entry) and the
 * `bank*` overrides by the field they override. Where an entry gives both `city` and `bankCity`, the first wins
 * and the second is a conflict to report.
 */
export function bankCells<T extends { column: string; order: number }>(
  byField: ReadonlyMap<string, T>,
  ownFields: readonly string[],
): { cells: Map<PaymentDetailField, T>; conflicts: { column: string; message: string; order: number }[] } {
  const cells = new Map<PaymentDetailField, T>();
  const conflicts: { column: string; message: string; order: number }[] = [];
  for (const [name, cell] of byField) {
    const field = bankFieldOf(name, ownFields);
    if (field === undefined) continue;
    const earlier = cells.get(field);
    if (earlier === undefined) cells.set(field, cell);
    else
      conflicts.push({
        column: cell.column,
        message: `gives ${field} a second time (already given as "${earlier.column}")`,
        order: cell.order,
      });
  }
  return { cells, conflicts };
}
