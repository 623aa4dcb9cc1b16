import { PayerOnboardError } from '../core/errors.js';
import type { ApiClient, StopInfo } from '../execute/ApiClient.js';
import { exitCodeFor, type Summary } from '../output/results.js';
import type { Outcome } from '../core/types.js';
import type { RunFacts } from './RunFacts.js';
import { runSpan } from './RunSession.js';

/** What a run's summary says beyond its facts: what it read, sent and wrote, and how it ended. */
export interface SummaryParts {
  /** The API it sent to; left out for a rehearsal's sandbox, whose address died with it. */
  baseUrl?: string | undefined;
  sandbox: boolean;
  inputs: Summary['inputs'];
  counts: Record<Outcome, number>;
  client: ApiClient | undefined;
  /** At the end of its inputs (`aborted`: it stopped sending on the way), or by the error it stops with. */
  end: { aborted: StopInfo | undefined } | { error: unknown };
  warnings: string[];
  outputs: Summary['outputs'];
}

/** summary.json, `--json` and what `run()` returns, for a run that reached its end and for one that stopped. */
export function buildSummary(facts: RunFacts, parts: SummaryParts): Summary {
  const { end, counts } = parts;
  const aborted = 'aborted' in end ? end.aborted : undefined;
  const stop = 'error' in end ? stoppedBy(end.error) : undefined;
  return {
    runId: facts.runId,
    command: facts.command,
    ...runSpan(facts.startedAt),
    ...(parts.baseUrl ? { baseUrl: parts.baseUrl } : {}),
    sandbox: parts.sandbox,
    inputs: parts.inputs,
    rows: rowTotals(counts),
    requests: requestCounts(parts.client),
    ...(aborted ? { aborted: { reason: aborted.reason, message: aborted.message } } : {}),
    ...(stop ? { stopped: stop.stopped } : {}),
    warnings: parts.warnings,
    exitCode: stop ? stop.exitCode : exitCodeFor(counts, aborted !== undefined),
    outputs: parts.outputs,
  };
}

/** The error a run stops with: one of ours by its code and exit code, anything else as an abort (exit 3). */
function stoppedBy(error: unknown): { stopped: NonNullable<Summary['stopped']>; exitCode: number } {
  const ours = error instanceof PayerOnboardError;
  return {
    stopped: { code: ours ? error.code : 'E_ABORTED', message: (error as Error)?.message ?? String(error) },
    exitCode: ours ? error.exitCode : 3,
  };
}

function requestCounts(client: ApiClient | undefined): Summary['requests'] {
  if (!client) return { total: 0, byStatus: {}, retries: 0 };
  const { requests, byStatus, refused, retries } = client.stats();
  return { total: requests, byStatus, ...(refused ? { refused } : {}), retries };
}

/** The summary's row counts: each outcome and their total. */
function rowTotals(counts: Record<Outcome, number>): Summary['rows'] {
  return { total: Object.values(counts).reduce((a, b) => a + b, 0), ...counts };
}
