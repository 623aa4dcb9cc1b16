import { basename, join, relative } from 'node:path';
import { InputError, LockedError, PayerOnboardError } from '../core/errors.js';
import { pendingReason, type Summary } from '../output/results.js';
import { makeRunId } from '../pipeline/RunSession.js';
import { run, type RunContext, type RunInput } from '../pipeline/run.js';
import { moveInto, type InboxPaths, writeNote } from './folders.js';

/** What became of one file of the inbox. */
export interface FileOutcome {
  /** The file's name as it was dropped. */
  file: string;
  /**
   * Where it is now: `done`, `failed`, still `processing` (to be resumed by the next inbox run), or, for rows kept
   * waiting and run again, still `waiting` (rows left for a later tick; `path` is then the run's pending file).
   */
  folder: 'done' | 'failed' | 'processing' | 'waiting';
  /** Its path now, relative to the inbox. */
  path: string;
  exitCode: number;
  /** The run's output folder, relative to the inbox (absent when the file was rejected before any output). */
  results?: string;
  /** Why the file did not finish, in words (rows to fix, rows waiting on the payers); absent when every row is ok. */
  reason?: string;
  summary?: Summary;
  /** The inbox should take no further file: the API is down, the key refused, interrupted, or not configured. */
  stop: boolean;
  /** Another process holds the service and key (who, in words): the file waits its turn, nothing is wrong with it. */
  heldBy?: string;
}

/**
 * Runs one file that is already in processing/ and moves it to done/ or failed/. A run that did not get to
 * the end (aborted, interrupted, not configured, state dir busy) leaves it in processing/: the next inbox run
 * resumes it first, and the journal makes sending its rows again safe.
 */
export async function settleIncoming(
  paths: InboxPaths,
  name: string,
  ran: InboxRun,
  waiting: { keep(pendingFile: string, source: string): Promise<number> } | undefined,
): Promise<FileOutcome> {
  const { runId, at, summary } = ran;
  const rel = (p: string) => relative(paths.root, p);
  const base = { file: name, exitCode: summary.exitCode, results: rel(summary.outputs.dir), summary };
  if (summary.aborted) {
    return {
      ...base,
      folder: 'processing',
      path: rel(at),
      // The run's own summary, just above on stderr and in summary.json, says why and what to do: said once.
      reason: `the run stopped (${summary.aborted.reason}); the next inbox run resumes it`,
      stop: true,
    };
  }
  const r = summary.rows;
  // Rows left waiting wait on in the store: later ticks and events run them again until nothing is left. A
  // rehearsal keeps none: its sandbox is gone with its run.
  const pending = summary.outputs.pending[0];
  const kept = pending !== undefined && waiting !== undefined && (await waiting.keep(pending, at)) > 0;
  const where = kept && pending !== undefined ? `; they wait in the store (as ${rel(pending)})` : '';
  // Rows waiting on the payer are the normal state of onboarding: named, never as something to fix.
  const waitingRows =
    r.waiting + r.skipped > 0 ? `${r.waiting + r.skipped} of ${r.total} rows ${pendingReason(r, false)}` : undefined;
  if (summary.exitCode === 0) {
    const reason = waitingRows && `${waitingRows}${kept ? `${where}, run again as they come due` : ''}`;
    return {
      ...base,
      folder: 'done',
      path: rel(moveInto(at, paths.done, name, runId)),
      ...(reason ? { reason } : {}),
      stop: false,
    };
  }
  const moved = moveInto(at, paths.failed, name, runId);
  const failedFile = summary.outputs.failed[0];
  const notOk = r.invalid + r.failed + r.skipped;
  const reason = `${notOk} of ${r.total} rows not ok (${r.invalid} invalid, ${r.failed} failed, ${r.skipped} skipped)${r.waiting ? `; ${r.waiting} waiting on the payers` : ''}`;
  writeNote(moved, [
    `${basename(moved)}: ${reason}.`,
    '',
    `Rows ok are done and are not sent again. See ${rel(summary.outputs.report)} for what went wrong.`,
    failedFile ? `Fix the rows in ${rel(failedFile)} and drop that file into incoming/.` : '',
    waitingRows && kept
      ? `${waitingRows}: nothing in them to change${where}, and the inbox runs them again as they come due.`
      : '',
  ]);
  return { ...base, folder: 'failed', path: rel(moved), reason, stop: false };
}

/** A file of the inbox that was run: its run id, where it lies, and the run's summary. */
export interface InboxRun {
  runId: string;
  at: string;
  summary: Summary;
}

/**
 * Runs one file of the inbox where it lies, its outputs in results/<file>-<run id>/. A file that cannot be used
 * (unsupported, unreadable, no usable header) goes to failed/ with a note: there is no point retrying it. A run that
 * could not start (configuration, a busy state dir) is not the file's fault: it stays, and the inbox stops.
 */
export async function runInboxFile(
  paths: InboxPaths,
  folder: 'processing' | 'waiting',
  at: string,
  name: string,
  input: Omit<RunInput, 'inputs' | 'out'>,
  context: RunContext,
): Promise<{ outcome: FileOutcome } | InboxRun> {
  const runId = makeRunId(new Date());
  try {
    const out = join(paths.results, `${name}-${runId}`);
    // What its notes, results and failed files advise is what a person can do without a terminal.
    const summary = await run({ ...input, inputs: [at], out }, { ...context, runId, readers: 'inbox' });
    return { runId, at, summary };
  } catch (error) {
    if (!(error instanceof PayerOnboardError)) throw error;
    const unusable = error instanceof InputError;
    const moved = unusable ? moveInto(at, paths.failed, name, runId) : at;
    if (unusable)
      writeNote(moved, [
        `${basename(moved)} was not processed: ${error.message}`,
        '',
        'Nothing was sent. Fix the file and drop it into incoming/ again.',
      ]);
    const path = relative(paths.root, moved);
    const where: FileOutcome['folder'] = unusable ? 'failed' : folder;
    const outcome = {
      file: name,
      folder: where,
      path,
      exitCode: error.exitCode,
      reason: error.message,
      stop: !unusable,
      ...(error instanceof LockedError ? { heldBy: error.message } : {}),
    };
    return { outcome };
  }
}
