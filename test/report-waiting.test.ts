import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESULT_COLUMNS, exitCodeFor, type Summary } from '../src/output/results.js';
import { buildReport } from '../src/report/buildReport.js';
import { collectReportData } from '../src/report/collectReportData.js';
import { dataValues } from './helpers/reportFixtures.js';
import { tempDir } from './helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

const KYC = 'payment-details: waiting for KYC approval (kycStatus pending)';
const line = (id: string, outcome: string, steps: string, error: string) =>
  ['payers.csv', id.slice(2), id, outcome, '', '', '', '', '', '', '', steps, error]
    .map((c) => (/[,"]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c))
    .join(',');

/** A first run as onboarding goes: some payers done, most waiting for KYC, one row to fix. */
function firstRun(): Summary {
  const results = tmp.write(
    'results.csv',
    [
      RESULT_COLUMNS.join(','),
      line('p-2', 'ok', 'compliance=ok payment-details=ok agreement=ok', ''),
      line('p-3', 'waiting', 'compliance=ok payment-details=waiting agreement=ok', KYC),
      line('p-4', 'waiting', 'compliance=ok payment-details=waiting agreement=ok', KYC),
      line('p-5', 'invalid', '', 'email: must be a valid e-mail address, got something shaped "aaa"'),
      '',
    ].join('\n'),
  );
  const rows = { ok: 1, waiting: 2, invalid: 1, failed: 0, skipped: 0 };
  return {
    runId: 'r1',
    command: 'run',
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:00:01Z',
    durationMs: 1000,
    sandbox: true,
    inputs: [{ source: 'payers.csv', path: '/in/payers.csv', format: 'csv', rows: 4 }],
    rows: { total: 4, ...rows },
    requests: { total: 9, byStatus: { '200': 7, '500': 2 }, retries: 0 },
    warnings: [],
    exitCode: exitCodeFor(rows, false),
    outputs: {
      dir: tmp.dir,
      results,
      failed: [tmp.path('failed-payers.csv')],
      pending: [tmp.path('pending-payers.csv')],
      summary: tmp.path('summary.json'),
      log: tmp.path('run.log'),
      report: tmp.path('report.html'),
    },
  };
}

describe('report.html of a run with waiting rows', () => {
  it('counts waiting apart, lists waiting rows with the step they wait on, and keeps them out of the error chart', async () => {
    const data = await collectReportData(firstRun(), undefined);
    expect(data.counts).toEqual({ total: 4, ok: 1, waiting: 2, invalid: 1, failed: 0, skipped: 0 });
    expect(data.rows.map((r) => [r.clientUserId, r.outcome, r.step, r.message])).toEqual([
      ['p-3', 'waiting', 'payment-details', KYC],
      ['p-4', 'waiting', 'payment-details', KYC],
      ['p-5', 'invalid', 'validation', 'email: must be a valid e-mail address, got something shaped "aaa"'],
    ]);
    expect(data.waitingOn).toEqual([{ message: KYC, count: 2 }]);
    expect(data.topErrors.map((t) => t.message)).toEqual([
      'email: must be a valid e-mail address, got something shaped "…"',
    ]);

    const html = buildReport(data);
    expect(Object.fromEntries(dataValues(html, 'count').map(({ key, value }) => [key, Number(value)]))).toMatchObject({
      waiting: 2,
    });
    expect(html).toContain(
      '<tr data-outcome="waiting"><td>payers.csv</td><td>3</td><td>p-3</td><td><span class="pill waiting">waiting</span></td><td>payment-details</td>',
    );
    expect(html).toContain('<option value="waiting">waiting</option>');
  });

  it('says what happens next to each file, and never to fix the pending rows', async () => {
    const html = buildReport(await collectReportData(firstRun(), undefined));
    const next = (kind: string) => new RegExp(`<li data-next="${kind}">(.*?)</li>`).exec(html)?.[1];
    expect(next('failed')).toBe('Rows to fix (1): fix them in <b>failed-payers.csv</b>, then run that file.');
    expect(next('pending')).toBe(
      'Pending rows (2): waiting on the payers (KYC, agreement): run the same file again later, or let the inbox do it; ' +
        'they are in <b>pending-payers.csv</b>. Waiting on: payment-details: waiting for KYC approval (kycStatus pending) (2).',
    );
    expect(next('pending')).not.toMatch(/fix/i);
  });
});
