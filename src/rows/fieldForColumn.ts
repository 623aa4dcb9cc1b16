import {
  BANK_ONLY_FIELDS,
  CONTROL_COLUMNS,
  OVERRIDE_COLUMNS,
  PAYER_FIELDS,
  PAYMENT_DETAIL_FIELDS,
  PAYMENT_DETAILS_KEY,
} from './fields.js';
import { ALIAS_LOOKUP, SAME_FIELD } from './aliases.js';
import type { ColumnMap } from './columnMap.js';

/** What a file holds: payer rows (optionally with a bank account each), or the rows of a `--bank-details` file. */
export type FileKind = 'payers' | 'bank-details';

/**
 * The three vocabularies a column name is looked up in. `payment-details-entry` is a JSONL `paymentDetails`
 * object: payment-detail fields by their own names, and the `bank*` override names too, since someone
 * moving bank columns from a CSV row into the nested object will naturally keep them.
 */
export type Vocabulary = FileKind | 'payment-details-entry';

/**
 * Header names match field names case-insensitively, ignoring spaces, `_`, `-` and `.` (design.md §3):
 * `First Name`, `first_name` and `FIRSTNAME` all mean `firstName`.
 */
export function normalizeHeader(name: string): string {
  return name.replace(/[\s_.-]+/g, '').toLowerCase();
}

const VOCABULARIES: Record<Vocabulary, readonly string[]> = {
  payers: [...PAYER_FIELDS, ...BANK_ONLY_FIELDS, ...OVERRIDE_COLUMNS, ...CONTROL_COLUMNS, PAYMENT_DETAILS_KEY],
  'bank-details': ['clientUserId', ...PAYMENT_DETAIL_FIELDS, 'completedSteps', 'error'],
  'payment-details-entry': [...PAYMENT_DETAIL_FIELDS, ...OVERRIDE_COLUMNS],
};

// Normalised name -> catalog name, built once per vocabulary. `payers` lists beneficiaryType etc. once as payer
// fields; the shared payment-detail names are not repeated there, so no two names collide.
const LOOKUPS = Object.fromEntries(
  Object.entries(VOCABULARIES).map(([vocabulary, names]) => [
    vocabulary,
    new Map(names.map((name) => [normalizeHeader(name), name])),
  ]),
) as Record<Vocabulary, Map<string, string>>;

// Every row repeats the same column names, so remember them as written; bounded, since JSONL keys are anyone's.
const SEEN = Object.fromEntries(Object.keys(VOCABULARIES).map((v) => [v, new Map()])) as Record<
  Vocabulary,
  Map<string, string | undefined>
>;
const MAX_SEEN = 1000;

/**
 * The catalog name (`firstName`, `bankCity`, `completedSteps`, ...) a column means, or undefined when it means nothing.
 * A `--map` entry wins; then a field's own name; then a built-in alias (`DOB`, `Zip`, `ABA`: aliases.ts).
 */
export function fieldForColumn(column: string, vocabulary: Vocabulary, map?: ColumnMap): string | undefined {
  const mapped = map?.get(normalizeHeader(column));
  if (mapped !== undefined) return inVocabulary(mapped, vocabulary);
  const seen = SEEN[vocabulary];
  if (seen.has(column)) return seen.get(column);
  const key = normalizeHeader(column);
  const alias = ALIAS_LOOKUP.get(key);
  const field = LOOKUPS[vocabulary].get(key) ?? (alias === undefined ? undefined : inVocabulary(alias, vocabulary));
  if (seen.size < MAX_SEEN) seen.set(column, field);
  return field;
}

/** A field name as this vocabulary spells it (`postcode` is `postalCode` in a bank row), or undefined if it has none. */
function inVocabulary(field: string, vocabulary: Vocabulary): string | undefined {
  const lookup = LOOKUPS[vocabulary];
  const own = lookup.get(normalizeHeader(field));
  if (own !== undefined) return own;
  const same = SAME_FIELD.get(field);
  return same === undefined ? undefined : lookup.get(normalizeHeader(same));
}
