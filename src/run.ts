import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AbortedError } from './errors.js';
import type { ApiClient } from './execute/ApiClient.js';
import type { RowDeps } from './execute/executeRow.js';
import type { Backoff } from './execute/retryPolicy.js';
import { StateLock, journalDir, openJournal } from './journal/stateDir.js';
import { RowJournal } from './journal/RowJournal.js';
import { openInput, readingOptions } from './input/openInput.js';
import { createLogger } from './log.js';
import { resolveRunOptions, type RunOptionsInput } from './options.js';
import { CsvFileWriter } from './output/CsvFileWriter.js';
import { ROW_FILE_KINDS, RowFiles, RowFileSet } from './output/RowFiles.js';
import { Progress } from './output/Progress.js';
import { RESULT_COLUMNS, exitCodeFor, formatSummary, type Summary } from './output/results.js';
import { DuplicateIds } from './pipeline/classifyRows.js';
import { resolveConnection } from './pipeline/resolveConnection.js';
import { scanInputs } from './pipeline/scanInputs.js';
import { sendRows } from './pipeline/sendRows.js';
import { ReportTally, RequestTimeline } from './report/collectReportData.js';
import { writeReport } from './report/buildReport.js';
import { startSandbox } from './sandbox/index.js';
import type { PayerResult } from './types.js';

/** Where `run()` writes and what it listens to; all optional, so a library caller passes nothing. */
export interface RunContext {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Human summary, warnings and the progress bar. */
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborting it stops reading, lets calls in flight finish and writes everything (exit 3). */
  signal?: AbortSignal;
  /** Use this run id instead of a new one (the inbox names the output folder after it before the run starts). */
  runId?: string;
  /** Retry delays (default 0.5 s, doubling, at most 30 s); tests against a flaky sandbox shorten them. */
  backoff?: Backoff;
}

export type RunInput = RunOptionsInput & { command?: 'run' | 'validate' };

/**
 * The whole job: check every row of every input, then send the valid ones and write results,
 * failed rows and a summary. Needs no process globals; returns the summary. Throws only what stops a run
 * before it starts (ConfigError, InputError: exit 2); everything that happens to a row is data on that row.
 */
export async function run(input: RunInput, context: RunContext = {}): Promise<Summary> {
  const env = context.env ?? {};
  const cwd = context.cwd ?? process.cwd();
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

  // One run at a time per state dir, taken before anything else so a second run is turned away at once. Not for
  // validate (it sends nothing) nor a sandbox rehearsal (its API lives only as long as the run: no journal).
  const stateDir = resolve(cwd, options.stateDir);
  const persistent = command === 'run' && !options.sandbox;
  if (persistent) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const lock = persistent ? StateLock.acquire(stateDir, runId) : undefined;
  const cleanup: Array<() => void | Promise<void>> = [() => lock?.release()];
  try {
    return await runHoldingLock();
  } finally {
    for (const step of cleanup.reverse()) await step();
  }

  async function runHoldingLock(): Promise<Summary> {
    // Pass 1: read and check everything before the first call, so a file that cannot be used stops the run
    // with nothing sent, and the progress bar knows its total.
    const warnings: string[] = [];
    // --map and --date-format apply to every input; `validate` shows first how each file's columns were read.
    const reading = readingOptions(options, cwd);
    const announce = command === 'validate' ? (text: string) => stderr?.write(text) : undefined;
    const duplicates = new DuplicateIds();
    const scanned = await scanInputs(
      paths,
      options,
      warnings,
      startedAt,
      { reading, announce, signal: context.signal },
      duplicates,
    );
    duplicates.freeze(); // pass 2 needs only the repeats pass 1 found, not every id
    if (context.signal?.aborted) throw new AbortedError('interrupted while checking the input: nothing was sent');
    for (const warning of warnings) stderr?.write(`warning: ${warning}\n`);

    const sandbox =
      command === 'run' && options.sandbox ? await startSandbox({ port: 0, apiKey: connection!.apiKey }) : undefined;
    if (sandbox) cleanup.push(() => sandbox.close());
    const baseUrl = sandbox?.url ?? connection?.baseUrl;

    const outDir = resolve(cwd, options.out ?? join('payer-onboard-results', runId));
    mkdirSync(outDir, { recursive: true, mode: 0o700 });
    const outputs = {
      dir: outDir,
      results: join(outDir, 'results.csv'),
      failed: [] as string[],
      pending: [] as string[],
      summary: join(outDir, 'summary.json'),
      report: join(outDir, 'report.html'),
      log: resolve(cwd, options.logFile ?? join(outDir, 'run.log')),
    };
    const { logger, close: closeLog } = createLogger(outputs.log, options.logLevel);
    logger.info(
      { runId, command, inputs: scanned.map((j) => j.input.file.name), baseUrl, sandbox: Boolean(sandbox) },
      'run started',
    );

    const journalPath = persistent ? join(journalDir(stateDir, baseUrl!, connection!.apiKey), 'journal.jsonl') : '';
    const journal = persistent ? await openJournal(journalPath, warnings, logger, stderr) : undefined;
    if (journal) cleanup.push(() => journal.close());
    for (const warning of warnings) logger.warn(warning);

    // Attempts per second for report.html's chart: one counter per second, fed by the client's onAttempt.
    const timeline = new RequestTimeline();
    // got is loaded only to send: validate and --dry-run keep its memory (a million rows must fit in 200 MB).
    const client =
      command === 'run'
        ? (await import('./execute/createApiClient.js')).createApiClient({
            baseUrl: baseUrl!,
            compliancePath: options.compliancePath,
            apiKey: connection!.apiKey,
            timeoutMs: options.timeout * 1000,
            retries: options.retries,
            // --concurrency counts payers (two round trips per row: compliance, then payment details and agreement
            // together); sendRows holds that many rows open, so twice as many requests can be in flight.
            concurrency: requestsInFlight(options.concurrency),
            rate: options.rate,
            maxConsecutiveFailures: options.maxConsecutiveFailures,
            ...(context.backoff ? { backoff: context.backoff } : {}),
            logger,
            onAttempt: (info) => timeline.record(info),
          })
        : undefined;

    // What report.html shows of the rows, and the summary's counts: gathered as each row is written.
    const tally = new ReportTally();
    const total = scanned.reduce((n, job) => n + job.rows, 0);
    const progress = new Progress(stderr ?? nullStream, total, options.progress ?? Boolean(stderr?.isTTY));
    const results = new CsvFileWriter(outputs.results, RESULT_COLUMNS);
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
      },
      taken: new Set(),
      ...(scanned.some((job) => job.kind === 'bank-details') ? { claims: new Map<string, string>() } : {}),
    };
    if (journal && client) {
      journal.onFailure = (error) =>
        client.stop(
          'write-failed',
          `stopped: the journal ${journalPath} cannot be written (${error.message}); nothing more is sent. ` +
            'Free the space and run the same file again: what was sent is read back from the service',
        );
    }
    // An output that cannot be written (disk full, permission) stops the run: results are its record of what was sent.
    let writeFailure: string | undefined;
    const onWriteFailure = (error: Error) => {
      writeFailure ??= `stopped: the results in ${outDir} cannot be written (${error.message})`;
      client?.stop('write-failed', writeFailure);
    };
    const onAbort = () => client?.stop('interrupted');
    context.signal?.addEventListener('abort', onAbort, { once: true });
    if (context.signal?.aborted) onAbort(); // a signal during pass 1 fires no event now

    try {
      const payerResults = scanned.some((job) => job.kind === 'bank-details')
        ? new Map<string, Promise<PayerResult>>()
        : undefined;
      // The failed and pending files of every input: one workbook per .xlsx input and kind, and no name taken twice
      // or taken from a file the run reads.
      const rowFileSet = new RowFileSet(scanned.map((job) => job.input.file.path));
      // Reopen each input for pass 2: pass 1's streams are spent, and nothing was kept in memory.
      for (const job of scanned) {
        const reopened = await openInput(job.input.file, reading);
        const rowFiles = new RowFiles(outDir, reopened.file, reopened.header, reopened.dialect, rowFileSet);
        await sendRows(
          { ...job, input: reopened },
          {
            options,
            client,
            deps,
            logger,
            results,
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
        await rowFiles.close().catch(onWriteFailure);
        const written = rowFiles.written();
        for (const kind of ROW_FILE_KINDS) {
          const path = written[kind];
          if (path !== undefined && !outputs[kind].includes(path)) outputs[kind].push(path);
        }
      }
      await rowFileSet.close().catch(onWriteFailure);
    } finally {
      const gate = deps?.ctx.knowledge.gate;
      if (gate !== undefined && gate !== 'unknown') rowJournal?.rememberGate(gate);
      context.signal?.removeEventListener('abort', onAbort);
      progress.stop();
      await results.close().catch(onWriteFailure);
    }

    const stopped = client?.stopped();
    const aborted = stopped
      ? { reason: stopped.reason, message: stopped.message }
      : writeFailure
        ? { reason: 'write-failed', message: writeFailure }
        : context.signal?.aborted
          ? { reason: 'interrupted', message: 'interrupted: the rest of the rows were not checked' }
          : undefined;
    const endedAt = new Date();
    const counts = tally.outcomes();
    const summary: Summary = {
      runId,
      command,
      startedAt: startedAt.toISOString(),
      endedAt: endedAt.toISOString(),
      durationMs: endedAt.getTime() - startedAt.getTime(),
      ...(baseUrl && !sandbox ? { baseUrl } : {}),
      sandbox: Boolean(sandbox),
      inputs: scanned.map((j) => ({
        source: j.input.file.name,
        path: j.input.file.path,
        format: j.input.file.format,
        rows: j.rows,
      })),
      rows: { total: Object.values(counts).reduce((a, b) => a + b, 0), ...counts },
      requests: requestCounts(client),
      ...(aborted ? { aborted } : {}),
      warnings,
      exitCode: exitCodeFor(counts, aborted !== undefined),
      outputs,
    };
    logger.info(
      { rows: summary.rows, requests: summary.requests, exitCode: summary.exitCode, aborted },
      'run finished',
    );
    await closeLog();
    try {
      writeFileSync(outputs.summary, `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
      chmodSync(outputs.summary, 0o600);
    } catch (error) {
      throw new AbortedError(`${outputs.summary} cannot be written (${(error as Error).message})`, { cause: error });
    }
    // The results are on disk already: a report that cannot be written is a warning, not a failed run.
    await writeReport(summary, tally, client ? timeline.series() : undefined).catch((error: unknown) => {
      stderr?.write(`warning: ${outputs.report} not written: ${(error as Error).message}\n`);
    });
    stderr?.write(formatSummary(summary));
    return summary;
  }
}

const nullStream = { write: () => true } as unknown as NodeJS.WritableStream;

function requestCounts(client: ApiClient | undefined): Summary['requests'] {
  if (!client) return { total: 0, byStatus: {}, retries: 0 };
  const { requests, byStatus, retries } = client.stats();
  return { total: requests, byStatus, retries };
}

export function makeRunId(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Requests in flight for `concurrency` payers: each has its payment details and agreement out together (a JSONL row with several payment details has more, and waits for room). */
export function requestsInFlight(concurrency: number): number {
  return 2 * concurrency;
}
