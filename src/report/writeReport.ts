import { chmodSync, writeFileSync } from 'node:fs';
import type { Summary } from '../output/Summary.js';
import { buildReport } from './buildReport.js';
import { collectReportData, type CollectOptions } from './collectReportData.js';
import type { RequestSeries } from './RequestTimeline.js';

/**
 * Writes report.html beside results.csv (at `summary.outputs.report`), mode 0600 like every output:
 * it names rows by clientUserId, exactly what results.csv holds and nothing more.
 */
export async function writeReport(
  summary: Summary,
  series: RequestSeries | undefined,
  options?: CollectOptions,
): Promise<string> {
  const data = await collectReportData(summary, series, options);
  const path = summary.outputs.report;
  writeFileSync(path, buildReport(data), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
