import type { RunOptions } from '../options/resolve.js';
import type { ReportTally } from '../report/collectReportData.js';
import type { RunContext, RunSession } from './RunSession.js';
import type { Job } from './scanInputs.js';

/** What every pass of one `run` goes by, settled before the first: the command, its options, where it writes. */
export interface RunFacts {
  runId: string;
  command: 'run' | 'validate';
  startedAt: Date;
  options: RunOptions;
  cwd: string;
  /** The inputs, resolved against `cwd`. */
  paths: { inputs: string[]; bankDetails: string | undefined };
  context: RunContext;
}

/** How far a run got, for the summary of one that stops before its end. Each pass notes what it opened. */
export interface Reached {
  warnings: string[];
  scanned?: Job[];
  session?: RunSession;
  tally?: ReportTally;
  summaryWritten: boolean;
}
