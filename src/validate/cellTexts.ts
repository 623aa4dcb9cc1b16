import type { FieldCell } from '../rows/collectCells.js';
import type { RowIssue } from '../types.js';

/** A filled cell as trimmed text, with the column the user wrote and its place in the row. */
export interface TextCell {
  column: string;
  text: string;
  order: number;
}

/** A row issue that still knows its cell's place, so a row's issues read in column order. */
export type OrderedIssue = RowIssue & { order: number };

/** Where a blank cell sits: a required field left blank is reported under its column as written. */
export type CellPlace = Omit<TextCell, 'text'>;

export interface CellTexts {
  texts: Map<string, TextCell>;
  blanks: Map<string, CellPlace>;
  /** Fields whose cell held something that is not text: already reported, so never also "is required". */
  unusable: Set<string>;
  issues: OrderedIssue[];
}

/**
 * CSV cells are strings already. JSONL cells may be numbers (turned into their decimal text, design.md §3),
 * booleans (only where a yes/no is meant) or objects and arrays, which no field accepts.
 */
export function cellTexts(byField: ReadonlyMap<string, FieldCell>, booleanFields: ReadonlySet<string>): CellTexts {
  const texts = new Map<string, TextCell>();
  const blanks = new Map<string, CellPlace>();
  const unusable = new Set<string>();
  const issues: OrderedIssue[] = [];
  for (const [field, { column, value, order }] of byField) {
    const problem = notText(value, booleanFields.has(field));
    if (problem !== undefined) {
      unusable.add(field);
      issues.push({ column, message: problem, order });
      continue;
    }
    const text = value === undefined || value === null ? '' : String(value).trim();
    if (text !== '') texts.set(field, { column, text, order });
    else blanks.set(field, { column, order });
  }
  return { texts, blanks, unusable, issues };
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
