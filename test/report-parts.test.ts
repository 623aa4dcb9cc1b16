import { describe, expect, it } from 'vitest';
import type { Summary } from '../src/output/results.js';
import { escapeHtml, rateChart } from '../src/report/svgCharts.js';
import { ReportTally, RequestTimeline } from '../src/report/collectReportData.js';
import type { Outcome, PayerResult, RowError } from '../src/types.js';
import { summaryFor, writtenReport } from './helpers/reportFixtures.js';

describe('the error chart', () => {
  const failed = (clientUserId: string, ...errors: RowError[]) => ({
    source: 'p.csv',
    line: 2,
    clientUserId,
    result: { outcome: 'failed' as const, paymentDetailIds: [], steps: {}, errors },
  });

  it('groups errors that differ only by the values they quote or the row they name', () => {
    const tally = new ReportTally();
    tally.add(
      failed('p-1', { column: 'email', message: 'must be a valid e-mail address, got something shaped "aaa@a"' }),
    );
    tally.add(failed('p-2', { column: 'email', message: 'must be a valid e-mail address, got something shaped "b@"' }));
    tally.add(
      failed('p-4', { column: 'clientUserId', message: '"p-4" appears again: the same payer is already on line 5' }),
    );
    tally.add(failed('p-9', { step: 'agreement', message: 'HTTP 404 Payer with client user ID p-9 not found' }));
    tally.add(failed('p-8', { step: 'agreement', message: 'HTTP 404 Payer with client user ID p-8 not found' }));
    const data = tally.data(summaryFor(), undefined);
    expect(data.topErrors).toEqual([
      { message: 'agreement: HTTP 404 Payer with client user ID <id> not found', count: 2 },
      { message: 'email: must be a valid e-mail address, got something shaped "…"', count: 2 },
      { message: 'clientUserId: "…" appears again: the same payer is already on line N', count: 1 },
    ]);
    expect(data.counts).toEqual({ total: 5, ok: 0, waiting: 0, invalid: 0, failed: 5, skipped: 0 });
  });

  it('names the step a row failed or waits at, from its steps, else from its errors', () => {
    const tally = new ReportTally();
    const row = (outcome: Outcome, steps: PayerResult['steps'], errors: RowError[] = []) =>
      tally.add({ source: 'p.csv', line: 2, result: { outcome, paymentDetailIds: [], steps, errors } });
    row('failed', { compliance: 'ok', 'payment-details': 'failed', agreement: 'ok' });
    row('failed', { compliance: 'failed', 'payment-details': 'skipped' });
    row('failed', {}, [{ step: 'agreement', message: 'HTTP 404 not found' }]);
    row('invalid', {}, [{ column: 'email', message: 'bad' }]);
    row('skipped', { compliance: 'skipped' });
    row('waiting', { compliance: 'ok', 'payment-details': 'waiting', agreement: 'ok' });
    row('failed', { compliance: 'ok', 'payment-details': 'waiting', agreement: 'failed' });
    expect(tally.data(summaryFor(), undefined).rows.map((r) => r.step)).toEqual([
      'payment-details',
      'compliance',
      'agreement',
      'validation',
      'not attempted',
      'payment-details',
      'agreement',
    ]);
  });
});

describe('RequestTimeline', () => {
  it('counts attempts per second of the run by how they ended', () => {
    let now = 1_000_000;
    const t = new RequestTimeline(() => now);
    t.record({ status: 200 });
    t.record({ status: 201 });
    now += 2500;
    t.record({ status: 429 });
    t.record({ status: 'timeout' });
    t.record({ status: 503 });
    expect(t.series().seconds).toEqual([
      { ok: 2, throttled: 0, error: 0, network: 0 },
      { ok: 0, throttled: 0, error: 0, network: 0 },
      { ok: 0, throttled: 1, error: 1, network: 1 },
    ]);
  });

  it('draws a long run in a bounded number of columns', () => {
    const seconds = Array.from({ length: 3600 }, () => ({ ok: 5, throttled: 0, error: 0, network: 0 }));
    const svg = rateChart({ seconds }, 720, 240);
    expect(svg.match(/<g><title>/g)).toHaveLength(240);
    expect(svg).toContain('each column 15 s');
  });
});

describe('report.html', () => {
  // One row whose every value is markup, in a run whose names are markup too.
  const tally = new ReportTally();
  tally.add({
    source: 'a"b.csv',
    line: 2,
    clientUserId: "o'neil</td>",
    result: {
      outcome: 'failed',
      paymentDetailIds: [],
      steps: { compliance: 'failed' },
      errors: [
        { step: 'compliance', message: 'HTTP 400 <b>no</b>' },
        { column: 'x', message: '<script>alert(1)</script>' },
      ],
    },
  });
  const base = summaryFor('/out', { failed: 1 });
  const summary: Summary = {
    ...base,
    runId: 'r<1>',
    sandbox: false,
    inputs: [{ source: 'a"b.csv', path: '/in/a"b.csv', format: 'csv', rows: 1 }],
    requests: { total: 1, byStatus: { '400': 1 }, retries: 0 },
    outputs: { ...base.outputs, failed: ['/out/failed-a"b.csv'], pending: [] },
  };
  const series = { seconds: [{ ok: 0, throttled: 0, error: 1, network: 0 }] };

  it('escapes every value and loads nothing from anywhere', async () => {
    const data = tally.data(summary, series);
    expect(data.rows.map((r) => r.message)).toEqual(['compliance: HTTP 400 <b>no</b> | x: <script>alert(1)</script>']);
    expect(data.topErrors.map((t) => t.message)).toEqual([
      'compliance: HTTP 400 <b>no</b>',
      'x: <script>alert(1)</script>',
    ]);

    const html = await writtenReport(tally, summary, series);
    expect(html).not.toMatch(/<script>alert|<b>no<\/b>|o'neil<\/td>|r<1>/);
    expect(html).toContain(escapeHtml("o'neil</td>"));
    expect(html).toContain(escapeHtml('a"b.csv'));
    expect(html).toContain(escapeHtml('r<1>'));
    // One inline script (the filter), allowed by hash; nothing may be fetched.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toMatch(/Content-Security-Policy" content="default-src &#39;none&#39;/);
    expect(html).not.toMatch(/(src|href)=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });
});
