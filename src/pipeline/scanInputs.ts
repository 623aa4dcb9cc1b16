import { AbortedError, InputError } from '../errors.js';
import type { OpenedInput, ReadingOptions } from '../input/InputFile.js';
import { openInput, bankSheetOf } from '../input/openInput.js';
import type { RunOptions } from '../options.js';
import { checkHeader, describeMapping, isBankFile, type RowKind } from './classifyRows.js';

/** One input to send: what it is, opened in pass 1, and how many rows it holds. */
export interface Job {
  kind: RowKind;
  input: OpenedInput;
  rows: number;
}

/**
 * Pass 1: opens and reads every input once before anything is sent, so that a file that cannot be used (its header,
 * its encoding, a file given twice) stops the run with nothing sent, and the rows are counted for the progress bar.
 * Rows are not validated here: the send pass must build each row's request bodies anyway, and keeping them from
 * this pass would hold the file in memory, so each row is validated once, there. Throws InputError.
 */
export async function scanInputs(
  paths: { inputs: string[]; bankDetails: string | undefined },
  options: RunOptions,
  warnings: string[],
  read: { reading: ReadingOptions; announce: ((text: string) => void) | undefined; signal?: AbortSignal | undefined },
): Promise<Job[]> {
  const jobs: Job[] = [];
  // The third item is an xlsx sheet found beside the payers (`Bank details`), read after every payer input.
  const all: Array<[string, RowKind, string?]> = [...paths.inputs.map((p): [string, RowKind] => [p, 'payers'])];
  if (paths.bankDetails) all.push([paths.bankDetails, 'bank-details']);
  const names = new Set<string>();
  for (const [path, given, bankSheet] of all) {
    const input = await openInput(path, {
      ...read.reading,
      sheet: bankSheet ?? (given === 'payers' ? options.sheet : undefined),
    });
    const kind: RowKind = given === 'payers' && isBankFile(input) ? 'bank-details' : given;
    if (names.has(input.file.name)) {
      throw new InputError(
        input.file.name,
        'is given twice (or two inputs share this file name): their results and failed files would collide',
      );
    }
    names.add(input.file.name);
    read.announce?.(describeMapping(input, kind));
    warnings.push(...checkHeader(input, kind));
    const besides = kind === 'payers' ? bankSheetOf(input) : undefined;
    if (besides !== undefined) all.push([path, 'bank-details', besides]);
    let rows = 0;
    for await (const _ of input.records) {
      rows++;
      // Interrupted while checking: nothing was sent yet, so there is nothing to drain or write.
      if ((rows & 1023) === 0 && read.signal?.aborted)
        throw new AbortedError('interrupted while checking the input: nothing was sent');
    }
    warnings.push(...(input.warnings ?? []));
    // A workbook's bank sheet may be empty, and so may its payer sheet when only bank rows are left to fix.
    if (rows === 0 && bankSheet !== undefined) continue;
    if (rows === 0 && besides === undefined) throw new InputError(input.file.name, 'has a header but no rows');
    jobs.push({ kind, input, rows });
  }
  return jobs;
}
