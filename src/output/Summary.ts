import type { Outcome } from '../types.js';

/** What a run did: summary.json, the `--json` output, and the return value of `run()` (design.md §5). */
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
  outputs: { dir: string; results: string; failed: string[]; summary: string; log: string; report: string };
}

export function exitCodeFor(rows: Record<Outcome, number>, aborted: boolean): number {
  if (aborted) return 3;
  return rows.invalid + rows.failed + rows.skipped > 0 ? 1 : 0;
}

/** The short human summary printed on stderr at the end. */
export function formatSummary(s: Summary): string {
  const lines = [
    `payer-onboard ${s.command}: ${s.rows.total} rows in ${(s.durationMs / 1000).toFixed(1)} s: ` +
      `${s.rows.ok} ok, ${s.rows.invalid} invalid, ${s.rows.failed} failed, ${s.rows.skipped} skipped`,
  ];
  if (s.command === 'run' && s.requests.total > 0) {
    const statuses = Object.entries(s.requests.byStatus).map(([k, v]) => `${k}: ${v}`).join(', ');
    lines.push(`  requests: ${s.requests.total} (${statuses}), retries: ${s.requests.retries}`);
  }
  if (s.aborted) lines.push(`  ABORTED: ${s.aborted.message}`);
  lines.push(`  results: ${s.outputs.results}`);
  lines.push(`  report: ${s.outputs.report}`);
  for (const failed of s.outputs.failed) lines.push(`  failed rows (fix and run again): ${failed}`);
  lines.push(`  exit code ${s.exitCode}`);
  return `${lines.join('\n')}\n`;
}
