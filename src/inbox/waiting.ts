import { copyFileSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { journaledPayers } from '../journal/RowJournal.js';
import { journalPlace, stateDirs } from '../journal/stateDir.js';
import { InputError } from '../core/errors.js';
import { makeRunId, placesOf } from '../pipeline/RunSession.js';
import { resolveRunOptions } from '../options/resolve.js';
import { resolveConnection, resolveDatabaseUrl } from '../options/connection.js';
import type { RunContext, RunInput } from '../pipeline/run.js';
import { readStatusInputs } from '../status/statusInputs.js';
import { copyInto, type InboxPaths, moveInto, oldestFirst, writeNote } from './folders.js';
import type { FileOutcome, InboxRun } from './processFile.js';

/**
 * The files of waiting/ with a row due for another look: a payer the journal has not checked for `recheckAfterMs`
 * (or never). Reads the files and the journal, sends nothing: a tick with nothing due costs no request.
 */
export async function dueWaiting(
  paths: InboxPaths,
  input: Omit<RunInput, 'inputs' | 'out'>,
  recheckAfterMs: number,
  context: RunContext,
): Promise<string[]> {
  const names = oldestFirst(paths.waiting);
  if (names.length === 0) return [];
  const places = placesOf(context);
  const { env, cwd } = places;
  const options = resolveRunOptions({ ...input, inputs: ['(waiting)'] }, env);
  // A rehearsal's sandbox keeps no journal: every row is due.
  const journal = options.sandbox
    ? undefined
    : (() => {
        const { baseUrl, apiKey } = resolveConnection(options, env, cwd);
        return journalPlace(
          stateDirs(options.stateDir, places),
          baseUrl,
          apiKey,
          resolveDatabaseUrl(options, env, cwd),
        );
      })();
  // Every waiting file's payers first, so the journal is read once for all of them, not once a file.
  const files: Array<{ name: string; ids: string[] }> = [];
  for (const name of names) {
    try {
      const { targets } = await readStatusInputs([join(paths.waiting, name)], { reading: {} });
      files.push({ name, ids: targets.map((t) => t.clientUserId) });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      // Someone put or changed a file there that is no rows of ours: it would stop every tick, so it goes to failed/.
      const moved = moveInto(join(paths.waiting, name), paths.failed, name, makeRunId(new Date()));
      writeNote(moved, [
        `${basename(moved)} was in waiting/ but cannot be read as rows: ${error.message}`,
        '',
        'Nothing was sent for it. Fix the file and drop it into incoming/.',
      ]);
      context.stderr?.write(`inbox: waiting/${name}: cannot be read (${error.message}); moved to failed/\n`);
    }
  }
  const known =
    journal === undefined
      ? undefined
      : await journaledPayers(
          journal,
          files.flatMap((f) => f.ids),
        );
  const now = Date.now();
  const isDue = (id: string) => {
    const checked = known?.(id)?.checkedAt;
    return checked === undefined || now - Date.parse(checked) >= recheckAfterMs;
  };
  const due = files.filter((f) => f.ids.length === 0 || f.ids.some(isDue)).map((f) => f.name);
  return due;
}

/**
 * Runs one file of waiting/ again. Its new pending file takes its place, or, with nothing left to wait for, it
 * goes; rows that now need a person (a KYC rejected, a bank account refused) land in failed/ with a note. A run
 * that did not get to the end leaves the file as it was: the next tick tries again, and the journal makes that safe.
 */
export function settleWaiting(paths: InboxPaths, name: string, ran: InboxRun): FileOutcome {
  const { runId, at, summary } = ran;
  const rel = (p: string) => relative(paths.root, p);
  const base = { file: name, exitCode: summary.exitCode, results: rel(summary.outputs.dir), summary };
  if (summary.aborted)
    return {
      ...base,
      folder: 'waiting',
      path: rel(at),
      reason: `the run stopped (${summary.aborted.reason}); the next inbox run tries it again`,
      stop: true,
    };
  const r = summary.rows;
  const failedFile = summary.outputs.failed[0];
  const fix = failedFile ? copyInto(failedFile, paths.failed, basename(failedFile), runId) : undefined;
  if (fix)
    writeNote(fix, [
      `${basename(fix)}: ${r.invalid + r.failed} rows of ${name} (from waiting/) need a person now.`,
      '',
      `See ${rel(summary.outputs.report)} for why. Fix the rows and drop this file into incoming/.`,
    ]);
  const pendingFile = summary.outputs.pending[0];
  const reasons = [
    r.ok > 0 ? `${r.ok} of ${r.total} rows done` : '',
    r.waiting + r.skipped > 0 ? `${r.waiting + r.skipped} still waiting` : '',
    fix ? `${r.invalid + r.failed} to fix in ${rel(fix)}` : '',
  ].filter(Boolean);
  if (pendingFile) {
    copyFileSync(pendingFile, at);
    return { ...base, folder: 'waiting', path: rel(at), reason: reasons.join('; '), stop: false };
  }
  rmSync(at, { force: true });
  return { ...base, folder: 'done', path: rel(summary.outputs.dir), reason: reasons.join('; '), stop: false };
}
