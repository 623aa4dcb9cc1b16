import { type ColumnMap, readHeader, type Vocabulary } from './columns.js';
import {
  BANK_ONLY_FIELDS,
  CONTROL_COLUMNS,
  OVERRIDE_COLUMNS,
  PAYER_FIELDS,
  PAYMENT_DETAIL_FIELDS,
  PAYMENT_DETAILS_KEY,
} from './fields.js';

// Every catalog name of every vocabulary, numbered once: a row's cells are kept in arrays by these numbers, so that
// checking a row builds no map of names and looks nothing up by name.
const NAMES: readonly string[] = [
  ...new Set<string>([
    'clientUserId',
    ...PAYER_FIELDS,
    ...BANK_ONLY_FIELDS,
    ...OVERRIDE_COLUMNS,
    ...CONTROL_COLUMNS,
    PAYMENT_DETAILS_KEY,
    ...PAYMENT_DETAIL_FIELDS,
  ]),
];
const IDS: ReadonlyMap<string, number> = new Map(NAMES.map((name, id) => [name, id]));

/** How many catalog names there are: the length of a row's arrays by field id. */
export const FIELD_COUNT = NAMES.length;

/** A catalog name's number, or -1 for any other name. */
export const idOf = (name: string): number => IDS.get(name) ?? -1;

/** A catalog name's number. Only catalog names have one: asking for another is a bug. */
export function fieldId(name: string): number {
  const id = IDS.get(name);
  if (id === undefined) throw new Error(`not a catalog name: ${name}`);
  return id;
}

/** The catalog name of a field id. */
export const fieldName = (id: number): string => NAMES[id]!;

/**
 * What a row's column names mean, worked out once for every row that has the same columns (a CSV file's header;
 * a JSONL file whose lines keep their keys): the field of each cell, and where each field is.
 */
export interface RowLayout {
  readonly columns: readonly string[];
  readonly vocabulary: Vocabulary;
  readonly map: ColumnMap | undefined;
  /** Each cell's column as issues name it (`paymentDetails[0].iban` in a JSONL entry). */
  readonly named: readonly string[];
  /** By cell: its field id, or -1 when its column means nothing in this vocabulary. */
  readonly ids: readonly number[];
  /** By field id: the first cell naming it, or -1. */
  readonly at: readonly number[];
  /** Field ids in the order their first cell comes: the order a row's fields are met in. */
  readonly sequence: readonly number[];
  /** Some field is named by two cells: which one counts depends on the row's values. */
  readonly repeats: boolean;
  /** Cells whose column means nothing. */
  readonly unknown: readonly number[];
  /** The cell `--split-name` names: a person's whole name, the first name's cell and the last name's. */
  readonly split?: number;
}

const LAST_NAME = fieldId('lastName');

function buildLayout(
  columns: readonly string[],
  vocabulary: Vocabulary,
  prefix: string,
  map: ColumnMap | undefined,
): RowLayout {
  const ids: number[] = [];
  const at: number[] = new Array<number>(FIELD_COUNT).fill(-1);
  const sequence: number[] = [];
  const unknown: number[] = [];
  let repeats = false;
  // Read together: what a name means can depend on the columns beside it.
  const { fields, split } = readHeader(columns, vocabulary, map);
  columns.forEach((_, i) => {
    const field = fields[i];
    const id = field === undefined ? -1 : fieldId(field);
    ids.push(id);
    if (id < 0) unknown.push(i);
    else if (at[id]! >= 0) repeats = true;
    else {
      at[id] = i;
      sequence.push(id);
    }
  });
  if (split !== undefined) {
    at[LAST_NAME] = split;
    sequence.push(LAST_NAME);
  }
  const named = columns.map((column) => prefix + column);
  return {
    ...{ columns: [...columns], vocabulary, map, named, ids, at, sequence, repeats, unknown },
    ...(split === undefined ? {} : { split }),
  };
}

// The layouts last used, by vocabulary and prefix: a file's rows all share one, so a row checks its columns against
// it (the very same strings, for a CSV header) instead of looking every name up again. Bounded: JSONL keys are anyone's.
const recent = new Map<string, RowLayout>();
const MAX_RECENT = 64;

/** The layout of a row with these columns, reused from the previous row when its columns are the same. */
export function layoutOf(columns: readonly string[], vocabulary: Vocabulary, prefix = '', map?: ColumnMap): RowLayout {
  const key = `${vocabulary}\u0000${prefix}`;
  const last = recent.get(key);
  if (last !== undefined && last.map === map && sameColumns(last.columns, columns)) return last;
  const layout = buildLayout(columns, vocabulary, prefix, map);
  if (recent.size >= MAX_RECENT) recent.clear();
  recent.set(key, layout);
  return layout;
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
