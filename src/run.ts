import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { AbortedError, ConfigError, InputError, PayerOnboardError } from './errors.js';
import { createApiClient, type ApiClient } from './execute/createApiClient.js';
import { processBankRow, processPayer, type PayerCalls } from './execute/processPayer.js';
import { Journal } from './journal/Journal.js';
import { StateLock } from './journal/StateLock.js';
import { journalDir } from './journal/stateDir.js';
import { withJournal } from './journal/withJournal.js';
import type { OpenedInput, ReadingOptions } from './input/InputFile.js';
import { openInput } from './input/openInput.js';
import { bankSheetOf, readingOptions } from './input/spreadsheetInputs.js';
import { createLogger } from './log/createLogger.js';
import { resolveRunOptions, type RunOptions, type RunOptionsInput } from './options.js';
import { CsvFileWriter } from './output/CsvFileWriter.js';
import { FailedRowsWriter } from './output/FailedRowsWriter.js';
import { FailedWorkbooks } from './output/XlsxFailedWriter.js';
import { OrderedSink } from './output/OrderedSink.js';
import { Progress } from './output/Progress.js';
import { RESULT_COLUMNS, completedSteps, formatErrors, resultRecord, type FinishedRow } from './output/resultRecord.js';
import { exitCodeFor, formatSummary, type Summary } from './output/Summary.js';
import { checkHeader, classifyRows, describeMapping, formatIssues, type ClassifiedRow, type RowKind } from './pipeline/classifyRows.js';
import { checkBaseUrl } from './pipeline/checkBaseUrl.js';
import { RequestTimeline } from './report/RequestTimeline.js';
import { writeReport } from './report/writeReport.js';
import { startSandbox } from './sandbox/index.js';
import { STEPS, type Outcome, type PayerResult, type Step } from './types.js';

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
}

export type RunInput = RunOptionsInput & { command?: 'run' | 'validate' };

interface Job {
  kind: RowKind;
  input: OpenedInput;
  rows: number;
}

/**
 * The whole job (design.md §1): check every row of every input, then send the valid ones and write results,
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
    const scanned = await scan(paths, options, warnings, startedAt, { reading, announce, signal: context.signal });
    if (context.signal?.aborted) throw new AbortedError('interrupted while checking the input: nothing was sent');
    for (const warning of warnings) stderr?.write(`warning: ${warning}\n`);

    const sandbox = command === 'run' && options.sandbox ? await startSandbox({ port: 0, apiKey: connection!.apiKey }) : undefined;
    if (sandbox) cleanup.push(() => sandbox.close());
    const baseUrl = sandbox?.url ?? connection?.baseUrl;

    const outDir = resolve(cwd, options.out ?? join('payer-onboard-results', runId));
    mkdirSync(outDir, { recursive: true, mode: 0o700 });
    const outputs = {
      dir: outDir,
      results: join(outDir, 'results.csv'),
      failed: [] as string[],
      summary: join(outDir, 'summary.json'),
      report: join(outDir, 'report.html'),
      log: resolve(cwd, options.logFile ?? join(outDir, 'run.log')),
    };
    const { logger, close: closeLog } = createLogger(outputs.log, options.logLevel);
    logger.info({ runId, command, inputs: scanned.map((j) => j.input.file.name), baseUrl, sandbox: Boolean(sandbox) }, 'run started');

    const journal = persistent ? await openJournal(join(journalDir(stateDir, baseUrl!), 'journal.jsonl'), warnings, logger, stderr) : undefined;
    if (journal) cleanup.push(() => journal.close());
    for (const warning of warnings) logger.warn(warning);

    // Attempts per second for report.html's chart: one counter per second, fed by the client's onAttempt.
    const timeline = new RequestTimeline();
    const client =
      command === 'run'
        ? createApiClient({
            baseUrl: baseUrl!,
            apiKey: connection!.apiKey,
            timeoutMs: options.timeout * 1000,
            retries: options.retries,
            concurrency: options.concurrency,
            rate: options.rate,
            maxConsecutiveFailures: options.maxConsecutiveFailures,
            logger,
            onAttempt: (info) => timeline.record(info),
          })
        : undefined;

    const counts: Record<Outcome, number> = { ok: 0, invalid: 0, failed: 0, skipped: 0 };
    const total = scanned.reduce((n, job) => n + job.rows, 0);
    const progress = new Progress(stderr ?? nullStream, total, options.progress ?? Boolean(stderr?.isTTY));
    const results = new CsvFileWriter(outputs.results, RESULT_COLUMNS);
    const calls = client && journal ? withJournal(client, journal) : client;
    const onAbort = () => client?.stop('interrupted');
    context.signal?.addEventListener('abort', onAbort, { once: true });
    if (context.signal?.aborted) onAbort(); // a signal during pass 1 fires no event now

    try {
      const payerResults = scanned.some((job) => job.kind === 'bank-details') ? new Map<string, Promise<PayerResult>>() : undefined;
      // One failed workbook per .xlsx input, holding a sheet for each of its sheets read (payers, Bank details).
      const failedBooks = new FailedWorkbooks();
      // The duplicate-id map is rebuilt in pass 2 so both passes judge each row the same way.
      const seen = new Map<string, string>();
      // Reopen each input for pass 2: pass 1's streams are spent, and nothing was kept in memory.
      for (const job of scanned) {
        const reopened = await openInput(job.input.file, reading);
        const failed = new FailedRowsWriter(outDir, reopened.file, reopened.header, reopened.dialect, failedBooks);
        await sendRows({ ...job, input: reopened }, { options, client, calls, logger, results, failed, progress, counts, payerResults, signal: context.signal, today: startedAt, seen });
        await failed.close();
        if (failed.written && !outputs.failed.includes(failed.path)) outputs.failed.push(failed.path);
      }
      await failedBooks.close();
    } finally {
      context.signal?.removeEventListener('abort', onAbort);
      progress.stop();
      await results.close();
    }

    const stopped = client?.stopped();
    const aborted = stopped
      ? { reason: stopped.reason, message: stopped.message }
      : context.signal?.aborted
        ? { reason: 'interrupted', message: 'interrupted: the rest of the rows were not checked' }
        : undefined;
    const endedAt = new Date();
    const summary: Summary = {
      runId,
      command,
      startedAt: startedAt.toISOString(),
      endedAt: endedAt.toISOString(),
      durationMs: endedAt.getTime() - startedAt.getTime(),
      ...(baseUrl && !sandbox ? { baseUrl } : {}),
      sandbox: Boolean(sandbox),
      inputs: scanned.map((j) => ({ source: j.input.file.name, path: j.input.file.path, format: j.input.file.format, rows: j.rows })),
      rows: { total: counts.ok + counts.invalid + counts.failed + counts.skipped, ...counts },
      requests: requestCounts(client),
      ...(aborted ? { aborted } : {}),
      warnings,
      exitCode: exitCodeFor(counts, aborted !== undefined),
      outputs,
    };
    logger.info({ rows: summary.rows, requests: summary.requests, exitCode: summary.exitCode, aborted }, 'run finished');
    await closeLog();
    writeFileSync(outputs.summary, `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
    chmodSync(outputs.summary, 0o600);
    // The results are on disk already: a report that cannot be written is a warning, not a failed run.
    await writeReport(summary, client ? timeline.series() : undefined).catch((error: unknown) => {
      stderr?.write(`warning: ${outputs.report} not written: ${(error as Error).message}\n`);
    });
    stderr?.write(formatSummary(summary));
    return summary;
  }
}

/** Opens the journal; lines a crash left half-written are skipped with a warning, never fatal. */
async function openJournal(path: string, warnings: string[], logger: Logger, stderr: RunContext['stderr']): Promise<Journal> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { journal, load } = await Journal.open(path);
  logger.info({ journal: path, ...load }, 'journal loaded');
  if (load.corrupt > 0) {
    const warning = `journal ${path}: skipped ${load.corrupt} unreadable line${load.corrupt === 1 ? '' : 's'} (a crash mid-write); those calls are treated as in doubt and sent again with the same Idempotency-Key`;
    warnings.push(warning);
    stderr?.write(`warning: ${warning}\n`);
  }
  return journal;
}

const nullStream = { write: () => true } as unknown as NodeJS.WritableStream;

interface SendContext {
  options: RunOptions;
  client: ApiClient | undefined;
  /** The client seen through the journal (or the client itself when there is none). */
  calls: PayerCalls | undefined;
  logger: Logger;
  results: CsvFileWriter;
  failed: FailedRowsWriter;
  progress: Progress;
  counts: Record<Outcome, number>;
  payerResults: Map<string, Promise<PayerResult>> | undefined;
  signal: AbortSignal | undefined;
  today: Date;
  seen: Map<string, string>;
}

/**
 * Pass 2 for one input: rows start as the reader reaches them, at most `window` at once, and finish into an
 * ordered sink that writes results and failed rows in input order. The window is the backpressure: while it
 * is full the reader waits, so neither the queue nor the reorder buffer grows with the file.
 */
async function sendRows(job: Job, ctx: SendContext): Promise<void> {
  const { input } = job;
  const source = input.file.name;
  const window = Math.max(16, ctx.options.concurrency * 4);
  const sink = new OrderedSink<{ row: ClassifiedRow; finished: FinishedRow }>(async ({ row, finished }) => {
    ctx.counts[finished.result.outcome]++;
    ctx.progress.add(finished.result.outcome);
    await ctx.results.write(resultRecord(finished));
    if (finished.result.outcome !== 'ok') {
      // What the row already carried stays done: dropping it would make a later run without the journal resend it.
      const done = mergeSteps(row.result.completedSteps ?? [], completedSteps(finished.result));
      await ctx.failed.write({ original: row.record.original, error: formatErrors(finished.result), completedSteps: done });
    }
    logRow(ctx.logger, finished);
  });
  const steps = ctx.options.steps;

  for await (const row of classifyRows(input, job.kind, { defaultAgreementCompleted: ctx.options.completeAgreement, seen: ctx.seen, today: ctx.today })) {
    // Room for this row: rows in flight and rows finished but not yet written both count, for every kind of row
    // (validate reads far faster than it writes; without this its queue of writes grew with the file).
    if (sink.unwritten > window) await sink.whenUnwrittenAtMost(window).catch(() => undefined);
    if (sink.error) {
      // Results can no longer be written (disk full): stop sending, let calls in flight finish, then report it.
      ctx.client?.stop('interrupted', `stopped: results cannot be written (${sink.error.message})`);
      break;
    }
    const seq = sink.reserve();
    const base = { source, line: row.record.line, ...(row.result.clientUserId ? { clientUserId: row.result.clientUserId } : {}) };
    if (!row.result.ok) {
      const invalid = invalidResult(row.result.issues.length ? formatIssues(row.result.issues) : ['row is invalid']);
      // Its bank rows must fail with it, not go out alone and meet a 404 (processBankRow). A repeated id keeps the first.
      const id = row.result.clientUserId;
      if (job.kind === 'payers' && id !== undefined && !ctx.payerResults?.has(id)) ctx.payerResults?.set(id, Promise.resolve(invalid));
      sink.complete(seq, { row, finished: { ...base, result: invalid } });
      continue;
    }
    if (!ctx.client) {
      // validate / --dry-run: a valid row is "ok" and nothing is sent; interrupted, the rest is "skipped".
      const result: PayerResult = ctx.signal?.aborted ? skippedResult([]) : { outcome: 'ok', paymentDetailIds: [], steps: {}, errors: [] };
      sink.complete(seq, { row, finished: { ...base, result } });
      continue;
    }
    if (ctx.client.stopped() || ctx.signal?.aborted) {
      sink.complete(seq, { row, finished: { ...base, result: skippedResult(steps) } });
      continue;
    }
    const client = ctx.calls!;
    const valid = row.result;
    let work: Promise<PayerResult>;
    if ('paymentDetail' in valid) {
      work = processBankRow(client, valid, ctx.payerResults?.get(valid.clientUserId), { steps });
    } else {
      work = processPayer(client, valid, { steps });
      // Bank rows need only the payer's outcome and compliance error: keep that, not links, for every payer.
      ctx.payerResults?.set(valid.clientUserId, work.then(slim, () => slim(undefined)));
    }
    work
      .catch((error: unknown): PayerResult => {
        // processPayer turns every call failure into data; anything here is a bug, and still only this row's.
        ctx.logger.error({ row: `${source}:${row.record.line}`, err: { message: (error as Error).message } }, 'row failed unexpectedly');
        return { outcome: 'failed', paymentDetailIds: [], steps: {}, errors: [`internal error: ${(error as Error).message}`] };
      })
      .then((result) => {
        sink.complete(seq, { row, finished: { ...base, result } });
      });
  }
  await sink.whenUnwrittenAtMost(0).catch(() => undefined);
  await sink.flush().catch((error: unknown) => {
    throw new AbortedError(`results cannot be written: ${(error as Error).message}`, { cause: error });
  });
}

/** What a bank row needs to know of its payer (processBankRow): the outcome and the compliance step. */
function slim(result: PayerResult | undefined): PayerResult {
  if (result === undefined) return { outcome: 'failed', paymentDetailIds: [], steps: { compliance: 'failed' }, errors: ['compliance: internal error'] };
  const compliance = result.steps.compliance;
  return {
    outcome: result.outcome,
    paymentDetailIds: [],
    steps: compliance === undefined ? {} : { compliance },
    errors: result.errors.filter((e) => e.startsWith('compliance:')),
  };
}

/** `compliance;payment-details` from two lists of steps, in call order. */
function mergeSteps(carried: readonly Step[], done: string): string {
  const all = new Set<string>([...carried, ...done.split(';').filter(Boolean)]);
  return STEPS.filter((step) => all.has(step)).join(';');
}

function requestCounts(client: ApiClient | undefined): Summary['requests'] {
  if (!client) return { total: 0, byStatus: {}, retries: 0 };
  const { requests, byStatus, retries } = client.stats();
  return { total: requests, byStatus, retries };
}

function invalidResult(errors: string[]): PayerResult {
  return { outcome: 'invalid', paymentDetailIds: [], steps: {}, errors };
}

function skippedResult(steps: Step[]): PayerResult {
  return { outcome: 'skipped', paymentDetailIds: [], steps: Object.fromEntries(steps.map((s) => [s, 'skipped'])), errors: ['not attempted: the run was stopped'] };
}

function logRow(logger: Logger, row: FinishedRow): void {
  const fields = { row: `${row.source}:${row.line}`, clientUserId: row.clientUserId, outcome: row.result.outcome, steps: row.result.steps };
  if (row.result.outcome === 'ok') logger.debug(fields, 'row done');
  else logger.info({ ...fields, error: formatErrors(row.result) }, 'row not ok');
}

/** Pass 1: opens and reads every input once, checking headers and every row; throws InputError for an unusable file. */
async function scan(
  paths: { inputs: string[]; bankDetails: string | undefined },
  options: RunOptions,
  warnings: string[],
  today: Date,
  read: { reading: ReadingOptions; announce: ((text: string) => void) | undefined; signal?: AbortSignal | undefined },
): Promise<Job[]> {
  const jobs: Job[] = [];
  const seen = new Map<string, string>();
  // The third item is an xlsx sheet found beside the payers (`Bank details`), read after every payer input.
  const all: Array<[string, RowKind, string?]> = [...paths.inputs.map((p): [string, RowKind] => [p, 'payers'])];
  if (paths.bankDetails) all.push([paths.bankDetails, 'bank-details']);
  const names = new Set<string>();
  for (const [path, kind, bankSheet] of all) {
    const input = await openInput(path, { ...read.reading, sheet: bankSheet ?? (kind === 'payers' ? options.sheet : undefined) });
    if (names.has(input.file.name)) {
      throw new InputError(input.file.name, 'is given twice (or two inputs share this file name): their results and failed files would collide');
    }
    names.add(input.file.name);
    read.announce?.(describeMapping(input, kind));
    warnings.push(...checkHeader(input, kind));
    const besides = kind === 'payers' ? bankSheetOf(input) : undefined;
    if (besides !== undefined) all.push([path, 'bank-details', besides]);
    let rows = 0;
    for await (const _ of classifyRows(input, kind, { defaultAgreementCompleted: options.completeAgreement, seen, today })) {
      rows++;
      // Interrupted while checking: nothing was sent yet, so there is nothing to drain or write.
      if ((rows & 1023) === 0 && read.signal?.aborted) throw new AbortedError('interrupted while checking the input: nothing was sent');
    }
    warnings.push(...(input.warnings ?? []));
    // A workbook's bank sheet may be empty, and so may its payer sheet when only bank rows are left to fix.
    if (rows === 0 && bankSheet !== undefined) continue;
    if (rows === 0 && besides === undefined) throw new InputError(input.file.name, 'has a header but no rows');
    jobs.push({ kind, input, rows });
  }
  return jobs;
}

function resolveConnection(options: RunOptions, env: NodeJS.ProcessEnv, cwd: string): { baseUrl: string; apiKey: string } {
  if (options.sandbox) {
    // A rehearsal: the in-process sandbox gets a fresh key, so no real key is ever needed or sent.
    return { baseUrl: '', apiKey: `sandbox-${randomBytes(12).toString('hex')}` };
  }
  const problems: string[] = [];
  if (!options.baseUrl) problems.push('--base-url: required (or PAYER_API_BASE_URL), unless --sandbox');
  let apiKey = options.apiKey;
  if (apiKey === undefined && options.apiKeyFile !== undefined) {
    try {
      apiKey = readFileSync(resolve(cwd, options.apiKeyFile), 'utf8').trim();
    } catch (error) {
      problems.push(`--api-key-file: cannot read ${options.apiKeyFile} (${(error as NodeJS.ErrnoException).code})`);
    }
    if (apiKey === '') problems.push(`--api-key-file: ${options.apiKeyFile} is empty`);
  }
  apiKey ??= env.PAYER_API_KEY || undefined;
  if (apiKey === undefined && !problems.some((p) => p.startsWith('--api-key-file'))) {
    problems.push('API key: set PAYER_API_KEY or give --api-key-file FILE (or use --sandbox / --dry-run)');
  }
  if (options.baseUrl) {
    const problem = checkBaseUrl(options.baseUrl, options.allowHttp);
    if (problem) problems.push(`--base-url: ${problem}`);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return { baseUrl: options.baseUrl!, apiKey: apiKey! };
}

export function makeRunId(at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export { PayerOnboardError };
