import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse';
import type { Summary } from '../output/Summary.js';
import { OUTCOMES, STEPS, type Outcome } from '../types.js';
import { normaliseError, splitErrorCell, unguard } from './normaliseError.js';
import type { ReportData, ReportRow } from './ReportData.js';
import type { RequestSeries } from './RequestTimeline.js';

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
