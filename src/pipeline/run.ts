import { resolve } from 'node:path';
import { PayerOnboardError } from '../core/errors.js';
import { RunAudit } from '../journal/RunAudit.js';
import { type HeldJournal, holdJournal } from '../journal/holdJournal.js';
import { stateDirs } from '../journal/stateDir.js';
import { resolveRunOptions, type RunOptionsInput } from '../options/resolve.js';
import { RESULT_COLUMNS, type Summary } from '../output/results.js';
import { checkInputs } from './checkInputs.js';
import { finishRun } from './finishRun.js';
import { resolveConnection, resolveDatabaseUrl } from '../options/connection.js';
import type { Reached, RunFacts } from './RunFacts.js';
import { makeRunId, placesOf, type RunContext, RunSession, type SessionSpec } from './RunSession.js';
import { sendInputs } from './sendInputs.js';
import { writeStopSummary } from './writeStopSummary.js';

/** Where `run()` writes and what it listens to; all optional, so a library caller passes nothing. */
export type { RunContext };

export type RunInput = RunOptionsInput & { command?: 'run' | 'validate' };

/**
 * The whole job: check every row of every input, then send the valid ones and write results,
 * failed rows and a summary. Needs no process globals; returns the summary. Throws only what stops a run
 * before it starts (ConfigError, InputError: exit 2); everything that happens to a row is data on that row.
 */
export async function run(input: RunInput, context: RunContext = {}): Promise<Summary> {
  const places = placesOf(context);
  const { env, cwd } = places;
  const options = resolveRunOptions(input, env);
  const command = options.dryRun || input.command === 'validate' ? 'validate' : 'run';
  const startedAt = new Date();
  const runId = context.runId ?? makeRunId(startedAt);
  const facts: RunFacts = {
    runId,
    command,
    startedAt,
    options,
    cwd,
    paths: {
      inputs: options.inputs.map((p) => resolve(cwd, p)),
      bankDetails: options.bankDetails === undefined ? undefined : resolve(cwd, options.bankDetails),
    },
    context,
  };

  const connection = command === 'run' ? resolveConnection(options, env, cwd) : undefined;

  // What the run got to, for the summary of a run that stops on the way (a bad input, a workbook that cannot be read
  // again): a results folder never holds half-written files without a summary.json that says why.
  const reached: Reached = { warnings: [], summaryWritten: false };
  // One run at a time per service and key, taken before anything else so a second run is turned
  // away at once. Not for validate (it sends nothing) nor a sandbox rehearsal (its API lives only as long as the run:
  // no journal).
  const borrowed = command === 'run' && !options.sandbox ? context.held : undefined;
  const held =
    borrowed ??
    (command === 'run' && !options.sandbox && connection
      ? await holdJournal({
          state: stateDirs(options.stateDir, places),
          places,
          ...connection,
          runId: context.holder ?? runId,
          databaseUrl: resolveDatabaseUrl(options, env, cwd),
        })
      : undefined);
  try {
    return await runPasses(facts, reached, connection, held);
  } catch (error) {
    if (!reached.summaryWritten) writeStopSummary(facts, reached, error);
    throw error;
  } finally {
    if (held !== borrowed) await held?.release();
  }
}

/**
 * The passes, with the locks held: every input read and checked, then a session opened for the rows to be sent and
 * written, then the summary. `held`: the hold of the service and key, and where its journal is, if it keeps one.
 */
async function runPasses(
  facts: RunFacts,
  reached: Reached,
  connection: SessionSpec['connection'],
  held: HeldJournal | undefined,
): Promise<Summary> {
  const checked = await checkInputs(facts, reached);
  const session = await RunSession.open({
    runId: facts.runId,
    options: facts.options,
    cwd: facts.cwd,
    connection,
    results: { name: 'results.csv', columns: RESULT_COLUMNS },
    ...(held !== undefined ? { journal: held.place } : {}),
    warnings: checked.warnings,
    context: facts.context,
  });
  reached.session = session;
  // Another machine may take the service and key once this run's hold is gone: nothing more may be sent.
  const unlisten = held?.onLost((why) => session.client?.stop('write-failed', `stopped: ${why}; nothing more is sent`));
  // A run that keeps a journal enters the audit trail, its lines written with the journal's records.
  const audit = session.journal && new RunAudit(session.journal, facts.runId, facts.context.actor);
  audit?.started(checked.scanned.map((job) => job.input.file.name));
  try {
    const tally = await sendInputs(session, checked, facts, reached, audit);
    const summary = await finishRun(session, checked, tally, facts, reached);
    const { rows, requests, exitCode, aborted } = summary;
    audit?.finished({ rows, requests: requests.total, exitCode, ...(aborted ? { stopped: aborted.reason } : {}) });
    return summary;
  } catch (error) {
    // Stopped on the way (an input that breaks partway, a summary that cannot be written): the rows it got to.
    const stopped = error instanceof PayerOnboardError ? error.code : 'E_ABORTED';
    audit?.finished({ rows: reached.tally?.outcomes() ?? {}, stopped });
    throw error;
  } finally {
    unlisten?.();
    await session.close();
  }
}
