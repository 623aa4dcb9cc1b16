import type { Outcome } from '../types.js';

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
  requests: { total: number; byStatus: Record<string, number>; retries: number };
  aborted?: { reason: string; message: string };
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

/** 0 when every row is ok or waiting: waiting on the payer is the normal state of onboarding, not an error. */
export function exitCodeFor(rows: Record<Outcome, number>, aborted: boolean): number {
  if (aborted) return 3;
  return rows.invalid + rows.failed + rows.skipped > 0 ? 1 : 0;
}

/** The short human summary printed on stderr at the end: what happened, then what to do with each file. */
export function formatSummary(s: Summary): string {
  const r = s.rows;
  const lines = [
    `payer-onboard ${s.command}: ${r.total} rows in ${(s.durationMs / 1000).toFixed(1)} s: ` +
      `${r.ok} ok, ${r.waiting} waiting, ${r.invalid} invalid, ${r.failed} failed, ${r.skipped} skipped`,
  ];
  if (s.command === 'run' && s.requests.total > 0) {
    const statuses = Object.entries(s.requests.byStatus)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    lines.push(`  requests: ${s.requests.total} (${statuses}), retries: ${s.requests.retries}`);
  }
  if (s.aborted) lines.push(`  ABORTED: ${s.aborted.message}`);
  lines.push(`  results: ${s.outputs.results}`);
  lines.push(`  report: ${s.outputs.report}`);
  for (const failed of s.outputs.failed) lines.push(`  rows to fix (fix them, then run this file): ${failed}`);
  // A summary made before pending files existed has none.
  for (const pending of s.outputs.pending ?? []) lines.push(`  ${pendingNote(r)}; pending rows: ${pending}`);
  lines.push(`  exit code ${s.exitCode}`);
  return `${lines.join('\n')}\n`;
}

/** What finishes the pending rows: nothing in them is to fix, whether they wait on the payer or were not attempted. */
export function pendingNote(rows: Record<Outcome, number>): string {
  return `${pendingReason(rows)}: run the same file again later, or let the inbox do it`;
}

/** Why rows are pending: `waiting on the payers (KYC, agreement)`, `not attempted (the run stopped)`, or both. */
export function pendingReason(rows: Record<Outcome, number>): string {
  const why = [
    ...(rows.waiting > 0 ? ['waiting on the payers (KYC, agreement)'] : []),
    ...(rows.skipped > 0 ? ['not attempted (the run stopped)'] : []),
  ];
  return why.join(' or ') || 'pending';
}
