import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { AbortedError, PayerOnboardError } from './errors.js';
import type { ApiClient } from './execute/ApiClient.js';
import { PayerTurns, type RowDeps } from './execute/executeRow.js';
import { holdJournal } from './journal/holdJournal.js';
import { stateDirs } from './journal/stateDir.js';
import { RowJournal } from './journal/RowJournal.js';
import { openInput, readingOptions } from './input/openInput.js';
import { formatByName, type ReadingOptions } from './input/InputFile.js';
import { resolveRunOptions, type RunOptionsInput } from './options/resolve.js';
import { ROW_FILE_KINDS, RowFiles, RowFileSet } from './output/RowFiles.js';
import { RESULT_COLUMNS, exitCodeFor, formatSummary, type Summary } from './output/results.js';
import { DuplicateIds } from './pipeline/classifyRows.js';
import { resolveConnection } from './options/connection.js';
import { expectedRows, lateWarnings, scanInputs, type Job } from './pipeline/scanInputs.js';
import { makeRunId, placesOf, type RunContext, RunSession, runSpan } from './pipeline/RunSession.js';
import { sendRows } from './pipeline/sendRows.js';
import { ReportTally } from './report/collectReportData.js';
import { writeReport } from './report/buildReport.js';
import { rerunOptions } from './report/rerunCommand.js';
import type { Outcome, PayerResult } from './types.js';

/** Where `run()` writes and what it listens to; all optional, so a library caller passes nothing. */
export type { RunContext };

/** What pass 1 hands pass 2: the inputs with their row counts and how they are read; and the repeat check of pass 2. */
interface CheckedInputs {
  scanned: Job[];
  warnings: string[];
  reading: ReadingOptions;
  duplicates: DuplicateIds;
}

export type RunInput = RunOptionsInput & { command?: 'run' | 'validate' };

/** How far a run got, for the summary of one that stops before its end. */
interface Reached {
  warnings: string[];
  scanned?: Job[];
  session?: RunSession;
  tally?: ReportTally;
  summaryWritten: boolean;
}

/**
 * The whole job: check every row of every input, then send the valid ones and write results,
 * failed rows and a summary. Needs no process globals; returns the summary. Throws only what stops a run
 * before it starts (ConfigError, InputError: exit 2); everything that happens to a row is data on that row.
 */
export async function run(input: RunInput, context: RunContext = {}): Promise<Summary> {
  const places = placesOf(context);
  const { env, cwd } = places;
  const stderr = context.stderr;
  const options = resolveRunOptions(input, env);
  const command = options.dryRun || input.command === 'validate' ? 'validate' : 'run';
  const startedAt = new Date();
  const runId = context.runId ?? makeRunId(startedAt);
  const paths = {
    inputs: options.inputs.map((p) => resolve(cwd, p)),
    bankDetails: options.bankDetails === undefined ? undefined : resolve(cwd, options.bankDetails),
  };

  const connection = command === 'run' ? resolveConnection(options, env, cwd) : undefined;

  // What the run got to, for the summary of a run that stops on the way (a bad input, a workbook that cannot be read
  // again): a results folder never holds half-written files without a summary.json that says why.
  const reached: Reached = { warnings: [], summaryWritten: false };
  // One run at a time per service and key, and per journal, taken before anything else so a second run is turned
  // away at once. Not for validate (it sends nothing) nor a sandbox rehearsal (its API lives only as long as the run:
  // no journal).
  const held =
    command === 'run' && !options.sandbox && connection
      ? holdJournal({ state: stateDirs(options.stateDir, places), places, ...connection, runId, stderr })
      : undefined;
  try {
    return await runHoldingLock();
  } catch (error) {
    if (!reached.summaryWritten) writeStopSummary(error);
    throw error;
  } finally {
    held?.release();
  }

  function writeStopSummary(error: unknown): void {
    const counts = reached.tally?.outcomes() ?? { ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
    const dir = reached.session?.outputs.dir ?? resolve(cwd, options.out ?? join('payer-onboard-results', runId));
    const code = error instanceof PayerOnboardError ? error.code : 'E_ABORTED';
    const summary: Summary = {
      runId,
      command,
      ...runSpan(startedAt),
      sandbox: Boolean(options.sandbox),
      inputs: [...paths.inputs, ...(paths.bankDetails ? [paths.bankDetails] : [])].map((path) => {
        const job = reached.scanned?.find((j) => j.input.file.path === path);
        return {
          source: basename(path),
          path,
          format: job?.input.file.format ?? formatByName(path),
          rows: job?.rows ?? 0,
        };
      }),
      rows: rowTotals(counts),
      requests: requestCounts(reached.session?.client),
      stopped: { code, message: (error as Error)?.message ?? String(error) },
      warnings: reached.warnings,
      exitCode: error instanceof PayerOnboardError ? error.exitCode : 3,
      outputs: reached.session?.outputs ?? {
        dir,
        results: join(dir, 'results.csv'),
        failed: [],
        pending: [],
        summary: join(dir, 'summary.json'),
        report: join(dir, 'report.html'),
        log: resolve(cwd, options.logFile ?? join(dir, 'run.log')),
      },
    };
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(summary.outputs.summary, `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
      chmodSync(summary.outputs.summary, 0o600);
    } catch {
      // The error that stopped the run is the one to report; a folder that cannot be written adds nothing to it.
    }
  }

  async function runHoldingLock(): Promise<Summary> {
    // Pass 1: read and check everything before the first call, so a file that cannot be used stops the run
    // with nothing sent, and the progress bar knows its total.
    const warnings = reached.warnings;
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
    const scanned = await scanInputs(paths, options, warnings, { reading, announce, signal: context.signal, once });
    const duplicates = new DuplicateIds();
    reached.scanned = scanned;
    if (context.signal?.aborted) throw new AbortedError('interrupted while checking the input: nothing was sent');
    for (const warning of warnings) stderr?.write(`warning: ${warning}\n`);

    const session = await RunSession.open({
      runId,
      options,
      cwd,
      connection,
      results: { name: 'results.csv', columns: RESULT_COLUMNS },
      ...(held ? { journalDir: held.dir } : {}),
      warnings,
      context,
    });
    reached.session = session;
    try {
      return await send(session, { scanned, warnings, reading, duplicates });
    } finally {
      await session.close();
    }
  }

  /** Pass 2: every input again, its valid rows sent, every row written to results and the failed or pending files. */
  async function send(session: RunSession, checked: CheckedInputs): Promise<Summary> {
    const { scanned, warnings, reading, duplicates } = checked;
    const { outputs, logger, client, journal, baseUrl } = session;
    logger.info(
      { runId, command, inputs: scanned.map((j) => j.input.file.name), baseUrl, sandbox: session.sandboxed },
      'run started',
    );
    for (const warning of warnings) logger.warn(warning);

    // What report.html shows of the rows, and the summary's counts: gathered as each row is written.
    const tally = new ReportTally();
    reached.tally = tally;
    // An input read once has no count yet: its rows so far, stretched by the share of its bytes read.
    const total = scanned.some((job) => job.once)
      ? () => expectedRows(scanned)
      : scanned.reduce((n, job) => n + job.rows, 0);
    const progress = session.progress(stderr, total, options.progress);
    // What every row's plan shares: the run's steps and limits, and what the run learns about the service.
    const rowJournal = journal && new RowJournal(journal);
    const deps: RowDeps | undefined = client && {
      client,
      journal: rowJournal,
      ctx: {
        steps: options.steps,
        compliancePath: options.compliancePath,
        retries: options.retries,
        maxWaitDays: options.maxWait,
        now: startedAt,
        knowledge: { gate: rowJournal?.gate() ?? 'unknown' },
        createUnmatched: options.createUnmatchedAccounts,
      },
      taken: new Set(),
      created: new Set(),
      turns: new PayerTurns(),
      inDoubt: new Map(),
      ...(scanned.some((job) => job.kind === 'bank-details') ? { claims: new Map<string, string>() } : {}),
    };
    const onWriteFailure = session.onWriteFailure;

    try {
      const payerResults = scanned.some((job) => job.kind === 'bank-details')
        ? new Map<string, Promise<PayerResult>>()
        : undefined;
      // The failed and pending files of every input: one workbook per .xlsx input and kind, and no name taken twice
      // or taken from a file the run reads.
      const rowFileSet = new RowFileSet(scanned.map((job) => job.input.file.path));
      try {
        // Reopen each input for pass 2: pass 1's streams are spent, and nothing was kept in memory.
        for (const job of scanned) {
          const reopened = job.once ? job.input : await openInput(job.input.file, reading);
          const rowFiles = new RowFiles(outputs.dir, reopened.file, reopened.header, reopened.dialect, rowFileSet);
          try {
            await sendRows(
              { ...job, input: reopened },
              {
                options,
                client,
                deps,
                logger,
                results: session.results,
                rowFiles,
                progress,
                tally,
                payerResults,
                signal: context.signal,
                today: startedAt,
                seen: duplicates,
                onWriteFailure,
              },
            );
          } finally {
            // A file that breaks partway still gets its failed and pending files closed and listed: they hold its rows.
            await rowFiles.close().catch(onWriteFailure);
            const written = rowFiles.written();
            for (const kind of ROW_FILE_KINDS) {
              const path = written[kind];
              if (path !== undefined && !outputs[kind].includes(path)) outputs[kind].push(path);
            }
          }
        }
      } finally {
        await rowFileSet.close().catch(onWriteFailure);
      }
    } finally {
      const gate = deps?.ctx.knowledge.gate;
      if (gate !== undefined && gate !== 'unknown') rowJournal?.rememberGate(gate);
      progress.stop();
      await session.closeResults();
    }

    const aborted = session.stopped('the rest of the rows were not checked');
    const counts = tally.outcomes();
    const summary: Summary = {
      runId,
      command,
      ...runSpan(startedAt),
      ...(baseUrl && !session.sandboxed ? { baseUrl } : {}),
      sandbox: session.sandboxed,
      inputs: scanned.map((j) => ({
        source: j.input.file.name,
        path: j.input.file.path,
        format: j.input.file.format,
        rows: j.rows,
      })),
      rows: rowTotals(counts),
      requests: requestCounts(client),
      ...(aborted ? { aborted: { reason: aborted.reason, message: aborted.message } } : {}),
      warnings,
      exitCode: exitCodeFor(counts, aborted !== undefined),
      outputs,
    };
    logger.info(
      { rows: summary.rows, requests: summary.requests, exitCode: summary.exitCode, aborted },
      'run finished',
    );
    reached.summaryWritten = true; // written now, or its failure is the error the run stops with
    await session.writeSummary(summary);
    // The results are on disk already: a report that cannot be written is a warning, not a failed run.
    const series = client ? session.timeline.series() : undefined;
    await writeReport(summary, tally, series, rerunOptions(command, options, cwd)).catch((error: unknown) => {
      stderr?.write(`warning: ${outputs.report} not written: ${(error as Error).message}\n`);
    });
    stderr?.write(formatSummary(summary));
    return summary;
  }
}

function requestCounts(client: ApiClient | undefined): Summary['requests'] {
  if (!client) return { total: 0, byStatus: {}, retries: 0 };
  const { requests, byStatus, retries } = client.stats();
  return { total: requests, byStatus, retries };
}

/** The summary's row counts: each outcome and their total. */
function rowTotals(counts: Record<Outcome, number>): Summary['rows'] {
  return { total: Object.values(counts).reduce((a, b) => a + b, 0), ...counts };
}
