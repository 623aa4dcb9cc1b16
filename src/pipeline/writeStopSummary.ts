import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { formatByName } from '../input/InputFile.js';
import type { Summary } from '../output/results.js';
import { buildSummary } from './buildSummary.js';
import type { Reached, RunFacts } from './RunFacts.js';

/**
 * summary.json of a run that stops on the way (a bad input, a workbook that cannot be read again), with as much as it
 * reached: a results folder never holds half-written files without a summary that says why.
 */
export function writeStopSummary(facts: RunFacts, reached: Reached, error: unknown): void {
  const { options, cwd, runId, paths } = facts;
  // Stopped before its output folder was opened (an input missing, a header without a required column): the message
  // says it all, and a new folder of the default kind (one per run) holding only this summary would say nothing
  // more. A folder named with --out gets it, for the script that looks there.
  if (reached.session === undefined && options.out === undefined) return;
  const counts = reached.tally?.outcomes() ?? { ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
  const dir = reached.session?.outputs.dir ?? resolve(cwd, options.out ?? join('payer-onboard-results', runId));
  const summary = buildSummary(facts, {
    sandbox: Boolean(options.sandbox) || facts.context.sandbox === true,
    inputs: [...paths.inputs, ...(paths.bankDetails ? [paths.bankDetails] : [])].map((path) => {
      const job = reached.scanned?.find((j) => j.input.file.path === path);
      return {
        source: basename(path),
        path,
        format: job?.input.file.format ?? formatByName(path),
        rows: job?.rows ?? 0,
      };
    }),
    counts,
    client: reached.session?.client,
    end: { error },
    warnings: reached.warnings,
    outputs: reached.session?.outputs ?? outputsIn(dir, facts),
  });
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(summary.outputs.summary, `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
    chmodSync(summary.outputs.summary, 0o600);
  } catch {
    // The error that stopped the run is the one to report; a folder that cannot be written adds nothing to it.
  }
}

/** Where a session would have put its files: the run stopped before it opened one. */
function outputsIn(dir: string, { options, cwd }: RunFacts): Summary['outputs'] {
  return {
    dir,
    results: join(dir, 'results.csv'),
    failed: [],
    pending: [],
    summary: join(dir, 'summary.json'),
    report: join(dir, 'report.html'),
    log: resolve(cwd, options.logFile ?? join(dir, 'run.log')),
  };
}
