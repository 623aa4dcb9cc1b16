import type { Readers } from '../core/advice.js';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { ApiClient } from '../execute/ApiClient.js';
import { executeRow, type RowDeps } from '../execute/executeRow.js';
import { bankWork, payerWork } from '../plan/rowState.js';
import type { RunOptions } from '../options/resolve.js';
import type { CsvFileWriter } from '../output/CsvFileWriter.js';
import type { RowFiles } from '../output/RowFiles.js';
import {
  OrderedSink,
  doneSteps,
  formatError,
  formatErrors,
  resultRecord,
  type FinishedRow,
} from '../output/results.js';
import { NOT_ATTEMPTED } from '../plan/finishRow.js';
import type { Progress } from '../output/Progress.js';
import { formatCompletedSteps } from '../validate/controls.js';
import {
  STEPS,
  type PayerResult,
  type RowError,
  type Step,
  type ValidBankRow,
  type ValidPayerRow,
} from '../core/types.js';
import { classifyRows, type ClassifiedRow, type DuplicateIds } from './classifyRows.js';
import type { ReportTally } from '../report/collectReportData.js';
import type { Job } from './scanInputs.js';
import { logRoom } from './log.js';

export interface SendContext {
  options: RunOptions;
  client: ApiClient | undefined;
  /** What a row needs to be carried out: the client, the journal, the run's plan context. Undefined for validate. */
  deps: RowDeps | undefined;
  logger: Logger;
  results: CsvFileWriter;
  /** The input's failed and pending files: every row not ok goes to one of them, by its outcome. */
  rowFiles: RowFiles;
  progress: Progress;
  /** Every finished row is counted here, in the order written (the summary's counts and the report's rows). */
  tally: ReportTally;
  payerResults: Map<string, Promise<PayerResult>> | undefined;
  signal: AbortSignal | undefined;
  today: Date;
  seen: DuplicateIds;
  /** Who reads the rows' messages (a terminal when absent). */
  readers: Readers | undefined;
  /** The ids `--only` names that a row of the inputs has (as sameId compares them), to tell the others at the end. */
  onlyMatched: Set<string> | undefined;
  /** A result or row file could not be written: the run stops sending and ends as aborted. */
  onWriteFailure: (error: Error) => void;
}

/** A row on its way to the ordered sink, with what it ended as. */
interface SinkItem {
  row: ClassifiedRow;
  finished: FinishedRow;
}

/** Skipped rows get one log line between them: a stopped run of 100,000 rows would otherwise log a line each. */
interface SkippedRows {
  rows: number;
  first: string;
  last: string;
}

/** What one input's rows share while they are out: its job, the run's context, the sink and the rows' slots. */
interface InputSend {
  job: Job;
  ctx: SendContext;
  sink: OrderedSink<SinkItem>;
  rowSlots: LimitFunction;
  /** A trial run's choice of rows (`--limit`, `--only`): which data row of the input this is, and the ids named. */
  trial: { rows: number; only: ReadonlySet<string> | undefined };
}

/**
 * Pass 2 for one input: rows start as the reader reaches them, at most `window` at once, and finish into an
 * ordered sink that writes results and failed rows in input order. The window is the backpressure: while it
 * is full the reader waits, so neither the queue nor the reorder buffer grows with the file.
 * `--concurrency` rows call the API at once (the client caps requests at twice that); the rest of the window
 * waits its turn already read and checked, so a finished row is replaced without waiting on the reader.
 */
export async function sendRows(job: Job, ctx: SendContext): Promise<void> {
  const window = readAhead(ctx.options.concurrency);
  const skipped: SkippedRows = { rows: 0, first: '', last: '' };
  const sink = new OrderedSink<SinkItem>((item) => writeRow(ctx, skipped, item));
  const only = ctx.options.only && new Set(ctx.options.only.map(sameId));
  const send: InputSend = { job, ctx, sink, rowSlots: pLimit(ctx.options.concurrency), trial: { rows: 0, only } };

  // A file that breaks partway ends the loop with its error: the rows already taken are still finished and written
  // first, so that the results file holds every row the summary counts.
  try {
    for await (const row of classifyRows(job.input, job.kind, {
      defaultAgreementCompleted: ctx.options.agreementSignedElsewhere,
      seen: ctx.seen,
      today: ctx.today,
      readers: ctx.readers,
    })) {
      // Room for this row: rows in flight and rows finished but not yet written both count, for every kind of row
      // (validate reads far faster than it writes; without this its queue of writes grew with the file).
      if (sink.unwritten >= window) await sink.whenUnwrittenAtMost(window - 1).catch(() => undefined);
      // And room in the journal: its records must reach the store about as fast as the rows make them.
      await ctx.deps?.journal?.room();
      // And in the log: a line for each row not ok, which the file must take as fast as the rows come.
      const logged = logRoom(ctx.logger);
      if (logged !== undefined) await logged;
      if (sink.error) {
        // Results can no longer be written (disk full): stop sending, let calls in flight finish, then report it.
        ctx.onWriteFailure(sink.error);
        break;
      }
      startRow(send, row);
    }
  } finally {
    await sink.whenUnwrittenAtMost(0).catch(() => undefined);
    await sink.flush().catch(ctx.onWriteFailure);
  }
  if (skipped.rows > 0) {
    const why = ctx.client?.stopped()?.message ?? (ctx.signal?.aborted ? 'interrupted' : undefined);
    ctx.logger.info({ ...skipped, ...(why ? { why } : {}) }, 'rows skipped: the run stopped before they were done');
  }
}

/** A finished row, in input order: counted, its results line written, and its failed or pending line if not ok. */
async function writeRow(ctx: SendContext, skipped: SkippedRows, { row, finished }: SinkItem): Promise<void> {
  ctx.tally.add(finished);
  ctx.progress.add(finished.result.outcome);
  await ctx.results.write(resultRecord(finished));
  if (finished.result.outcome !== 'ok') {
    // What the row already carried stays done: dropping it would make a later run without the journal resend it.
    const steps = mergeSteps(row.result.completedSteps ?? [], doneSteps(finished.result));
    const digest = finished.result.complianceDigest ?? (row.result.ok ? undefined : row.result.complianceDigest);
    await ctx.rowFiles.write({
      outcome: finished.result.outcome,
      original: row.record.original,
      unnamed: row.record.unnamed,
      errors: finished.result.errors,
      // The row's first file and line go along, so they stay its name however often it is fed back.
      completedSteps: formatCompletedSteps({
        steps,
        ...(digest ? { complianceDigest: digest } : {}),
        origin: { source: finished.source, line: finished.line },
      }),
    });
  }
  if (finished.result.outcome === 'skipped') {
    const where = `${finished.source}:${finished.line}`;
    if (skipped.rows === 0) skipped.first = where;
    skipped.last = where;
    skipped.rows += 1;
  }
  logRow(ctx.logger, finished);
}

/** Takes the row's place in the sink and starts it: finished at once unless it is sent, else when its work ends. */
function startRow(send: InputSend, row: ClassifiedRow): void {
  const { job, ctx, sink } = send;
  const seq = sink.reserve();
  // A row of a failed or pending file is named by where it first came from; any other by its own file and line.
  const origin = row.result.origin;
  const source = origin?.source ?? job.input.file.name;
  const line = origin?.line ?? row.record.line;
  const clientUserId = row.result.clientUserId || undefined;
  const warnings = row.result.ok && 'warnings' in row.result ? row.result.warnings : undefined;
  // Each field written out, never spread from a base: on Node 20 a literal that spreads first stores what follows slowly.
  const finish = (result: PayerResult) => {
    // What the row lacks though the service took it leads its `error` cell, whatever became of its calls.
    // A copy: the payer's own result is also what its bank rows are given.
    const notes = warnings?.map((warning) => ({ ...warning, note: true }));
    const shown = notes === undefined ? result : { ...result, errors: [...notes, ...result.errors] };
    sink.complete(seq, { row, finished: { source, line, clientUserId, result: shown } });
  };
  const left = leftOutOfTrial(send, row);
  if (left !== undefined) {
    // Its bank rows wait for it too: sent alone, they would meet a payer that is not registered yet.
    const id = row.result.clientUserId;
    if (job.kind === 'payers' && id !== undefined && !ctx.payerResults?.has(id))
      ctx.payerResults?.set(id, Promise.resolve(left));
    finish(left);
    return;
  }
  if (!row.result.ok) {
    const invalid = invalidResult(row.result.issues.length ? row.result.issues : [{ message: 'row is invalid' }]);
    // Its bank rows must fail with it, not go out alone and meet a 404. A repeated id keeps the first.
    const id = row.result.clientUserId;
    if (job.kind === 'payers' && id !== undefined && !ctx.payerResults?.has(id))
      ctx.payerResults?.set(id, Promise.resolve(invalid));
    finish(invalid);
    return;
  }
  if (!ctx.client) {
    // validate / --dry-run: a valid row is "ok" and nothing is sent; interrupted, the rest is "skipped".
    finish(ctx.signal?.aborted ? skippedResult([]) : { outcome: 'ok', paymentDetailIds: [], steps: {}, errors: [] });
    return;
  }
  if (ctx.client.stopped() || ctx.signal?.aborted) {
    finish(skippedResult(ctx.options.steps));
    return;
  }
  sendRow(send, row.result, `${source}:${line}`)
    .catch((error: unknown) => unexpectedFailure(ctx, `${job.input.file.name}:${row.record.line}`, error))
    .then(finish);
}

/** A clientUserId as `--only` compares it: the same payer in any case and with surrounding spaces. */
export const sameId = (id: string): string => id.trim().toLowerCase();

/**
 * A trial run (`--limit N`: the first N data rows of each input; `--only IDS`: the rows of those payers) sends only
 * its rows: the others are `skipped`, with why, and go to the pending file for the next run.
 */
function leftOutOfTrial(send: InputSend, row: ClassifiedRow): PayerResult | undefined {
  const { limit } = send.ctx.options;
  const { trial } = send;
  trial.rows += 1;
  let why: string | undefined;
  if (limit !== undefined && trial.rows > limit)
    why = `not attempted: past the first ${limit} rows of the file (--limit ${limit}); a run without --limit sends it`;
  else if (trial.only !== undefined) {
    const id = sameId(row.result.clientUserId ?? '');
    if (trial.only.has(id)) send.ctx.onlyMatched?.add(id);
    else why = 'not attempted: not one of the payers --only names; a run without --only sends it';
  }
  if (why === undefined) return undefined;
  const steps = send.ctx.client ? send.ctx.options.steps : [];
  return { ...skippedResult(steps), errors: [{ message: why }] };
}

/** A valid row's work at the API; a payer's outcome is kept for its bank rows of the same run. */
function sendRow(send: InputSend, valid: ValidPayerRow | ValidBankRow, where: string): Promise<PayerResult> {
  const { ctx } = send;
  const deps = ctx.deps!;
  if ('paymentDetail' in valid) {
    // Its payer first, then a slot: a bank row never holds a slot while it waits (its payer may need one).
    const payer = ctx.payerResults?.get(valid.clientUserId);
    return Promise.resolve(payer).then(async (settled) => {
      const blocked = payerBlocks(settled);
      if (blocked !== undefined) return blocked;
      return inTurn(send, () => executeRow(bankWork(valid), deps, where, settled && statusOf(settled)));
    });
  }
  const work = inTurn(send, () => executeRow(payerWork(valid), deps, where));
  // Bank rows need only the payer's outcome, compliance error and statuses: keep that, not links, for every payer.
  ctx.payerResults?.set(
    valid.clientUserId,
    work.then(slim, () => slim(undefined)),
  );
  return work;
}

/** A row's turn at the API. Once the client stopped there is nothing to send, nor to note in the journal. */
function inTurn(send: InputSend, work: () => Promise<PayerResult>): Promise<PayerResult> {
  const { ctx } = send;
  return send.rowSlots(() => (ctx.client?.stopped() ? Promise.resolve(skippedResult(ctx.options.steps)) : work()));
}

/** executeRow turns every call failure into data; anything that reaches here is a bug, and still only this row's. */
function unexpectedFailure(ctx: SendContext, row: string, error: unknown): PayerResult {
  ctx.logger.error({ row, err: { message: (error as Error).message } }, 'row failed unexpectedly');
  return {
    outcome: 'failed',
    paymentDetailIds: [],
    steps: {},
    errors: [{ message: `internal error: ${(error as Error).message}` }],
  };
}

/**
 * Rows open at once (in flight, queued for a slot, or finished and waiting to be written in order). Large enough
 * that a call held for its whole timeout does not stall the others: at the real API's 20 requests/s (about 7
 * rows/s) 256 rows are over half a minute of work, and only a few hundred kilobytes.
 */
export function readAhead(concurrency: number): number {
  return Math.max(256, concurrency * 4);
}

/** What a bank row needs to know of its payer in the same run: the outcome, the compliance step and the statuses. */
function slim(result: PayerResult | undefined): PayerResult {
  if (result === undefined)
    return {
      outcome: 'failed',
      paymentDetailIds: [],
      steps: { compliance: 'failed' },
      errors: [{ step: 'compliance', message: 'internal error' }],
    };
  const compliance = result.steps.compliance;
  return {
    outcome: result.outcome,
    paymentDetailIds: [],
    steps: compliance === undefined ? {} : { compliance },
    errors: result.errors.filter((e) => e.step === 'compliance'),
    ...(result.complianceDigest ? { complianceDigest: result.complianceDigest } : {}),
    ...(result.kycStatus ? { kycStatus: result.kycStatus } : {}),
    ...(result.agreementStatus ? { agreementStatus: result.agreementStatus } : {}),
  };
}

function statusOf(payer: PayerResult): { kycStatus?: string; agreementStatus?: string } | undefined {
  if (payer.kycStatus === undefined && payer.agreementStatus === undefined) return undefined;
  return {
    ...(payer.kycStatus ? { kycStatus: payer.kycStatus } : {}),
    ...(payer.agreementStatus ? { agreementStatus: payer.agreementStatus } : {}),
  };
}

/** A bank row whose payer, in the same run, was not registered: it fails (or is skipped) with the payer. */
function payerBlocks(payer: PayerResult | undefined): PayerResult | undefined {
  if (payer === undefined) return undefined;
  const blocked = (outcome: 'failed' | 'skipped', why: string): PayerResult => ({
    outcome,
    paymentDetailIds: [],
    steps: { 'payment-details': outcome },
    errors: [{ step: 'payment-details', message: `not sent, ${why}` }],
  });
  if (payer.outcome === 'invalid') return blocked('failed', "the payer's row is invalid");
  // A payer registered before is still there for its accounts, whatever this run's compliance call did.
  if (payer.steps.compliance === 'failed' && payer.complianceDigest === undefined) {
    const cause = payer.errors.find((e) => e.step === 'compliance');
    return blocked(
      'failed',
      `the payer's compliance call failed${cause === undefined ? '' : ` (${formatError(cause)})`}`,
    );
  }
  if (payer.steps.compliance === 'skipped') return blocked('skipped', 'the payer was not registered (run stopped)');
  return undefined;
}

/** The steps of both lists, in call order. */
function mergeSteps(carried: readonly Step[], done: readonly Step[]): Step[] {
  const all = new Set<Step>([...carried, ...done]);
  return STEPS.filter((step) => all.has(step));
}

function invalidResult(errors: RowError[]): PayerResult {
  return { outcome: 'invalid', paymentDetailIds: [], steps: {}, errors };
}

function skippedResult(steps: Step[]): PayerResult {
  return {
    outcome: 'skipped',
    paymentDetailIds: [],
    steps: Object.fromEntries(steps.map((s) => [s, 'skipped'])),
    errors: [NOT_ATTEMPTED],
  };
}

function logRow(logger: Logger, row: FinishedRow): void {
  // Rows that end well (or skipped, counted at the end) are debug lines: built only when they are written.
  if ((row.result.outcome === 'ok' || row.result.outcome === 'skipped') && !logger.isLevelEnabled('debug')) return;
  const fields = {
    row: `${row.source}:${row.line}`,
    clientUserId: row.clientUserId,
    outcome: row.result.outcome,
    steps: row.result.steps,
  };
  if (row.result.outcome === 'ok') logger.debug(fields, 'row done');
  // Counted into one line at the end of the input instead (see sendRows).
  else if (row.result.outcome === 'skipped')
    logger.debug({ ...fields, error: formatErrors(row.result.errors) }, 'row skipped');
  else logger.info({ ...fields, error: formatErrors(row.result.errors) }, 'row not ok');
}
