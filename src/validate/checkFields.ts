import type { z } from 'zod';
import type { CellPlace, OrderedIssue, TextCell } from './cellTexts.js';
import { withValue } from './describeValue.js';

// Issues about absent fields have no cell to sit at: they come after every cell's issue, in field order.
const AFTER_ALL_CELLS = Number.MAX_SAFE_INTEGER;

export interface CheckFieldsOptions<F extends string> {
  required: ReadonlySet<string>;
  /** Fields not to call "required" when absent: their cell was reported already (or the payer's was). */
  quiet: ReadonlySet<string>;
  /** Blank cells: a required field left blank is named by its column as written. */
  blanks: ReadonlyMap<string, CellPlace>;
  /** How to name a field with no cell at all: its name, or `paymentDetails[0].bankName` inside a JSONL entry. */
  absentColumn: (field: F) => string;
}

/**
 * Runs each field's own schema on its cell, so every field is judged (design.md §4: every issue of a row, not
 * only the first) and the valid ones come back normalised even when others fail.
 */
export function checkFields<F extends string>(
  shape: Readonly<Record<F, z.ZodType>>,
  fields: readonly F[],
  given: ReadonlyMap<string, TextCell>,
  options: CheckFieldsOptions<F>,
): { values: Partial<Record<F, string>>; issues: OrderedIssue[] } {
  const values: Partial<Record<F, string>> = {};
  const issues: OrderedIssue[] = [];
  for (const field of fields) {
    const cell = given.get(field);
    if (cell === undefined) {
      if (options.required.has(field) && !options.quiet.has(field)) {
        const blank = options.blanks.get(field);
        issues.push({
          column: blank?.column ?? options.absentColumn(field),
          message: 'is required',
          order: blank?.order ?? AFTER_ALL_CELLS,
        });
      }
      continue;
    }
    const parsed = shape[field].safeParse(cell.text);
    if (parsed.success) {
      values[field] = String(parsed.data);
    } else {
      const message = parsed.error.issues[0]?.message ?? 'is not valid';
      issues.push({ column: cell.column, message: withValue(message, field, cell.text), order: cell.order });
    }
  }
  return { values, issues };
}

/** A row's issues in the order of its columns (stable, so one cell's issues keep their order). */
export function inColumnOrder(issues: OrderedIssue[]): { column: string; message: string }[] {
  return [...issues].sort((a, b) => a.order - b.order).map(({ column, message }) => ({ column, message }));
}
