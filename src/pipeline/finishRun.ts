import { formatSummary, type Summary } from '../output/results.js';
import { writeReport } from '../report/buildReport.js';
import type { ReportTally } from '../report/collectReportData.js';
import { rerunOptions } from '../report/rerunCommand.js';
import { buildSummary } from './buildSummary.js';
import type { CheckedInputs } from './checkInputs.js';
import type { Reached, RunFacts } from './RunFacts.js';
import type { RunSession } from './RunSession.js';

/**
 * The last pass, once every row is written: the summary logged, written to summary.json, drawn as report.html and
 * told on stderr. Returns the summary.
 */
export async function finishRun(
  session: RunSession,
  checked: CheckedInputs,
  tally: ReportTally,
  facts: RunFacts,
  reached: Reached,
): Promise<Summary> {
  const { outputs, logger, client, baseUrl } = session;
  const stderr = facts.context.stderr;
  const aborted = session.stopped('the rest of the rows were not checked');
  const notes = tally.notesWarning(outputs.results);
  if (notes !== undefined) stderr?.write(`warning: ${notes}\n`);
  const summary = buildSummary(facts, {
    baseUrl: session.sandboxed ? undefined : baseUrl,
    sandbox: session.sandboxed,
    inputs: checked.scanned.map((j) => ({
      source: j.input.file.name,
      path: j.input.file.path,
      format: j.input.file.format,
      rows: j.rows,
    })),
    counts: tally.outcomes(),
    client,
    end: { aborted },
    warnings: notes === undefined ? checked.warnings : [...checked.warnings, notes],
    outputs,
  });
  logger.info({ rows: summary.rows, requests: summary.requests, exitCode: summary.exitCode, aborted }, 'run finished');
  reached.summaryWritten = true; // written now, or its failure is the error the run stops with
  await session.writeSummary(summary);
  // The results are on disk already: a report that cannot be written is a warning, not a failed run.
  const series = client ? session.timeline.series() : undefined;
  await writeReport(
    summary,
    tally,
    series,
    rerunOptions(facts.command, facts.options, facts.cwd, session.sandboxed),
    session.journal === undefined ? undefined : (ids) => session.journal!.directoryEntries(ids),
  ).catch((error: unknown) => {
    stderr?.write(`warning: ${outputs.report} not written: ${(error as Error).message}\n`);
  });
  stderr?.write(formatSummary(summary));
  return summary;
}
