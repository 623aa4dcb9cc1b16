import {
  BANK_ONLY_FIELDS,
  CONTROL_COLUMNS,
  OVERRIDE_COLUMNS,
  PAYER_FIELDS,
  PAYMENT_DETAIL_FIELDS,
  PAYMENT_DETAILS_KEY,
  ALIAS_LOOKUP,
  SAME_FIELD,
  REQUIRED_PAYER_FIELDS,
  REQUIRED_PAYMENT_DETAIL_FIELDS,
} from './fields.js';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { ACCOUNT_TYPES, BENEFICIARY_TYPES, RAILS } from '../core/schemas.js';

/** What a file holds: payer rows (optionally with a bank account each), or the rows of a `--bank-details` file. */
export type FileKind = 'payers' | 'bank-details';

/**
 * The three vocabularies a column name is looked up in. `payment-details-entry` is a JSONL `paymentDetails`
 * object: payment-detail fields by their own names, and the `bank*` override names too, since someone
 * moving bank columns from a CSV row into the nested object will naturally keep them.
 */
export type Vocabulary = FileKind | 'payment-details-entry';

/**
 * Header names match field names case-insensitively, ignoring spaces, `_`, `-` and `.`:
 * `First Name`, `first_name` and `FIRSTNAME` all mean `firstName`.
 */
function normalizeHeader(name: string): string {
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
 * A `--map` entry wins; then a field's own name; then a built-in alias (`DOB`, `Zip`, `ABA`: ALIASES in fields.ts).
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

export interface HeaderMapping {
  /** By header position: the catalog name the column means (`firstName`, `bankCity`, `error`, ...), or undefined. */
  fields: (string | undefined)[];
  /** Columns, as written, that mean nothing: the caller warns once and carries them through untouched. Blank names are left out. */
  unknown: string[];
  /** Fields named by more than one column (an error: which value would win is a guess). Columns as written, in header order. */
  duplicates: { field: string; columns: string[] }[];
  /** Required fields with no column at all (the file is rejected before any row), by field name. */
  missing: string[];
}

// A bank-details row has no payer to default from, so every required payment-detail field needs its own column.
const REQUIRED_COLUMNS: Record<FileKind, readonly string[]> = {
  payers: REQUIRED_PAYER_FIELDS,
  'bank-details': ['clientUserId', ...REQUIRED_PAYMENT_DETAIL_FIELDS],
};

// `error` is ignored on input; a failed file fed back twice may carry it twice, and that hurts nobody.
const MAY_REPEAT = new Set(['error']);

export function mapHeader(header: string[], kind: FileKind, map?: ColumnMap): HeaderMapping {
  const fields = header.map((column) => fieldForColumn(column, kind, map));
  const unknown = header.filter((column, i) => fields[i] === undefined && column.trim() !== '');

  const columnsByField = new Map<string, string[]>();
  header.forEach((column, i) => {
    const field = fields[i];
    if (field === undefined) return;
    columnsByField.set(field, [...(columnsByField.get(field) ?? []), column]);
  });
  const duplicates = [...columnsByField]
    .filter(([field, columns]) => columns.length > 1 && !MAY_REPEAT.has(field))
    .map(([field, columns]) => ({ field, columns }));

  const missing = REQUIRED_COLUMNS[kind].filter((field) => !columnsByField.has(field));
  return { fields, unknown, duplicates, missing };
}

/** `--map`: the user's column (normalised) -> the field name they gave for it. */
export type ColumnMap = ReadonlyMap<string, string>;

/** What `--map` takes, as its messages say it. */
const MAP_FORMS = `pairs --map "Type=beneficiaryType,Zip Code=postcode", JSON --map '{"Type": "beneficiaryType"}', or a file of that JSON`;

/**
 * Reads `--map`: `FROM=TO` pairs, comma separated (`Type=beneficiaryType,Zip=postcode`), the same as a JSON object
 * (`{"Type": "beneficiaryType"}`), or a file holding that JSON. Given text is a file's name whenever such a file
 * exists. Every field name must be one a payer or bank-details column can have (matched like headers, so
 * `date_of_birth` will do); all unknown ones are named at once (exit 2).
 */
export function loadColumnMap(given: string, cwd: string): ColumnMap {
  const text = given.trim();
  const path = resolve(cwd, given);
  if (text.startsWith('{') && !existsSync(path)) return columnMapOf(jsonObject(text, 'the JSON given'));
  if (text.includes('=') && !existsSync(path)) return columnMapOf(mapPairs(text));
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'ENOENT'
        ? `--map: no such file ${isAbsolute(given) ? given : `${given} in ${cwd}`}: give ${MAP_FORMS}`
        : `--map: cannot read ${given} (${code})`,
    );
  }
  return columnMapOf(jsonObject(content.replace(/^\uFEFF/, ''), given));
}

/** `Type=beneficiaryType, Zip Code=postcode`: each pair's column and field, trimmed. */
function mapPairs(text: string): Array<[string, unknown]> {
  const pairs = text.split(',').map((pair) => pair.trim());
  const bad = pairs.filter((pair) => !/^[^=]*\S[^=]*=\s*\S/.test(pair));
  if (bad.length > 0)
    throw new ConfigError(
      `--map: ${bad.map((pair) => JSON.stringify(pair)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not a column and its field: give ${MAP_FORMS}`,
    );
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
  });
}

/** A JSON object's entries; `what` names where the text came from. */
function jsonObject(text: string, what: string): Array<[string, unknown]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`--map: ${what} is not valid JSON: expected {"Their column": "fieldName", ...}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`--map: ${what} must be a JSON object like {"Their column": "fieldName"}`);
  }
  return Object.entries(value as Record<string, unknown>);
}

/** The column map of `--map`'s entries, every field name checked. */
function columnMapOf(entries: Array<[string, unknown]>): ColumnMap {
  const map = new Map<string, string>();
  const notText: string[] = [];
  const unknown: string[] = [];
  for (const [column, field] of entries) {
    if (typeof field !== 'string') {
      notText.push(column);
      continue;
    }
    const known = fieldForColumn(field, 'payers') ?? fieldForColumn(field, 'bank-details');
    if (known === undefined || known === 'error' || known === 'paymentDetails') unknown.push(field);
    else map.set(normalizeHeader(column), known);
  }
  const problems = [
    ...(notText.length
      ? [`the value for ${notText.map((c) => JSON.stringify(c)).join(', ')} must be a field name (a string)`]
      : []),
    ...(unknown.length
      ? [
          `unknown field name${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')} (see \`payer-onboard template\` for every field)`,
        ]
      : []),
  ];
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `--map: ${p}`).join('\n'));
  return map;
}

/** Fields whose values are a few words: a column holding only those words is likely that field. */
const WORDS: Record<string, readonly string[]> = {
  beneficiaryType: BENEFICIARY_TYPES,
  accountType: ACCOUNT_TYPES,
  rails: RAILS,
};

/**
 * For a header missing required fields: which of its columns not understood likely holds which of them. By its
 * values first (`Type` holding `individual` and `business` is beneficiaryType), else by its name, where one field's
 * name alone begins or ends with it (`Birth`, dateOfBirth) and that field is not one of a few words. `values`: the first rows'
 * values of each such column.
 */
export function likelyMapping(
  missing: readonly string[],
  values: ReadonlyMap<string, readonly string[]>,
): Array<{ column: string; field: string; words?: string[] }> {
  const found: Array<{ column: string; field: string; words?: string[] }> = [];
  const left = new Set(missing);
  for (const [column, cells] of values) {
    const seen = [...new Set(cells.map((cell) => cell.trim().toLowerCase()).filter(Boolean))];
    const byValues = [...left].find((field) => seen.length > 0 && seen.every((v) => WORDS[field]?.includes(v)));
    if (byValues !== undefined) {
      found.push({ column, field: byValues, words: seen });
      left.delete(byValues);
      continue;
    }
    const name = normalizeHeader(column);
    // Only where one field alone fits: `Name` could be firstName as well as lastName.
    const byName = [...left].filter((field) => {
      const key = normalizeHeader(field);
      return name.length >= 3 && (key.startsWith(name) || key.endsWith(name)) && WORDS[field] === undefined;
    });
    if (byName.length !== 1) continue;
    found.push({ column, field: byName[0]! });
    left.delete(byName[0]!);
  }
  return found;
}

/** An empty cell: absent, null, or only whitespace. */
export const isBlank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
