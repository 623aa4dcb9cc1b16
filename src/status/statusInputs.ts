import { AbortedError, InputError } from '../core/errors.js';
import type { OpenedInput, ReadingOptions } from '../input/InputFile.js';
import { bankSheetOf, openInput } from '../input/openInput.js';
import { csvUnguard } from '../core/formulaGuard.js';
import { classifyRows, DuplicateIds, isBankFile, withValueColumns } from '../pipeline/classifyRows.js';
import { fieldForColumn, type FileKind, isBlank } from '../rows/columns.js';
import { BANK_ONLY_FIELDS, PAYMENT_DETAILS_KEY } from '../rows/fields.js';
import { clientUserIdProblem } from '../core/schemas.js';
import type { Cell } from '../core/types.js';
import type { GivenRows, PayerLinks } from './payerStatus.js';

/**
 * A payer to ask about: its id, whether the input gave it a bank account, whether its rows are ones a run refuses
 * (GivenRows), and links a results.csv carried.
 */
export interface StatusTarget extends GivenRows {
  links: PayerLinks;
}

export interface StatusInputs {
  targets: StatusTarget[];
  inputs: Array<{ source: string; path: string; format: string; rows: number }>;
  /** Rows with no clientUserId to ask about (an invalid row of a results.csv, a blank id). */
  withoutId: number;
  /** Rows whose clientUserId `run` refuses (`..`, a control character): no path can ask about them. */
  badIds: number;
}

/** The columns that make a CSV one of our own results files rather than a payers file. */
const RESULT_MARKERS = ['source', 'line', 'clientUserId', 'outcome', 'steps'];

const BANK_FIELDS: ReadonlySet<string> = new Set([...BANK_ONLY_FIELDS, PAYMENT_DETAILS_KEY]);

/** What reading the inputs found besides the payers, complete once every row is read. */
export interface StatusReadTotals {
  inputs: StatusInputs['inputs'];
  withoutId: number;
  badIds: number;
}

interface ReadSpec {
  reading: ReadingOptions;
  sheet?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Every distinct payer of the inputs, in the order first seen: payers files, their failed and pending files, bank
 * files (their payers have a bank row), an xlsx's bank sheet, or a results.csv of an earlier run. The id, whether a
 * bank row exists, and whether `run` would refuse the row are read; a row that would not pass `run`'s checks is still
 * a payer to ask about (the service may know it from an earlier row), and its line says to fix it where that matters.
 */
export async function readStatusInputs(paths: string[], read: ReadSpec): Promise<StatusInputs> {
  const totals: StatusReadTotals = { inputs: [], withoutId: 0, badIds: 0 };
  const targets: StatusTarget[] = [];
  for await (const target of statusTargets(paths, read, totals)) targets.push(target);
  return { targets, ...totals };
}

/**
 * The payers of the inputs as they are read, so that asking about the first need not wait for the last. A payer
 * seen again later updates the target yielded before (a bank row, a valid row, links), so `hasBank`, `invalid` and
 * `links` are final only once the iteration has ended; `totals` is filled in by then too.
 */
export async function* statusTargets(
  paths: string[],
  read: ReadSpec,
  totals: StatusReadTotals,
): AsyncGenerator<StatusTarget> {
  const byId = new Map<string, StatusTarget>();
  // Rows are checked as `run` checks them, a repeated payer's later row included.
  const checks = { defaultAgreementCompleted: true, seen: new DuplicateIds(), today: new Date() };
  const all: Array<[string, string | undefined]> = paths.map((p) => [p, read.sheet]);
  for (const [path, sheet] of all) {
    const opening = { ...read.reading, sheet };
    const first = await openInput(path, opening);
    const kind: FileKind = sheet !== read.sheet || isBankFile(first) ? 'bank-details' : 'payers';
    // Read as `run` reads it: a column its values name (`Type`: individual, business) is that field here too.
    const { input } = await withValueColumns(first, kind, (columns) => openInput(path, { ...opening, columns }));
    const results = isResultsFile(input);
    if (!results && kind === 'payers') {
      const besides = bankSheetOf(input);
      if (besides !== undefined) all.push([path, besides]);
    }
    if (input.header && !results && !input.header.some((c) => idField(c, kind, input) === 'clientUserId'))
      throw new InputError(input.file.name, `has no clientUserId column (header: ${input.header.join(', ')})`, {
        line: 1,
      });
    let rows = 0;
    const targets = results ? resultsTargets(input) : inputTargets(input, kind, checks);
    for await (const target of targets) {
      rows++;
      if ((rows & 1023) === 0 && read.signal?.aborted) throw new AbortedError('interrupted while reading the input');
      if (target === undefined) {
        totals.withoutId++;
        continue;
      }
      // The rule `run` validates by: such an id was never registered, and asking would send a path the API lacks.
      if (clientUserIdProblem(target.clientUserId) !== undefined) {
        totals.badIds++;
        continue;
      }
      const known = byId.get(target.clientUserId);
      if (known === undefined) {
        byId.set(target.clientUserId, target);
        yield target;
      } else {
        known.hasBank ||= target.hasBank;
        const { payer, bank } = target.invalid;
        known.invalid = { payer: both(known.invalid.payer, payer), bank: both(known.invalid.bank, bank) };
        known.links = { ...target.links, ...known.links };
      }
    }
    totals.inputs.push({ source: input.file.name, path: input.file.path, format: input.file.format, rows });
  }
}

/** Every row given of a kind is invalid: true only while no valid one was seen (`undefined`: none seen yet). */
function both(a: boolean | undefined, b: boolean | undefined): boolean | undefined {
  return a === undefined ? b : b === undefined ? a : a && b;
}

/** Each row of a payers or bank file as a payer to ask about (undefined for a row without an id). */
async function* inputTargets(
  input: OpenedInput,
  kind: FileKind,
  checks: Parameters<typeof classifyRows>[2],
): AsyncGenerator<StatusTarget | undefined> {
  for await (const { record, result } of classifyRows(input, kind, checks))
    yield fromInputRow(record.cells, kind, input, !result.ok);
}

/** Each line of our own results.csv as a payer to ask about (undefined for a line without an id). */
async function* resultsTargets(input: OpenedInput): AsyncGenerator<StatusTarget | undefined> {
  for await (const record of input.records) yield fromResultsRow(record.cells);
}

function isResultsFile(input: OpenedInput): boolean {
  return input.header !== undefined && RESULT_MARKERS.every((c) => input.header!.includes(c));
}

function idField(column: string, kind: FileKind, input: OpenedInput): string | undefined {
  return fieldForColumn(column, kind, input.reading?.columns);
}

function fromInputRow(
  cells: readonly Cell[],
  kind: FileKind,
  input: OpenedInput,
  invalid: boolean,
): StatusTarget | undefined {
  let id: string | undefined;
  let hasBank = kind === 'bank-details';
  for (const { column, value } of cells) {
    const field = idField(column, kind, input);
    if (field === 'clientUserId' && !isBlank(value)) id ??= String(value).trim();
    else if (field !== undefined && BANK_FIELDS.has(field) && !isBlank(value))
      hasBank ||= !(Array.isArray(value) && value.length === 0);
  }
  if (id === undefined) return undefined;
  // A payer row with bank cells is refused whole: its bank account is not sent either.
  const given = kind === 'bank-details' ? { bank: invalid } : { payer: invalid, ...(hasBank ? { bank: invalid } : {}) };
  return { clientUserId: id, hasBank, invalid: given, links: {} };
}

/** A line of our own results.csv: the cells we guarded against formula injection lose the `'` we added. */
function fromResultsRow(cells: readonly Cell[]): StatusTarget | undefined {
  const cell = (name: string): string => {
    const value = cells.find((c) => c.column === name)?.value;
    return typeof value === 'string' ? csvUnguard(value.trim()) : '';
  };
  const id = cell('clientUserId');
  if (id === '') return undefined;
  const links: PayerLinks = {};
  for (const name of ['userId', 'agreementUrl', 'kycUrl'] as const) {
    const value = cell(name);
    if (value !== '') links[name] = value;
  }
  const hasBank = cell('paymentDetailId') !== '' || /\bpayment-details=/.test(cell('steps'));
  // An invalid row has no steps: whether it was the payer's or a bank row, its payer has not been sent it.
  return { clientUserId: id, hasBank, invalid: { payer: cell('outcome') === 'invalid' }, links };
}
