import { join } from 'node:path';
import { exitCodeFor, type Summary } from '../../src/output/results.js';
import { writeReport } from '../../src/report/buildReport.js';
import type { ReportTally, RequestSeries } from '../../src/report/collectReportData.js';
import type { WhoLookup } from '../../src/report/payerNames.js';
import type { Outcome } from '../../src/core/types.js';
import { readFileSync } from 'node:fs';
import { payersCsv } from './runHarness.js';
import { tempDir } from './tempDir.js';

/** Attribute values of `data-<name>="..."` in a report, in page order. */
export function dataValues(html: string, name: string): Array<{ key: string; value: string }> {
  const re = new RegExp(`data-${name}="([^"]*)">([^<]*)<`, 'g');
  return [...html.matchAll(re)].map((m) => ({ key: m[1]!, value: m[2]! }));
}

export function readReport(path: string): string {
  return readFileSync(path, 'utf8');
}

/**
 * report.html as a run writes it (writeReport) for these rows and this summary, in a scratch folder; the summary's
 * other output paths stay as given, since the page shows only their names.
 */
export async function writtenReport(
  tally: ReportTally,
  summary: Summary = summaryFor(),
  series?: RequestSeries,
  who?: WhoLookup,
): Promise<string> {
  const dir = tempDir();
  try {
    const report = dir.path('report.html');
    return readReport(
      await writeReport({ ...summary, outputs: { ...summary.outputs, report } }, tally, series, [], who),
    );
  } finally {
    dir.remove();
  }
}

/** Three ok rows, two invalid ones (one with markup in its clientUserId), for a report with every part drawn. */
export function mixedPayers(): string {
  return payersCsv(['r-1', 'r-2', 'r-3', 'r-bad-email', '<img src=x onerror=alert(1)>'], {
    'r-bad-email': { email: 'not-an-email' },
    '<img src=x onerror=alert(1)>': { dateOfBirth: '31/12/1980' },
  });
}

/** A bank row for a payer not in the run and unknown to the API: sent on its own, answered 404, so `failed`. */
export const ORPHAN_BANK_ROWS =
  'clientUserId,bankName,accountName,currency,accountNumber,routingNumber,beneficiaryType,addressLine1,city,country,dateOfBirth,postalCode\n' +
  'nobody-1,First Midwest Bank,No Body,USD,000123456789,021000021,individual,1 Main St,Springfield,US,1980-01-01,62701\n';

/** A run's summary as report.html reads it: one CSV input, its output files in `dir`. */
export function summaryFor(dir = '/out', rows: Partial<Record<Outcome, number>> = {}): Summary {
  const counts = { ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0, ...rows };
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    runId: 'r1',
    command: 'run',
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:00:01Z',
    durationMs: 1000,
    sandbox: true,
    inputs: [{ source: 'payers.csv', path: '/in/payers.csv', format: 'csv', rows: total }],
    rows: { total, ...counts },
    requests: { total: 9, byStatus: { '200': 7, '500': 2 }, retries: 0 },
    warnings: [],
    exitCode: exitCodeFor(counts, false),
    outputs: {
      dir,
      results: join(dir, 'results.csv'),
      failed: [join(dir, 'failed-payers.csv')],
      pending: [join(dir, 'pending-payers.csv')],
      summary: join(dir, 'summary.json'),
      log: join(dir, 'run.log'),
      report: join(dir, 'report.html'),
    },
  };
}
