import { AbortedError } from '../core/errors.js';
import type { ReadingOptions } from '../input/InputFile.js';
import { readingOptions } from '../input/openInput.js';
import { DuplicateIds } from './classifyRows.js';
import type { Reached, RunFacts } from './RunFacts.js';
import { lateWarnings, scanInputs, type Job } from './scanInputs.js';

/** What pass 1 hands pass 2: the inputs with their row counts and how they are read; and the repeat check of pass 2. */
export interface CheckedInputs {
  scanned: Job[];
  warnings: string[];
  reading: ReadingOptions;
  duplicates: DuplicateIds;
}

/** The operator's statement for every payer of the run, said wherever the run is told: it signs for them. */
const SIGNED_ELSEWHERE =
  '--agreement-signed-elsewhere: you state that every payer of these files signed the agreement outside this tool; ' +
  'it is recorded as signed for each row whose agreementCompleted cell is blank';

/**
 * Pass 1: read and check everything before the first call, so a file that cannot be used stops the run with nothing
 * sent, and the progress bar knows its total. Its warnings are said on stderr and kept in `reached`.
 */
export async function checkInputs(facts: RunFacts, reached: Reached): Promise<CheckedInputs> {
  const { options, cwd, command, context } = facts;
  const stderr = context.stderr;
  const warnings = reached.warnings;
  if (options.agreementSignedElsewhere) warnings.push(SIGNED_ELSEWHERE);
  // --map and --date-format apply to every input; `validate` shows first how each file's columns were read.
  const reading = readingOptions(options, cwd);
  const announce = command === 'validate' ? (text: string) => stderr?.write(text) : undefined;
  // validate sends nothing, so nothing needs every row read before the first one is checked: one reading each.
  const once =
    command === 'validate'
      ? {
          late: lateWarnings(warnings, (warning) => {
            stderr?.write(`warning: ${warning}\n`);
            reached.session?.logger.warn(warning);
          }),
        }
      : undefined;
  const scanned = await scanInputs(facts.paths, options, warnings, {
    ...{ reading, announce, signal: context.signal, once },
    readers: context.readers,
  });
  const duplicates = new DuplicateIds();
  reached.scanned = scanned;
  if (context.signal?.aborted) throw new AbortedError('interrupted while checking the input: nothing was sent');
  for (const warning of warnings) stderr?.write(`warning: ${warning}\n`);
  return { scanned, warnings, reading, duplicates };
}
