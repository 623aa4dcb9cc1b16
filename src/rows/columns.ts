import {
  BANK_ONLY_FIELDS,
  CONTROL_COLUMNS,
  OVERRIDE_COLUMNS,
  PAYER_FIELDS,
  PAYMENT_DETAIL_FIELDS,
  PAYMENT_DETAILS_KEY,
  SAME_FIELD,
  REQUIRED_PAYER_FIELDS,
  REQUIRED_PAYMENT_DETAIL_FIELDS,
} from './fields.js';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { ACCOUNT_TYPES, BENEFICIARY_TYPES, RAILS } from '../core/schemas.js';
import { couldBeBeside, normalizeName, synonymOf } from './synonyms.js';

/** What a file holds: payer rows (optionally with a bank account each), or the rows of a `--bank-details` file. */
export type FileKind = 'payers' | 'bank-details';

/**
 * The three vocabularies a column name is looked up in. `payment-details-entry` is a JSONL `paymentDetails`
 * object: payment-detail fields by their own names, and the `bank*` override names too, since someone
 * moving bank columns from a CSV row into the nested object will naturally keep them.
 */
export type Vocabulary = FileKind | 'payment-details-entry';

/** Header names match field names and their synonyms without case, accents or punctuation (synonyms.ts). */
const normalizeHeader = normalizeName;

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
 * How a name reads by itself: given by `--map` (rank -1), the field's own name as the tool spells it (0), that name in
 * another case or spacing (1), a synonym (2), a synonym that yields to a better-named column (3); or the fields it
 * could be, which a person must choose between.
 */
type NameReading = { field: string; rank: -1 | 0 | 1 | 2 | 3 } | { could: readonly string[] } | undefined;

/**
 * What `--split-name COLUMN` puts in the column map: that column is a person's whole name, read as the first name and
 * the last (splitName). Never a field name, so `--map` cannot give it.
 */
export const SPLIT_NAME = '(first and last name)';

function readName(column: string, vocabulary: Vocabulary, map?: ColumnMap): NameReading {
  const key = normalizeHeader(column);
  const mapped = map?.get(key);
  if (mapped === SPLIT_NAME) return vocabulary === 'payers' ? { field: 'firstName', rank: -1 } : undefined;
  if (mapped !== undefined) {
    const field = inVocabulary(mapped, vocabulary);
    return field === undefined ? undefined : { field, rank: -1 };
  }
  if (key === '') return undefined;
  const own = LOOKUPS[vocabulary].get(key);
  if (own !== undefined) return { field: own, rank: column.trim() === own ? 0 : 1 };
  const meaning = synonymOf(key);
  if (meaning === undefined) return undefined;
  if ('could' in meaning) return couldBe(meaning.could, vocabulary);
  const field = inVocabulary(meaning.field, vocabulary);
  return field === undefined ? undefined : { field, rank: meaning.rank };
}

function couldBe(fields: readonly string[], vocabulary: Vocabulary): NameReading {
  const could = [...new Set(fields.map((field) => inVocabulary(field, vocabulary)))].filter((f) => f !== undefined);
  return could.length === 0 ? undefined : { could };
}

/**
 * The catalog name (`firstName`, `bankCity`, `completedSteps`, ...) a column name means by itself, or undefined when
 * it means nothing or could mean two fields. A `--map` entry wins; then a field's own name; then a synonym (`DOB`,
 * `Zip`, `Vorname`: synonyms.ts). A header's columns are read together by `readHeader`, which settles what a name
 * means beside the others.
 */
export function fieldForColumn(column: string, vocabulary: Vocabulary, map?: ColumnMap): string | undefined {
  if (map?.has(normalizeHeader(column))) {
    const reading = readName(column, vocabulary, map);
    return reading && 'field' in reading ? reading.field : undefined;
  }
  const seen = SEEN[vocabulary];
  if (seen.has(column)) return seen.get(column);
  const reading = readName(column, vocabulary);
  const field = reading && 'field' in reading ? reading.field : undefined;
  if (seen.size < MAX_SEEN) seen.set(column, field);
  return field;
}

/** A header's columns read together: what each means beside the others. */
export interface HeaderReading {
  /** By header position: the catalog name the column is read as, or undefined. */
  fields: (string | undefined)[];
  /** Columns that could be two fields or more (those no other column holds): a person says which. */
  asked: { column: string; fields: string[]; someHeld: boolean }[];
  /** Columns whose field a better-named column holds (`Mobile` beside `Phone`): not read, and said so. */
  passed: { column: string; field: string; by: string }[];
  /** Fields named equally well by more than one column (an error: which value would win is a guess). */
  duplicates: { field: string; columns: string[] }[];
  /** The column `--split-name` names, by position: it holds the first name and the last. */
  split?: number;
}

// `error` is ignored on input; a failed file fed back twice may carry it twice, and that hurts nobody.
const MAY_REPEAT = new Set(['error']);

/**
 * What each column of a header means. A column given a field by `--map` takes it from any other; a second synonym (`Mobile`) yields to a better name (`Phone`); two columns naming a field equally well are
 * duplicates. A name that could be two fields (`Vendor name`: a company or a person?), or that is unsure beside another
 * column (Xero's `AccountNumber` beside `BankAccountNumber`), is asked about unless other columns hold every field it
 * could be.
 */
export function readHeader(header: readonly string[], vocabulary: Vocabulary, map?: ColumnMap): HeaderReading {
  // A name is never unsure beside itself: no name is both a rule's and what it is unsure beside.
  const keys = new Set(header.map(normalizeHeader));
  const readings = header.map((column): NameReading => {
    const reading = readName(column, vocabulary, map);
    // A field's own name, exactly as the tool spells it, is never unsure.
    if (reading === undefined || !('field' in reading) || reading.rank <= 0) return reading;
    const unsure = couldBeBeside(normalizeHeader(column), keys);
    return unsure === undefined ? reading : couldBe(unsure, vocabulary);
  });
  const byField = new Map<string, Array<{ at: number; rank: number }>>();
  const add = (field: string, at: number, rank: number) =>
    byField.set(field, [...(byField.get(field) ?? []), { at, rank }]);
  const splitAt =
    map === undefined ? -1 : header.findIndex((column) => map.get(normalizeHeader(column)) === SPLIT_NAME);
  readings.forEach((reading, at) => {
    if (reading === undefined || !('field' in reading)) return;
    add(reading.field, at, reading.rank);
    // The whole name is the last name's column too: given, it takes the field from any other.
    if (at === splitAt && reading.field === 'firstName') add('lastName', at, -1);
  });
  const fields: (string | undefined)[] = header.map(() => undefined);
  const passed: HeaderReading['passed'] = [];
  const duplicates: HeaderReading['duplicates'] = [];
  for (const [field, columns] of byField) {
    const best = Math.min(...columns.map((c) => c.rank));
    // Given by --map: that column alone. Otherwise every name but a second synonym counts the same.
    const wins = (rank: number) => (best < 0 ? rank === best : best === 3 || rank < 3);
    const winners = columns.filter((c) => wins(c.rank));
    for (const c of winners) if (c.at !== splitAt || field === 'firstName') fields[c.at] = field;
    for (const c of columns)
      if (!wins(c.rank)) passed.push({ column: header[c.at]!, field, by: header[winners[0]!.at]! });
    if (winners.length > 1 && !MAY_REPEAT.has(field))
      duplicates.push({ field, columns: winners.map((c) => header[c.at]!) });
  }
  const split = splitAt >= 0 && fields[splitAt] === 'firstName' ? splitAt : undefined;
  const held = new Set(split === undefined ? fields : [...fields, 'lastName']);
  const asked: HeaderReading['asked'] = [];
  readings.forEach((reading, at) => {
    if (reading === undefined || !('could' in reading)) return;
    const open = reading.could.filter((field) => !held.has(field));
    if (open.length > 0)
      asked.push({ column: header[at]!, fields: open, someHeld: open.length < reading.could.length });
  });
  return { fields, asked, passed, duplicates, ...(split === undefined ? {} : { split }) };
}

/** A field name as this vocabulary spells it (`postcode` is `postalCode` in a bank row), or undefined if it has none. */
function inVocabulary(field: string, vocabulary: Vocabulary): string | undefined {
  const lookup = LOOKUPS[vocabulary];
  const own = lookup.get(normalizeHeader(field));
  if (own !== undefined) return own;
  const same = SAME_FIELD.get(field);
  return same === undefined ? undefined : lookup.get(normalizeHeader(same));
}

export interface HeaderMapping extends HeaderReading {
  /** Columns, as written, that mean nothing: the caller warns once and carries them through untouched. Blank names are left out. */
  unknown: string[];
  /** Required fields with no column at all (the file is rejected before any row), by field name. */
  missing: string[];
}

// A bank-details row has no payer to default from, so every required payment-detail field needs its own column.
const REQUIRED_COLUMNS: Record<FileKind, readonly string[]> = {
  payers: REQUIRED_PAYER_FIELDS,
  'bank-details': ['clientUserId', ...REQUIRED_PAYMENT_DETAIL_FIELDS],
};

/**
 * A header's columns as a file of this kind reads them. A column that could be two fields is asked about when it could
 * be a required field no column holds, or when no column holds either; otherwise (`Vendor name` beside `Last name`, a
 * `Tax ID` that could be a person's SSN) it is not read, like an unknown column, which `--map` can name.
 */
export function mapHeader(header: string[], kind: FileKind, map?: ColumnMap): HeaderMapping {
  const reading = readHeader(header, kind, map);
  const held = new Set(reading.split === undefined ? reading.fields : [...reading.fields, 'lastName']);
  const missing = REQUIRED_COLUMNS[kind].filter((field) => !held.has(field));
  const asked = reading.asked.filter(
    (c) => (!c.someHeld && c.fields.length > 1) || c.fields.some((field) => missing.includes(field)),
  );
  const settled = new Set([...asked, ...reading.passed].map((c) => c.column));
  const unknown = header.filter(
    (column, i) => reading.fields[i] === undefined && column.trim() !== '' && !settled.has(column),
  );
  return { ...reading, asked, unknown, missing };
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
    // A column of whole names split on the web page, saved with its mapping.
    if (field === SPLIT_NAME) {
      map.set(normalizeHeader(column), SPLIT_NAME);
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
