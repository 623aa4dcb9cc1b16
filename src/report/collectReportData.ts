import { type Outcome, OUTCOMES, STEPS } from '../types.js';
import type { AttemptInfo } from '../execute/ApiClient.js';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse';
import type { Summary } from '../output/results.js';

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
  /** Counted from results.csv itself, not from the summary: the report shows what the file says. */
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
 * Turns one error item into the shape it shares with others, so the "most frequent errors" chart groups
 * `email: must be an e-mail address, got "a@"` with `email: ... got "b@"`. Also drops the row's own
 * clientUserId and identifiers the server echoes, so a chart label never names one payer.
 */
export function normaliseError(message: string, clientUserId?: string): string {
  let text = message.replace(/^'(?=[=+\-@\t\r])/, '');
  if (clientUserId) text = text.split(clientUserId).join('<id>');
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/(^|[\s(:=])'(?:[^'\\]|\\.)*'/g, "$1'…'")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b(lines?) \d+/g, '$1 N')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The items of a results.csv `error` cell (several problems of one row are joined by ` | `). */
export function splitErrorCell(cell: string): string[] {
  return cell
    .split(' | ')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Undoes results.csv's formula guard (`'=...`), which is for spreadsheets, not for people reading a page. */
export function unguard(cell: string): string {
  return cell.replace(/^'(?=[=+\-@\t\r])/, '');
}

export interface CollectOptions {
  /** Rows shown in the table; the counts and the error chart still cover every row. */
  rowLimit?: number;
  topErrors?: number;
}

// Distinct error shapes kept while counting: bounds memory on a file where every message differs.
const MAX_DISTINCT_ERRORS = 5000;

/**
 * Streams results.csv once and gathers what the report shows. The file, not the in-memory summary, is the
 * source: whoever compares the report with results.csv sees the same numbers.
 */
export async function collectReportData(
  summary: Summary,
  series: RequestSeries | undefined,
  options: CollectOptions = {},
): Promise<ReportData> {
  const rowLimit = options.rowLimit ?? 5000;
  const counts = { total: 0, ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
  const errors = new ShapeCounter();
  const waits = new ShapeCounter();
  const rows: ReportRow[] = [];
  let rowsNotOk = 0;

  const parser = createReadStream(summary.outputs.results).pipe(parse({ columns: true, bom: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    const outcome = (OUTCOMES as readonly string[]).includes(record.outcome ?? '')
      ? (record.outcome as Outcome)
      : undefined;
    if (outcome === undefined) continue;
    counts.total++;
    counts[outcome]++;
    if (outcome === 'ok') continue;
    rowsNotOk++;
    const clientUserId = record.clientUserId ?? '';
    const message = unguard(record.error ?? '');
    // Waiting is the normal state of onboarding: what rows wait on is counted apart, never as an error.
    const counter = outcome === 'waiting' ? waits : errors;
    for (const item of splitErrorCell(message)) counter.add(normaliseError(item, clientUserId));
    if (rows.length < rowLimit) {
      rows.push({
        source: record.source ?? '',
        line: record.line ?? '',
        clientUserId,
        outcome,
        step: rowStep(outcome, record.steps ?? '', message),
        message,
      });
    }
  }

  const names = (paths: readonly string[] | undefined) => (paths ?? []).map((f) => basename(f));
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
    counts,
    topErrors: errors.top(options.topErrors ?? 10),
    waitingOn: waits.top(options.topErrors ?? 10),
    rows,
    rowsNotOk,
    ...(series ? { series } : {}),
  };
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

/** The step that went wrong, or that waits, read from the `steps` cell (`compliance=ok payment-details=waiting ...`). */
export function rowStep(outcome: Outcome, steps: string, message: string): string {
  if (outcome === 'invalid') return 'validation';
  if (outcome === 'skipped') return 'not attempted';
  const marked = outcome === 'waiting' ? '=waiting' : '=failed';
  const found = steps
    .split(/\s+/)
    .filter((s) => s.endsWith(marked))
    .map((s) => s.slice(0, -marked.length));
  if (found.length > 0) return found.join(', ');
  // A bank row whose payer failed has no step of its own marked: the message names it.
  const prefix = /^([a-z-]+):/.exec(message)?.[1];
  return prefix && (STEPS as readonly string[]).includes(prefix) ? prefix : '—';
}
