import { STEPS, type PayerResult, type RowError, type Step, type StepStatus, type Outcome } from '../core/types.js';
import { csvSafe } from '../core/formulaGuard.js';
import { showInvisible } from '../core/schemas.js';
import type { RefusalCounts } from '../execute/ApiClient.js';

/** The columns of results.csv, in the order the README documents: scripts read them by position. */
export const RESULT_COLUMNS = [
  'source',
  'line',
  'clientUserId',
  'outcome',
  'userId',
  'agreementStatus',
  'kycStatus',
  'agreementUrl',
  'kycUrl',
  'paymentDetailId',
  'agreementCompleted',
  'steps',
  'error',
] as const;

/** One finished input row: where it came from and what happened to it. */
export interface FinishedRow {
  source: string;
  line: number;
  clientUserId?: string;
  result: PayerResult;
}

/** `compliance=ok payment-details=failed agreement=ok`, in the order the calls are made. */
function formatSteps(result: PayerResult): string {
  const done = STEPS.filter((step) => result.steps[step] !== undefined);
  return done.length === 0 ? '' : done.map((step) => `${step}=${result.steps[step]}`).join(' ');
}

/** One error as a person reads it: `payment-details: HTTP 400 ...`, `email: must be an e-mail address`. */
export function formatError(error: RowError): string {
  const place = error.column ?? error.step;
  return place === undefined ? error.message : `${place}: ${error.message}`;
}

/** The `error` cell: every problem of the row, in the order found. */
export function formatErrors(errors: readonly RowError[]): string {
  if (errors.length === 0) return '';
  return errors.map(formatError).join(' | ');
}

/**
 * A results.csv line. Every cell is guarded against formula injection: the input's (a clientUserId `=cmd|...`, a file
 * name), the server's and our messages alike; status reads the file back through csvUnguard.
 */
export function resultRecord(row: FinishedRow): string[] {
  const r = row.result;
  return [
    row.source,
    String(row.line),
    // Only an invalid row can hold an invisible character here (validation refuses them): written out, not raw.
    showInvisible(row.clientUserId ?? ''),
    r.outcome,
    r.userId ?? '',
    r.agreementStatus ?? '',
    r.kycStatus ?? '',
    r.agreementUrl ?? '',
    r.kycUrl ?? '',
    r.paymentDetailIds.join(';'),
    r.agreementCompleted === undefined ? '' : String(r.agreementCompleted),
    formatSteps(r),
    formatErrors(r.errors),
  ].map(csvSafe);
}

/**
 * Steps a re-run can skip: done now (`ok`) or found done (`done-before`). For the `completedSteps`
 * cell of the failed and pending files (formatCompletedSteps); `waiting`, `failed` and `skipped` steps are still to do.
 */
export function doneSteps(result: PayerResult): Step[] {
  return STEPS.filter((step) => DONE.has(result.steps[step]));
}

const DONE: ReadonlySet<StepStatus | undefined> = new Set(['ok', 'done-before']);

/**
 * Hands finished items on in the order they were reserved, whatever order they finish in: results are
 * written in input order while rows complete concurrently. Only rows that finished ahead of a slower one
 * wait here, and the run bounds how many rows may be open at once, so this buffer is bounded too.
 *
 * `unwritten` counts every item reserved and not yet written, including those queued behind a slow write: a
 * reader faster than the writer (validate reads a million rows far faster than it writes them) must wait
 * for the writes too, or the queue of writes grows with the file (bench/RESULTS.md, memory).
 */
export class OrderedSink<T> {
  private nextToReserve = 0;
  private nextToEmit = 0;
  /** Items whose emit has finished (or was skipped after an error). */
  private written = 0;
  private readonly unwrittenWaiters: Array<{ n: number; resolve: () => void }> = [];
  private readonly waiting = new Map<number, T>();
  /** Items handed on, in order, not yet emitted. */
  private readonly queue: T[] = [];
  /** The loop emitting `queue`, while it runs. */
  private draining: Promise<void> | undefined;

  constructor(private readonly emit: (item: T) => Promise<void> | void) {}

  reserve(): number {
    return this.nextToReserve++;
  }

  complete(seq: number, item: T): void {
    if (seq !== this.nextToEmit) {
      this.waiting.set(seq, item);
      return;
    }
    this.queue.push(item);
    this.nextToEmit++;
    while (this.waiting.size > 0 && this.waiting.has(this.nextToEmit)) {
      this.queue.push(this.waiting.get(this.nextToEmit)!);
      this.waiting.delete(this.nextToEmit);
      this.nextToEmit++;
    }
    this.draining ??= this.drain();
  }

  /**
   * Emits the queue one item after the other, until it is empty. One loop for every item handed on meanwhile, rather
   * than a chain of promises per item: validate hands on a million.
   */
  private async drain(): Promise<void> {
    await undefined; // never inside complete(): its caller goes on first, as with a promise chain
    while (this.queue.length > 0) {
      const next = this.queue.shift()!;
      if (!this.error) {
        try {
          await this.emit(next);
        } catch (error) {
          // Keep the first failure (a full disk): the run stops reading and reports it, instead of crashing.
          this.error ??= error as Error;
        }
      }
      this.written++;
      this.wake();
    }
    this.draining = undefined;
  }

  /** The first error an emit threw, if any; nothing more is emitted after it. */
  error: Error | undefined;

  /** Items reserved but not yet handed on. */
  get open(): number {
    return this.nextToReserve - this.nextToEmit;
  }

  /** Items reserved but not yet written: the open ones and those handed on whose write has not finished. */
  get unwritten(): number {
    return this.nextToReserve - this.written;
  }

  /** Resolves once at most `n` items are unwritten, or once writing failed (see `error`). */
  whenUnwrittenAtMost(n: number): Promise<void> {
    if (this.error || this.unwritten <= n) return Promise.resolve();
    return new Promise<void>((resolve) => this.unwrittenWaiters.push({ n, resolve }));
  }

  private wake(): void {
    for (let i = this.unwrittenWaiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.unwrittenWaiters[i]!;
      if (!this.error && this.unwritten > waiter.n) continue;
      this.unwrittenWaiters.splice(i, 1);
      waiter.resolve();
    }
  }

  /** Resolves when everything completed so far has been emitted; rejects if emitting failed. */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
    if (this.error) throw this.error;
  }
}

/** What a run did: summary.json, the `--json` output, and the return value of `run()`. */
export interface Summary {
  runId: string;
  command: 'run' | 'validate';
  startedAt: string;
  endedAt: string;
  durationMs: number;
  baseUrl?: string;
  sandbox: boolean;
  inputs: Array<{ source: string; path: string; format: string; rows: number }>;
  rows: Record<Outcome, number> & { total: number };
  requests: RequestCounts;
  aborted?: { reason: string; message: string };
  /** Why a run stopped with an error before its end: an input that cannot be used (exit 2, nothing sent), or worse. */
  stopped?: { code: string; message: string };
  warnings: string[];
  exitCode: number;
  /** `failed`: rows a person must fix or act on. `pending`: rows a later run finishes by itself. */
  outputs: {
    dir: string;
    results: string;
    failed: string[];
    pending: string[];
    summary: string;
    log: string;
    report: string;
  };
}

/**
 * The requests a command sent, by how they were answered. `byStatus`: by status code (`network` / `timeout` where no
 * answer came), leaving out `refused`: bank accounts the service refused as it does until their payer is ready (before
 * KYC is approved, or the agreement completed), which are what the service does then, not faults.
 */
export interface RequestCounts {
  total: number;
  byStatus: Record<string, number>;
  refused?: RefusalCounts;
  retries: number;
}

/** `200: 65, refused before KYC: 7`: the answers by status, the expected refusals named apart. */
export function answersText(requests: RequestCounts): string {
  const refused = requests.refused;
  return [
    ...Object.entries(requests.byStatus)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: ${v}`),
    ...(refused?.beforeKyc ? [`refused before KYC: ${refused.beforeKyc}`] : []),
    ...(refused?.beforeAgreement ? [`refused before the agreement: ${refused.beforeAgreement}`] : []),
  ].join(', ');
}

/**
 * 0 when every row is ok or waiting: waiting on the payer is the normal state of onboarding, not an error. Rows
 * `skipped` in a run that was not stopped are the rest of a trial run (`--limit`, `--only`), left as asked.
 */
export function exitCodeFor(rows: Record<Outcome, number>, aborted: boolean): number {
  if (aborted) return 3;
  return rows.invalid + rows.failed > 0 ? 1 : 0;
}

/** The short human summary printed on stderr at the end: what happened, then what to do with each file. */
export function formatSummary(s: Summary): string {
  const r = s.rows;
  const lines = [
    `payer-onboard ${s.command}: ${r.total} rows in ${(s.durationMs / 1000).toFixed(1)} s: ` +
      `${r.ok} ok, ${r.waiting} waiting, ${r.invalid} invalid, ${r.failed} failed, ${r.skipped} skipped`,
  ];
  if (s.command === 'run' && s.requests.total > 0) {
    lines.push(`  requests: ${s.requests.total} (${answersText(s.requests)}), retries: ${s.requests.retries}`);
    if (s.requests.refused) lines.push(`  ${REFUSED_NOTE}`);
  }
  if (s.aborted) lines.push(`  ABORTED: ${s.aborted.message}`);
  lines.push(`  results: ${s.outputs.results}`);
  lines.push(`  report: ${s.outputs.report}`);
  for (const failed of s.outputs.failed) lines.push(`  rows to fix (fix them, then run this file): ${failed}`);
  // A summary made before pending files existed has none.
  for (const pending of s.outputs.pending ?? []) lines.push(`  ${pendingNote(r, s.aborted)}; pending rows: ${pending}`);
  lines.push(`  exit code ${s.exitCode}`);
  return `${lines.join('\n')}\n`;
}

/** Why the refusals are not errors, for whoever reads the counts. */
export const REFUSED_NOTE =
  'refused: expected, not errors: the service takes a bank account (or records an agreement) only once its payer is approved; it is sent then';

/**
 * What finishes the pending rows: nothing in them is to fix, whether they wait on the payer or were not attempted.
 * `aborted`: why the run stopped, if it did (a rejected key is fixed first: the stop says how, waiting does not).
 */
export function pendingNote(rows: Record<Outcome, number>, aborted?: { reason: string }): string {
  const then =
    aborted?.reason === 'key-rejected'
      ? 'run the same file again once the key is right'
      : 'run the same file again later, or let the inbox do it';
  return `${pendingReason(rows, aborted !== undefined)}: ${then}`;
}

/**
 * Why rows are pending: `waiting on the payers (KYC, agreement)`, `not attempted (the run stopped)`, or both; rows
 * skipped by a run that was not stopped were left out of a trial run.
 */
export function pendingReason(rows: Record<Outcome, number>, stopped: boolean): string {
  const why = [
    ...(rows.waiting > 0 ? ['waiting on the payers (KYC, agreement)'] : []),
    ...(rows.skipped > 0
      ? [stopped ? 'not attempted (the run stopped)' : 'not attempted (a trial run: --limit, --only)']
      : []),
  ];
  return why.join(' or ') || 'pending';
}
