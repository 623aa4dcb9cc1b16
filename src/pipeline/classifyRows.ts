import { advice, type Readers } from '../core/advice.js';
import { IdTable } from '../core/compactTables.js';
import { InputError } from '../core/errors.js';
import type { OpenedInput, RawRecord } from '../input/InputFile.js';
import { type ColumnMap, fieldForColumn, type HeaderMapping, likelyMapping, mapHeader } from '../rows/columns.js';
import { fieldLabel } from '../rows/fieldLabels.js';
import { normalizeName } from '../rows/synonyms.js';
import type { BankRowResult, InvalidRow, PayerRowResult, RowIssue } from '../core/types.js';
import { checkBankRow, validateBankRow } from '../validate/validateBankRow.js';
import { checkPayerRow, validatePayerRow } from '../validate/validatePayerRow.js';
import { clientSchemas, localDay, type ClientSchemas } from '../validate/clientSchemas.js';

/**
 * Finds payer rows that repeat an earlier row's clientUserId (one payer, one row: the later one is invalid, naming
 * the earlier line). It needs every id seen so far, the one thing that grows with the file: they sit in an IdTable
 * (about 28 bytes an id, outside the V8 heap) rather than a Map of strings (about 100 on it, which V8 then lets grow
 * fourfold as garbage before it collects). Ids are compared byte for byte, never by hash alone, so a distinct id is
 * never called a repeat. Rows are checked once, in the send pass, in input order: the earlier row is always met first.
 */
export class DuplicateIds {
  private readonly sources: string[] = [];
  private readonly ids = new IdTable();
  /** Ids are added file by file: the source of each run of table positions, by the run's first position. */
  private readonly runs: Array<{ from: number; source: number }> = [];

  /** Where the same id was seen first, as "source:line", or undefined when this row is the first. */
  check(id: string, source: string, line: number): string | undefined {
    const sourceIndex = this.sourceIndex(source);
    const before = this.ids.size;
    const position = this.ids.add(id, line);
    if (this.ids.size > before) {
      if (this.runs.at(-1)?.source !== sourceIndex) this.runs.push({ from: position, source: sourceIndex });
      return undefined;
    }
    const firstSource = this.sourceAt(position);
    const firstLine = this.ids.lineAt(position);
    if (firstSource === sourceIndex && firstLine === line) return undefined; // the first row itself, read again
    return `${this.sources[firstSource]}:${firstLine}`;
  }

  /** The source of the id at a table position: the last run starting at or before it. */
  private sourceAt(position: number): number {
    let low = 0;
    let high = this.runs.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.runs[mid]!.from <= position) low = mid;
      else high = mid - 1;
    }
    return this.runs[low]!.source;
  }

  private sourceIndex(source: string): number {
    const index = this.sources.lastIndexOf(source);
    return index >= 0 ? index : this.sources.push(source) - 1;
  }
}

export type RowKind = 'payers' | 'bank-details';

export interface ClassifiedRow {
  record: RawRecord;
  kind: RowKind;
  result: PayerRowResult | BankRowResult;
}

/**
 * Checks a header (CSV or xlsx) before any row: a required column missing entirely, or two columns that mean the
 * same field, rejects the file (exit 2), naming the columns and the header's line; unknown columns become one warning
 * each (they are carried through to the failed file untouched). What to do is said in the words of `readers`.
 */
export async function checkHeader(input: OpenedInput, kind: RowKind, readers: Readers = 'terminal'): Promise<string[]> {
  if (input.header === undefined) return [];
  const mapping = mapHeader(input.header, kind, input.reading?.columns);
  const line = input.headerLine ?? 1;
  if (mapping.asked.length > 0) throw new InputError(input.file.name, askedColumns(mapping, readers), { line });
  if (mapping.missing.length > 0)
    throw new InputError(input.file.name, await missingColumns(input, mapping, readers), { line });
  if (mapping.duplicates.length > 0) {
    throw new InputError(
      input.file.name,
      `two columns mean the same field: ${mapping.duplicates.map(describeDuplicate).join('; ')}`,
      { line },
    );
  }
  const passed = mapping.passed.map(
    ({ column, field, by }) =>
      `${input.file.name}: column "${column}" is not read: "${by}" is read as ${field} (${advice({ kind: 'map-instead', column, field, by }, readers)}); it is carried through to the failed file`,
  );
  const unknown = mapping.unknown.map(
    (column) =>
      `${input.file.name}: column "${column}" is not a known field; it is ignored and carried through to the failed file (${advice({ kind: 'map-unknown' }, readers)})`,
  );
  return [...passed, ...unknown];
}

/** Columns that could be two fields: the tool does not guess, and says what settles each (a `--map` at a terminal). */
function askedColumns(mapping: HeaderMapping, readers: Readers): string {
  const one = ({ column, fields }: HeaderMapping['asked'][number]) => {
    // The page names fields as its pick lists do; the terminal and the inbox as --map and a header write them.
    const names = readers === 'page' ? fields.map((field) => fieldLabel(field).label) : fields;
    const which = names.length === 1 ? `${names[0]}, or something else` : names.join(' or ');
    const settle = advice({ kind: 'map', columns: [{ column, fields }] }, readers);
    // Only a terminal can say so: the page and the inbox have no split of their own yet.
    const person =
      readers === 'terminal' && fields.includes('lastName')
        ? `, or --split-name "${column}" for people's whole names`
        : '';
    return `column "${column}" could be ${which}, and the tool does not guess: ${settle}${person}`;
  };
  return mapping.asked.map(one).join('; ');
}

/**
 * An input whose header lacks a required field that a column's values name (`Type` holding only `individual` and
 * `business` is beneficiaryType: a field of a few words, and nothing else in the column), opened again with that
 * column read as the field, and a warning that says so. Only by those words, never by a name alone: a name that could
 * be two fields is asked about. An input its values name nothing of is opened again as it was (its first rows were
 * read to look).
 */
export async function withValueColumns(
  input: OpenedInput,
  kind: RowKind,
  reopen: (columns: ColumnMap | undefined) => Promise<OpenedInput>,
): Promise<{ input: OpenedInput; warnings: string[] }> {
  if (input.header === undefined) return { input, warnings: [] };
  const mapping = mapHeader(input.header, kind, input.reading?.columns);
  if (mapping.missing.length === 0 || mapping.unknown.length === 0 || mapping.asked.length > 0)
    return { input, warnings: [] };
  const named = likelyMapping(mapping.missing, await firstValues(input, mapping.unknown)).filter((l) => l.words);
  const columns = new Map(input.reading?.columns);
  for (const { column, field } of named) columns.set(normalizeName(column), field);
  const warnings = named.map(
    ({ column, field, words }) =>
      `${input.file.name}: column "${column}" holds ${words!.join(', ')}, so it is read as ${field}`,
  );
  return { input: await reopen(columns.size === 0 ? input.reading?.columns : columns), warnings };
}

/** Rows whose values are looked at to tell what a column not understood holds. */
const SAMPLE_ROWS = 50;
/** Columns not understood named at most, of a header that names none (the first row of data, taken for a header). */
const UNKNOWN_NAMED = 8;

/**
 * What a header missing required fields lacks, what of it was not understood, and what would fix it (`--map` at a
 * terminal): the columns' first values say what they likely hold. The file is refused, so its first rows may be read
 * for that.
 */
async function missingColumns(input: OpenedInput, mapping: HeaderMapping, readers: Readers): Promise<string> {
  const { missing, unknown } = mapping;
  const quote = (column: string) => JSON.stringify(column);
  const s = missing.length === 1 ? '' : 's';
  const what = `missing required column${s} ${missing.join(', ')}`;
  const sheets =
    input.sheets && input.sheets.length > 1
      ? `; or another sheet with --sheet (sheets: ${input.sheets.join(', ')})`
      : '';
  if (unknown.length === 0)
    return `${what}; every column of the header is understood (${input.header!.join(', ')}): add the missing column${s}${sheets}`;
  const named =
    unknown.length > UNKNOWN_NAMED
      ? `${unknown.slice(0, UNKNOWN_NAMED).map(quote).join(', ')} and ${unknown.length - UNKNOWN_NAMED} more`
      : unknown.map(quote).join(', ');
  const notUnderstood = `, and ${unknown.length === 1 ? 'a column' : 'columns'} not understood: ${named}`;
  // Only words of a field's list are quoted (never a person's data): what else a column holds stays unsaid.
  const likely = likelyMapping(missing, await firstValues(input, unknown));
  if (likely.length === 0)
    return `${what}${notUnderstood}: where one of them holds a missing field, ${advice({ kind: 'map-some' }, readers)}${sheets}`;
  const reasons = likely.map(({ column, field, words }) =>
    words ? `${quote(column)} holds ${words.join(', ')}, so likely ${field}` : `${quote(column)} is likely ${field}`,
  );
  const columns = likely.map(({ column, field }) => ({ column, fields: [field] }));
  return `${what}${notUnderstood}; ${reasons.join('; ')}: ${advice({ kind: 'map', columns }, readers)}${sheets}`;
}

/** The values of the first rows in each of `columns` (by header position, as the header writes them). */
async function firstValues(input: OpenedInput, columns: string[]): Promise<Map<string, string[]>> {
  const wanted = new Set(columns);
  const values = new Map(columns.map((column) => [column, [] as string[]]));
  let rows = 0;
  for await (const record of input.records) {
    for (const cell of record.cells)
      if (wanted.has(cell.column)) values.get(cell.column)!.push(String(cell.value ?? ''));
    if (++rows >= SAMPLE_ROWS) break;
  }
  return values;
}

/**
 * A file of bank rows given as an input on its own: `clientUserId` and every column a bank row needs, and none
 * of the payer's own (e-mail, names, phone, SSN). Its rows go to payers registered already.
 */
export function isBankFile(input: OpenedInput): boolean {
  if (input.header === undefined) return false;
  const asBank = mapHeader(input.header, 'bank-details', input.reading?.columns);
  if (asBank.missing.length > 0) return false;
  const asPayers = mapHeader(input.header, 'payers', input.reading?.columns);
  return PAYER_ONLY.every((field) => !asPayers.fields.includes(field));
}

const PAYER_ONLY = ['email', 'firstName', 'lastName', 'phone', 'ssn', 'nationality'];

function describeDuplicate(d: unknown): string {
  if (typeof d === 'string') return d;
  if (d && typeof d === 'object') {
    const o = d as { field?: string; columns?: string[] };
    if (o.field && o.columns) return `${o.columns.map((c) => `"${c}"`).join(' and ')} (${o.field})`;
  }
  return JSON.stringify(d);
}

/**
 * Turns each raw record into a validated row or an invalid one with every issue; never throws for a row. An iterator,
 * not a generator: one generator step per row less between the reader and the send pass.
 */
export function classifyRows(
  input: OpenedInput,
  kind: RowKind,
  options: { defaultAgreementCompleted: boolean; seen: DuplicateIds; today: Date; readers?: Readers | undefined },
): AsyncIterableIterator<ClassifiedRow> {
  const withSchemas = { ...options, schemas: clientSchemas(localDay(options.today)) };
  const records = input.records[Symbol.asyncIterator]();
  const classified = (step: IteratorResult<RawRecord>): IteratorResult<ClassifiedRow> => {
    if (step.done) return step;
    try {
      return {
        done: false,
        value: { record: step.value, kind, result: classify(step.value, kind, input, withSchemas) },
      };
    } catch (error) {
      // A bug, not a row's problem: the file is closed as a loop over it would close it.
      void records.return?.();
      throw error;
    }
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => records.next().then(classified),
    async return() {
      await records.return?.();
      return { done: true, value: undefined };
    },
  };
}

function classify(
  record: RawRecord,
  kind: RowKind,
  input: OpenedInput,
  options: {
    defaultAgreementCompleted: boolean;
    seen: DuplicateIds;
    today: Date;
    schemas: ClientSchemas;
    readers?: Readers | undefined;
  },
): PayerRowResult | BankRowResult {
  const source = input.file.name;
  const { columns, dateFormat } = input.reading ?? {};
  const { readers } = options;
  if (record.problem) return withProblem(record, record.problem, kind, input, options);
  // A CSV row's values go by its header as they are; other rows by their cells.
  const { header } = input;
  const values = header === undefined ? undefined : record.values;
  const json = input.file.format === 'jsonl';
  if (kind === 'bank-details') {
    const bankOptions = { today: options.today, columns, dateFormat, json, readers, schemas: options.schemas };
    return values === undefined
      ? validateBankRow(record.cells, bankOptions)
      : checkBankRow(header!, values, bankOptions);
  }
  const payerOptions = {
    defaultAgreementCompleted: options.defaultAgreementCompleted,
    today: options.today,
    columns,
    dateFormat,
    json,
    readers,
    schemas: options.schemas,
  };
  const result =
    values === undefined ? validatePayerRow(record.cells, payerOptions) : checkPayerRow(header!, values, payerOptions);
  const id = result.clientUserId;
  if (id === undefined) return result;
  // The service may treat `Acme-1` and `ACME-1` as one payer, or as two with one SSN: either way one is a mistake.
  const earlier = options.seen.check(id.trim().toLowerCase(), source, record.line);
  if (earlier === undefined) return result;
  const column =
    record.cells.find((c) => fieldForColumn(c.column, 'payers', columns) === 'clientUserId')?.column ?? 'clientUserId';
  const where = earlier.startsWith(`${source}:`) ? `line ${earlier.slice(source.length + 1)}` : earlier;
  const issue: RowIssue = {
    column,
    message: `"${id}" appears again: the same payer is already on ${where} (another payer needs its own clientUserId; a repeat can be deleted)`,
  };
  return result.ok
    ? {
        ok: false,
        clientUserId: id,
        issues: [issue],
        completedSteps: result.completedSteps,
        ...(result.complianceDigest === undefined ? {} : { complianceDigest: result.complianceDigest }),
        ...(result.origin === undefined ? {} : { origin: result.origin }),
      }
    : { ...result, issues: [...result.issues, issue] };
}

/**
 * A row the reader already found a problem in: that problem alone. A JSONL line that is not an object keeps what
 * could be read of it (its cells then are its readable `"key": "text"` pairs): its clientUserId names the row in
 * results.csv, and the completedSteps a failed file carried stay with it. The checks of those cells are not the
 * row's problem: the line's is.
 */
function withProblem(
  record: RawRecord,
  problem: RowIssue,
  kind: RowKind,
  input: OpenedInput,
  options: { defaultAgreementCompleted: boolean; today: Date; schemas: ClientSchemas },
): InvalidRow {
  if (input.file.format !== 'jsonl' || record.cells.length === 0) return { ok: false, issues: [problem] };
  const reading = { today: options.today, columns: input.reading?.columns, schemas: options.schemas };
  const read =
    kind === 'bank-details'
      ? validateBankRow(record.cells, reading)
      : validatePayerRow(record.cells, { ...reading, defaultAgreementCompleted: options.defaultAgreementCompleted });
  const row: InvalidRow = { ok: false, issues: [problem] };
  if (read.clientUserId !== undefined) row.clientUserId = read.clientUserId;
  if (read.completedSteps !== undefined) row.completedSteps = read.completedSteps;
  if ('complianceDigest' in read && read.complianceDigest !== undefined) row.complianceDigest = read.complianceDigest;
  if (read.origin !== undefined) row.origin = read.origin;
  return row;
}

/**
 * What `validate` prints first: which column was read as which field, and which were ignored, so a team
 * with its own column names sees at once whether `DOB` and `Zip` were understood.
 */
export function describeMapping(input: OpenedInput, kind: RowKind): string {
  if (input.header === undefined) return `${input.file.name}: JSON keys are read by their names\n`;
  const mapping = mapHeader(input.header, kind, input.reading?.columns);
  const used = input.header.flatMap((column, i) => {
    const field = mapping.fields[i];
    return field === undefined || field === 'error' || field === 'completedSteps' ? [] : [`  ${column} -> ${field}`];
  });
  const ignored = mapping.unknown.length > 0 ? mapping.unknown.map((c) => `"${c}"`).join(', ') : '(none)';
  return `${input.file.name}: columns read as\n${used.join('\n')}\n${input.file.name}: columns ignored: ${ignored}\n`;
}
