import { isBlank } from '../rows/columns.js';
import { DIGIT_FIELDS, SHARED_FIELDS } from '../rows/fields.js';
import { NumberCell } from '../rows/findData.js';
import { FIELD_COUNT, fieldId, fieldName, type RowLayout } from '../rows/layout.js';
import { type OrderedIssue, withValue } from './textChecks.js';

/** What a field's cell holds in a row: no cell, text, a blank, or something that is not text (already reported). */
const NONE = 0;
export const TEXT = 1;
export const BLANK = 2;
export const UNUSABLE = 3;

const NONES: readonly number[] = new Array<number>(FIELD_COUNT).fill(NONE);
const EMPTY: readonly string[] = new Array<string>(FIELD_COUNT).fill('');
const PAYMENT_DETAILS = fieldId('paymentDetails');
const ERROR = fieldId('error');
// By field id: the field a JSON number cannot hold, its own or the one its `bank*` column overrides; else undefined.
const DIGITS: readonly (string | undefined)[] = (() => {
  const digits = Array.from({ length: FIELD_COUNT }, (_, id) =>
    DIGIT_FIELDS.has(fieldName(id)) ? fieldName(id) : undefined,
  );
  for (const { field, override } of SHARED_FIELDS) if (DIGIT_FIELDS.has(field)) digits[fieldId(override)] = field;
  return digits;
})();

/**
 * One row's cells by field id: each filled cell as trimmed text, and where each field's cell is (its column as the
 * user wrote it, and its place in the row, for ordering issues). Arrays by number rather than maps by name: a file
 * checks a million rows of twenty cells.
 */
export class RowCells {
  /** By field id: NONE, TEXT, BLANK or UNUSABLE. */
  readonly state: number[] = NONES.slice();
  /** By field id: the trimmed text of a TEXT cell. */
  readonly text: string[] = EMPTY.slice();
  /** By field id: a spreadsheet number cell (its text is the digits it showed), where digits may be lost. */
  numbers: (NumberCell | undefined)[] | undefined;
  /** By field id: the cell that counts for the field (the layout's, unless a field is named twice). */
  at: readonly number[];

  constructor(readonly layout: RowLayout) {
    this.at = layout.at;
  }

  has(id: number): boolean {
    return this.state[id] === TEXT;
  }

  /** The field's column as issues name it. */
  column(id: number): string {
    return this.layout.named[this.at[id]!]!;
  }

  /** The field's place in the row. */
  order(id: number): number {
    return this.at[id]!;
  }

  numberCell(id: number): NumberCell | undefined {
    return this.numbers?.[id];
  }

  /** A TEXT cell becomes UNUSABLE: a spreadsheet damaged it, and that is reported instead of the field's own rules. */
  spoil(id: number): void {
    this.state[id] = UNUSABLE;
  }
}

/**
 * Reads a row's cells as text. CSV cells are strings already. xlsx number cells are read as the digits they show,
 * the cell kept beside. JSONL cells may be numbers (turned into their decimal text, except in a field of digits that
 * may start with 0, where a number is an issue), booleans (only where a yes/no is meant) or objects and arrays, which
 * no field accepts. Where two cells name one field (JSONL `first_name` and `firstName`), the first filled one counts
 * and a second filled one is an issue. `paymentDetails` is left to the caller. Unknown columns are ignored here.
 */
export function readCells(
  values: readonly unknown[],
  layout: RowLayout,
  booleanField: number,
): { row: RowCells; issues: OrderedIssue[]; repeated: OrderedIssue[] } {
  const row = new RowCells(layout);
  const issues: OrderedIssue[] = [];
  const repeated: OrderedIssue[] = layout.repeats ? chooseCells(values, row) : [];
  const { state, text, at } = row;
  for (const id of layout.sequence) {
    if (id === PAYMENT_DETAILS) continue;
    const i = at[id]!;
    const value = values[i];
    // A CSV's cells, and most others: text.
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (trimmed !== '') {
        state[id] = TEXT;
        text[id] = trimmed;
      } else state[id] = BLANK;
      continue;
    }
    if (value instanceof NumberCell) {
      state[id] = TEXT;
      text[id] = value.shown.trim();
      row.numbers ??= [];
      row.numbers[id] = value;
      continue;
    }
    const digits = DIGITS[id];
    if (typeof value === 'number' && digits !== undefined) {
      state[id] = UNUSABLE;
      issues.push({ column: layout.named[i]!, message: jsonNumber(digits, layout.columns[i]!, value), order: i });
      continue;
    }
    const problem = notText(value, id === booleanField);
    if (problem !== undefined) {
      state[id] = UNUSABLE;
      issues.push({ column: layout.named[i]!, message: problem, order: i });
      continue;
    }
    const written = value === undefined || value === null ? '' : String(value).trim();
    if (written !== '') {
      state[id] = TEXT;
      text[id] = written;
    } else state[id] = BLANK;
  }
  return { row, issues, repeated };
}

/** For a layout naming a field twice: the cell that counts for each field, and an issue for each filled repeat. */
function chooseCells(values: readonly unknown[], row: RowCells): OrderedIssue[] {
  const { ids, named } = row.layout;
  const at = row.layout.at.slice();
  const repeated: OrderedIssue[] = [];
  ids.forEach((id, i) => {
    if (id < 0) return;
    const earlier = at[id]!;
    if (earlier === i) return;
    // A blank repeat is no conflict, so the filled one counts.
    if (isBlank(values[earlier])) at[id] = i;
    else if (!isBlank(values[i]) && id !== ERROR) {
      repeated.push({
        column: named[i]!,
        message: `gives ${fieldName(id)} a second time (already given as "${named[earlier]}")`,
        order: i,
      });
    }
  });
  row.at = at;
  return repeated;
}

/**
 * A JSON number in a field of digits: `123456789` may have been the account 000123456789, and JSON cannot say, so
 * the fix is written for JSON, naming the key as the line spells it. The value is echoed only as withValue allows.
 */
function jsonNumber(field: string, key: string, value: number): string {
  const problem =
    field === 'phone'
      ? `is a JSON number, which cannot keep a leading + or 0: write it as a string with + and its country code (${JSON.stringify(key)}: "+...")`
      : `is a JSON number, which cannot keep leading zeros: write it as a string with all its digits (${JSON.stringify(key)}: "...")`;
  return withValue(problem, field, String(value));
}

function notText(value: unknown, booleanAllowed: boolean): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (typeof value) {
    case 'string':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : 'must be text or a number';
    case 'boolean':
      return booleanAllowed ? undefined : `must be text, got ${String(value)}`;
    default:
      return Array.isArray(value) ? 'must be text, got a list' : 'must be text, got an object';
  }
}
