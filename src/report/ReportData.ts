import type { Outcome } from '../types.js';
import type { RequestSeries } from './RequestTimeline.js';

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
