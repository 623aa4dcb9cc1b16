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
export async function collectReportData(summary: Summary, series: RequestSeries | undefined, options: CollectOptions = {}): Promise<ReportData> {
  const rowLimit = options.rowLimit ?? 5000;
  const counts = { total: 0, ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
  const errors = new Map<string, number>();
  const rows: ReportRow[] = [];
  let rowsNotOk = 0;

  const parser = createReadStream(summary.outputs.results).pipe(parse({ columns: true, bom: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    const outcome = (OUTCOMES as readonly string[]).includes(record.outcome ?? '') ? (record.outcome as Outcome) : undefined;
    if (outcome === undefined) continue;
    counts.total++;
    counts[outcome]++;
    if (outcome === 'ok') continue;
    rowsNotOk++;
    const clientUserId = record.clientUserId ?? '';
    const message = unguard(record.error ?? '');
    for (const item of splitErrorCell(message)) {
      const key = normaliseError(item, clientUserId);
      if (errors.has(key) || errors.size < MAX_DISTINCT_ERRORS) errors.set(key, (errors.get(key) ?? 0) + 1);
      else errors.set('(other errors)', (errors.get('(other errors)') ?? 0) + 1);
    }
    if (rows.length < rowLimit) {
      rows.push({ source: record.source ?? '', line: record.line ?? '', clientUserId, outcome, failedStep: failedStep(outcome, record.steps ?? '', message), message });
    }
  }

  const topErrors = [...errors.entries()]
    .map(([message, count]) => ({ message, count }))
    .sort((a, b) => b.count - a.count || a.message.localeCompare(b.message))
    .slice(0, options.topErrors ?? 10);

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
      files: { results: basename(summary.outputs.results), failed: summary.outputs.failed.map((f) => basename(f)) },
    },
    counts,
    topErrors,
    rows,
    rowsNotOk,
    ...(series ? { series } : {}),
  };
}

/** Which call went wrong, read from the `steps` cell (`compliance=ok payment-details=failed ...`). */
export function failedStep(outcome: Outcome, steps: string, message: string): string {
  if (outcome === 'invalid') return 'validation';
  if (outcome === 'skipped') return 'not attempted';
  const failed = steps.split(/\s+/).filter((s) => s.endsWith('=failed')).map((s) => s.slice(0, -'=failed'.length));
  if (failed.length > 0) return failed.join(', ');
  // A bank row whose payer failed has no step of its own marked: the message names it.
  const prefix = /^([a-z-]+):/.exec(message)?.[1];
  return prefix && (STEPS as readonly string[]).includes(prefix) ? prefix : '—';
}
