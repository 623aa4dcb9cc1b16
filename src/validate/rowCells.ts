import { isBlank } from '../rows/columns.js';
import { DIGIT_FIELDS, SHARED_FIELDS } from '../rows/fields.js';
import { JsonNumber, NumberCell } from '../rows/findData.js';
import { FIELD_COUNT, fieldId, fieldName, type RowLayout } from '../rows/layout.js';
import { keepsEveryDigit } from './digitLengths.js';
import { splitName } from '../rows/splitName.js';
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
const POSTCODE = fieldId('postcode');
const FIRST_NAME = fieldId('firstName');
const LAST_NAME = fieldId('lastName');
const COUNTRY = fieldId('country');
const BANK_COUNTRY = fieldId('bankCountry');
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

  /**
   * The country, upper case, whose postal codes the field `id` holds: the payer's for `postcode`; for a bank
   * account's the bank's country where given, else the row's, else what the payer lends (a JSONL entry's); or ''.
   */
  countryOf(id: number, lent = ''): string {
    const country = id !== POSTCODE && this.has(BANK_COUNTRY) ? BANK_COUNTRY : COUNTRY;
    return this.has(country) ? this.text[country]!.toUpperCase() : lent;
  }

  /** A TEXT cell becomes UNUSABLE: a spreadsheet damaged it, and that is reported instead of the field's own rules. */
  spoil(id: number): void {
    this.state[id] = UNUSABLE;
  }
}

/**
 * Reads a row's cells as text. CSV cells are strings already. xlsx number cells are read as the digits they show,
 * the cell kept beside. JSONL cells may be numbers (turned into their decimal text, except in a field of digits that
 * may start with 0: see readJsonDigits), booleans (only where a yes/no is meant) or objects and arrays, which
 * no field accepts. Where two cells name one field (JSONL `first_name` and `firstName`), the first filled one counts
 * and a second filled one is an issue. `paymentDetails` is left to the caller. Unknown columns are ignored here.
 * `lentCountry` is the payer's country, for a JSONL entry of `paymentDetails` that gives none.
 */
export function readCells(
  values: readonly unknown[],
  layout: RowLayout,
  booleanField: number,
  lentCountry = '',
): { row: RowCells; issues: OrderedIssue[]; repeated: OrderedIssue[] } {
  const row = new RowCells(layout);
  const issues: OrderedIssue[] = [];
  const repeated: OrderedIssue[] = layout.repeats ? chooseCells(values, row) : [];
  const { state, text, at } = row;
  let digitNumbers: number[] | undefined;
  for (const id of layout.sequence) {
    if (id === PAYMENT_DETAILS) continue;
    const i = at[id]!;
    const cell = values[i];
    const value = cell instanceof JsonNumber ? cell.value : cell;
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
    // Whether it lost leading zeros may depend on the row's country, which a later key may give.
    if (typeof value === 'number' && DIGITS[id] !== undefined) {
      digitNumbers ??= [];
      digitNumbers.push(id);
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
  if (digitNumbers !== undefined)
    for (const id of digitNumbers) readJsonDigits(row, id, values[at[id]!], lentCountry, issues);
  if (layout.split !== undefined) splitCell(row, layout.split, issues);
  return { row, issues, repeated };
}

/**
 * The cell `--split-name` names, read as the first name and the last: the last word is the last name (`Mary Ann
 * Smith`), or what comes before a comma (`Smith, Mary Ann`). A single word cannot be split: the row's issue, its value
 * never quoted.
 */
function splitCell(row: RowCells, at: number, issues: OrderedIssue[]): void {
  if (row.state[FIRST_NAME] !== TEXT) {
    row.state[LAST_NAME] = row.state[FIRST_NAME]!;
    return;
  }
  const parts = splitName(row.text[FIRST_NAME]!);
  if (parts === undefined) {
    row.state[FIRST_NAME] = UNUSABLE;
    row.state[LAST_NAME] = UNUSABLE;
    const message =
      'is one word: the tool cannot tell the first name from the last (give them columns of their own, or write it "Last, First")';
    issues.push({ column: row.layout.named[at]!, message, order: at });
    return;
  }
  row.text[FIRST_NAME] = parts.first;
  row.text[LAST_NAME] = parts.last;
  row.state[LAST_NAME] = TEXT;
}

/**
 * A JSON number in a field of digits: taken as the line writes it where it cannot have lost a leading zero, its
 * digits the only length the field can have for the row (a routing number's 9, a US ZIP's 5). Otherwise
 * `123456789` may have been the account 000123456789, and JSON cannot say: an issue, its fix written for JSON.
 */
function readJsonDigits(row: RowCells, id: number, cell: unknown, lentCountry: string, issues: OrderedIssue[]): void {
  // A plain number is written as its decimal text: the reader kept the text of any other.
  const value = cell instanceof JsonNumber ? cell.value : (cell as number);
  const written = cell instanceof JsonNumber ? cell.written : String(value);
  const field = DIGITS[id]!;
  if (keepsEveryDigit(field, row.countryOf(id, lentCountry), written)) {
    row.state[id] = TEXT;
    row.text[id] = written;
    return;
  }
  row.state[id] = UNUSABLE;
  const i = row.at[id]!;
  issues.push({ column: row.layout.named[i]!, message: jsonNumber(field, row.layout.columns[i]!, value), order: i });
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

/** A JSON number refused, its fix naming the key as the line spells it. Echoed only as withValue allows. */
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
