import type { Readers } from '../core/advice.js';
import { AbortedError, InputError } from '../core/errors.js';
import type { OpenedInput, RawRecord, ReadingOptions } from '../input/InputFile.js';
import { openInput, bankSheetOf } from '../input/openInput.js';
import type { RunOptions } from '../options/resolve.js';
import { checkHeader, describeMapping, isBankFile, type RowKind, withValueColumns } from './classifyRows.js';

/** One input to send: what it is, opened in pass 1, and how many rows it holds. */
export interface Job {
  kind: RowKind;
  input: OpenedInput;
  /** Rows read so far: all of them once `read` is true (a two-pass run counts them before sending). */
  rows: number;
  /** Whether every row has been read: false for an input of a single-pass run until its send pass ends. */
  read: boolean;
  /** Single pass: `input` is the opening to send from, its records not yet read (past the first). */
  once: boolean;
  /** Single pass: where in the run's warnings this input's late ones go (after its header's, as a count would put them). */
  warningsAt?: number;
}

/** What a single-pass run learns only at an input's end: warnings a whole reading finds (encoding, blank rows). */
export type LateWarnings = (warnings: string[], job: Job) => void;

/**
 * Pass 1: opens every input before anything is sent, so that a file that cannot be used (its header, its encoding,
 * a file given twice, no rows) stops the run with nothing sent. For `run` every row is read here too, so a damaged
 * file stops it before its first call, and the rows are counted for the progress bar. Rows are not validated here:
 * the send pass must build each row's request bodies anyway, and keeping them from this pass would hold the file in
 * memory, so each row is validated once, there.
 * With `once` (validate, --dry-run: nothing is sent, so nothing can be sent too early) only the first row is read
 * here and the send pass reads each input's rows from this same opening: one reading of every file. Its rows are
 * counted as they pass, and what a reading says at its end reaches `late`. Throws InputError.
 */
export async function scanInputs(
  paths: { inputs: string[]; bankDetails: string | undefined },
  options: RunOptions,
  warnings: string[],
  read: {
    reading: ReadingOptions;
    announce: ((text: string) => void) | undefined;
    signal?: AbortSignal | undefined;
    once?: { late: LateWarnings } | undefined;
    /** Who reads what a header lacks or holds that is not read: its advice is in their words. */
    readers?: Readers | undefined;
  },
): Promise<Job[]> {
  const jobs: Job[] = [];
  // The third item is an xlsx sheet found beside the payers (`Bank details`), read after every payer input.
  const all: Array<[string, RowKind, string?]> = [...paths.inputs.map((p): [string, RowKind] => [p, 'payers'])];
  if (paths.bankDetails) all.push([paths.bankDetails, 'bank-details']);
  const names = new Set<string>();
  for (const [path, given, bankSheet] of all) {
    const sheet = bankSheet ?? (given === 'payers' ? options.sheet : undefined);
    // What is said of the file (its encoding, its sheet) is said in the words of who reads it.
    const opening = { ...read.reading, sheet, readers: read.readers };
    const first = await openInput(path, opening);
    const kind: RowKind = given === 'payers' && isBankFile(first) ? 'bank-details' : given;
    const { input, warnings: byValues } = await withValueColumns(first, kind, (columns) =>
      openInput(path, { ...opening, columns }),
    );
    warnings.push(...byValues);
    if (names.has(input.file.name)) {
      throw new InputError(
        input.file.name,
        'is given twice (or two inputs share this file name): their results and failed files would collide',
      );
    }
    names.add(input.file.name);
    read.announce?.(describeMapping(input, kind));
    warnings.push(...(await checkHeader(input, kind, read.readers)));
    const besides = kind === 'payers' ? bankSheetOf(input) : undefined;
    if (besides !== undefined) all.push([path, 'bank-details', besides]);
    const counted: { rows: number; first?: RawRecord } = read.once
      ? await firstRow(input)
      : await countRows(input, read.signal);
    if (counted.rows > 0 && read.once) {
      const job: Job = { kind, input, rows: 0, read: false, once: true, warningsAt: warnings.length };
      job.input = { ...input, records: passing(counted.first!, input, job, read.once.late) };
      jobs.push(job);
      continue;
    }
    warnings.push(...(input.warnings ?? []));
    // A workbook's bank sheet may be empty, and so may its payer sheet when only bank rows are left to fix.
    if (counted.rows === 0 && bankSheet !== undefined) continue;
    if (counted.rows === 0 && besides === undefined) throw new InputError(input.file.name, 'has a header but no rows');
    jobs.push({ kind, input, rows: counted.rows, read: true, once: false });
  }
  return jobs;
}

async function countRows(input: OpenedInput, signal: AbortSignal | undefined): Promise<{ rows: number }> {
  // Interrupted while checking: nothing was sent yet, so there is nothing to drain or write.
  const stopped = () => {
    if (signal?.aborted) throw new AbortedError('interrupted while checking the input: nothing was sent');
  };
  if (input.count) return { rows: await input.count(stopped) };
  let rows = 0;
  for await (const _ of input.records) {
    rows++;
    if ((rows & 1023) === 0) stopped();
  }
  return { rows };
}

/** The first row, read ahead: an input with none is refused (or passed over) before anything is written. */
async function firstRow(input: OpenedInput): Promise<{ rows: number; first?: RawRecord }> {
  const iterator = input.records[Symbol.asyncIterator]();
  const step = await iterator.next();
  return step.done ? { rows: 0 } : { rows: 1, first: step.value };
}

/**
 * The rows of a single reading, the first one read ahead included, counted onto the job as the send pass takes them.
 * An iterator, not a generator: one generator step per row less between the reader and the send pass.
 */
function passing(first: RawRecord, input: OpenedInput, job: Job, late: LateWarnings): AsyncIterableIterator<RawRecord> {
  // The same iterator firstRow started: a generator is its own iterator, so this goes on after the first row.
  const rest = input.records[Symbol.asyncIterator]();
  let ahead: RawRecord | undefined = first;
  const counted = (step: IteratorResult<RawRecord>): IteratorResult<RawRecord> => {
    if (!step.done) job.rows++;
    else if (!job.read) {
      job.read = true;
      late([...(input.warnings ?? [])], job);
    }
    return step;
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (ahead === undefined) return rest.next().then(counted);
      const value = ahead;
      ahead = undefined;
      job.rows = 1;
      return Promise.resolve({ done: false, value });
    },
    // A send pass that stops early (a write that fails) closes the file here too.
    async return() {
      await rest.return?.();
      return { done: true, value: undefined };
    },
  };
}

/**
 * Where what a single reading says only at its end (its encoding, blank rows) goes: among the run's warnings where a
 * counting pass would have put them, and said (`say`) when it is known.
 */
export function lateWarnings(warnings: string[], say: (warning: string) => void): LateWarnings {
  let shift = 0;
  return (found, job) => {
    warnings.splice((job.warningsAt ?? warnings.length) + shift, 0, ...found);
    shift += found.length;
    for (const warning of found) say(warning);
  };
}

/** The rows the inputs hold, as far as known: a count once read, else the rows so far by the bytes so far. */
export function expectedRows(jobs: readonly Job[]): number {
  let rows = 0;
  for (const job of jobs) {
    const at = job.read ? undefined : job.input.position?.();
    rows += at === undefined || at.read === 0 ? job.rows : Math.round((job.rows * at.size) / at.read);
  }
  return rows;
}
