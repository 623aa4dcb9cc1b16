import { type Outcome, type PayerResult, STEPS } from '../types.js';
import type { AttemptInfo } from '../execute/ApiClient.js';
import { basename } from 'node:path';
import { type FinishedRow, formatError, formatErrors, type Summary } from '../output/results.js';

/** One row of results.csv that is not ok, as the report's table shows it: nothing results.csv does not hold. */
export interface ReportRow {
  source: string;
  line: string;
  clientUserId: string;
  outcome: Outcome;
  /**
   * The step that went wrong or waits: `compliance`, `payment-details, agreement`; `validation` for invalid rows,
   * `not attempted` for skipped ones.
   */
  step: string;
  message: string;
}

/** Everything report.html shows; plain data, so building the page is a pure function of it. */
export interface ReportData {
  run: {
    runId: string;
    command: 'run' | 'validate';
    startedAt: string;
    endedAt: string;
    durationMs: number;
    sandbox: boolean;
    inputs: Array<{ source: string; rows: number }>;
    exitCode: number;
    aborted?: { reason: string; message: string };
    requests: { total: number; byStatus: Record<string, number>; retries: number };
    /** File names in the output folder, for the reader to open next. */
    files: { results: string; failed: string[]; pending: string[] };
  };
  /** Counted from the rows as they were written to results.csv, so the report shows what the file says. */
  counts: Record<Outcome, number> & { total: number };
  /** Most frequent normalised error items of the rows to fix or finish, most frequent first; waiting rows are not errors. */
  topErrors: Array<{ message: string; count: number }>;
  /** What waiting rows wait on (`payment-details: waiting for KYC approval ...`), most frequent first. */
  waitingOn: Array<{ message: string; count: number }>;
  /** Rows not ok, in results.csv order, at most `rowLimit` of them. */
  rows: ReportRow[];
  rowsNotOk: number;
  series?: RequestSeries;
}

/** How an attempt ended, as the requests-per-second chart colours it. */
export type AttemptClass = 'ok' | 'throttled' | 'error' | 'network';

export const ATTEMPT_CLASSES: readonly AttemptClass[] = ['ok', 'throttled', 'error', 'network'];

/** Attempts ended in each second of the run, from its start: `seconds[i]` counts second i. */
export interface RequestSeries {
  seconds: Array<Record<AttemptClass, number>>;
}

export function classifyAttempt(status: AttemptInfo['status']): AttemptClass {
  if (typeof status !== 'number') return 'network';
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'throttled';
  return 'error';
}

/**
 * Counts attempts per second of the run through the API client's `onAttempt` hook. One small record per
 * second of run time, never one per request, so a 100,000-row run costs a few kilobytes.
 */
export class RequestTimeline {
  private readonly buckets: Array<Record<AttemptClass, number>> = [];
  private readonly startedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  record(info: Pick<AttemptInfo, 'status'>): void {
    const second = Math.max(0, Math.floor((this.now() - this.startedAt) / 1000));
    while (this.buckets.length <= second) this.buckets.push(emptyBucket());
    this.buckets[second]![classifyAttempt(info.status)]++;
  }

  series(): RequestSeries {
    return { seconds: this.buckets.map((b) => ({ ...b })) };
  }
}

function emptyBucket(): Record<AttemptClass, number> {
  return { ok: 0, throttled: 0, error: 0, network: 0 };
}

/**
 * Turns one error into the shape it shares with others, so the "most frequent errors" chart groups
 * `email: must be an e-mail address, got "a@"` with `email: ... got "b@"`. Also drops the row's own
 * clientUserId and identifiers the server echoes, so a chart label never names one payer.
 */
function normaliseError(message: string, clientUserId: string): string {
  const text = clientUserId === '' ? message : message.split(clientUserId).join('<id>');
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/(^|[\s(:=])'(?:[^'\\]|\\.)*'/g, "$1'…'")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b(lines?) \d+/g, '$1 N')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface CollectOptions {
  /** Rows shown in the table; the counts and the error chart still cover every row. */
  rowLimit?: number;
  topErrors?: number;
}

// Distinct error shapes kept while counting: bounds memory on a file where every message differs.
const MAX_DISTINCT_ERRORS = 5000;

/**
 * What the report shows of the rows, gathered from each row as it is written to results.csv (the same rows, in
 * the same order), with its errors still as data. Bounded: the table keeps `rowLimit` rows, the charts count shapes.
 */
export class ReportTally {
  private readonly counts = { total: 0, ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
  private readonly errors = new ShapeCounter();
  private readonly waits = new ShapeCounter();
  private readonly rows: ReportRow[] = [];
  private rowsNotOk = 0;

  constructor(private readonly options: CollectOptions = {}) {}

  /** Rows by outcome so far: the summary's counts, so the two never disagree. */
  outcomes(): Record<Outcome, number> {
    const { total: _, ...byOutcome } = this.counts;
    return byOutcome;
  }

  add(row: FinishedRow): void {
    const { outcome, errors } = row.result;
    this.counts.total++;
    this.counts[outcome]++;
    if (outcome === 'ok') return;
    this.rowsNotOk++;
    const clientUserId = row.clientUserId ?? '';
    // Waiting is the normal state of onboarding: what rows wait on is counted apart, never as an error.
    const counter = outcome === 'waiting' ? this.waits : this.errors;
    for (const error of errors) counter.add(normaliseError(formatError(error), clientUserId));
    if (this.rows.length < (this.options.rowLimit ?? 5000)) {
      this.rows.push({
        source: row.source,
        line: String(row.line),
        clientUserId,
        outcome,
        step: rowStep(row.result),
        message: formatErrors(errors),
      });
    }
  }

  data(summary: Summary, series: RequestSeries | undefined): ReportData {
    const names = (paths: readonly string[] | undefined) => (paths ?? []).map((f) => basename(f));
    const top = this.options.topErrors ?? 10;
    return {
      run: {
        runId: summary.runId,
        command: summary.command,
        startedAt: summary.startedAt,
        endedAt: summary.endedAt,
        durationMs: summary.durationMs,
        sandbox: summary.sandbox,
        inputs: summary.inputs.map((i) => ({ source: i.source, rows: i.rows })),
        exitCode: summary.exitCode,
        ...(summary.aborted ? { aborted: summary.aborted } : {}),
        requests: summary.requests,
        files: {
          results: basename(summary.outputs.results),
          failed: names(summary.outputs.failed),
          pending: names(summary.outputs.pending),
        },
      },
      counts: { ...this.counts },
      topErrors: this.errors.top(top),
      waitingOn: this.waits.top(top),
      rows: [...this.rows],
      rowsNotOk: this.rowsNotOk,
      ...(series ? { series } : {}),
    };
  }
}

/** Messages by shape, at most MAX_DISTINCT_ERRORS of them; the rest counted as one. */
class ShapeCounter {
  private readonly counts = new Map<string, number>();

  add(key: string): void {
    const counted = this.counts.has(key) || this.counts.size < MAX_DISTINCT_ERRORS ? key : '(other messages)';
    this.counts.set(counted, (this.counts.get(counted) ?? 0) + 1);
  }

  top(n: number): Array<{ message: string; count: number }> {
    return [...this.counts.entries()]
      .map(([message, count]) => ({ message, count }))
      .sort((a, b) => b.count - a.count || a.message.localeCompare(b.message))
      .slice(0, n);
  }
}

/** The step that went wrong, or that waits; a bank row whose payer failed has none of its own: its error names it. */
function rowStep(result: PayerResult): string {
  if (result.outcome === 'invalid') return 'validation';
  if (result.outcome === 'skipped') return 'not attempted';
  const marked = result.outcome === 'waiting' ? 'waiting' : 'failed';
  const found = STEPS.filter((step) => result.steps[step] === marked);
  if (found.length > 0) return found.join(', ');
  const named = result.errors.find((e) => (STEPS as readonly (string | undefined)[]).includes(e.step))?.step;
  return named ?? '—';
}
