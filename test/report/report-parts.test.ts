import { describe, expect, it } from 'vitest';
import type { Summary } from '../../src/output/results.js';
import { toText } from '../../src/core/html.js';
import { rateChart } from '../../src/report/svgCharts.js';
import { ReportTally, RequestTimeline } from '../../src/report/collectReportData.js';
import type { Outcome, PayerResult, RowError } from '../../src/core/types.js';
import { summaryFor, writtenReport } from '../helpers/reportFixtures.js';

describe('rows to fix, grouped', () => {
  const failed = (clientUserId: string, ...errors: RowError[]) => ({
    source: 'p.csv',
    line: 2,
    clientUserId,
    result: { outcome: 'failed' as const, paymentDetailIds: [], steps: {}, errors },
  });

  it('groups by column or step and kind of problem, not by the values a message quotes or the row it names', () => {
    const tally = new ReportTally();
    tally.add(
      failed('p-1', {
        column: 'email',
        message:
          'must be a valid e-mail address, got "aaa@a" (masked as personal data: digits shown as 9, letters as a)',
      }),
    );
    tally.add(
      failed('p-2', {
        column: 'email',
        message: 'must be a valid e-mail address, got "b@" (masked as personal data: digits shown as 9, letters as a)',
      }),
    );
    tally.add(
      failed('p-4', { column: 'clientUserId', message: '"p-4" appears again: the same payer is already on line 5' }),
    );
    tally.add(failed('p-9', { step: 'agreement', message: 'HTTP 404 Payer with client user ID p-9 not found' }));
    tally.add(failed('p-8', { step: 'agreement', message: 'HTTP 404 Payer with client user ID p-8 not found' }));
    tally.add(
      failed('p-7', {
        step: 'compliance',
        message:
          'email, phone changed since the payer was registered and was not sent (/v1/payer does not update a known payer): run again with --compliance-path /v2/payer to update it',
      }),
    );
    const data = tally.data(summaryFor());
    expect(data.fix).toEqual([
      { where: 'agreement', rows: 2, problem: 'HTTP 404 Payer with client user ID <id> not found' },
      { where: 'email', rows: 2, problem: 'must be a valid e-mail address' },
      { where: 'clientUserId', rows: 1, problem: 'the same payer as an earlier row', advice: 'delete the repeat' },
      {
        where: 'compliance',
        rows: 1,
        problem: 'payer data changed since it was registered, not sent (/v1/payer does not update a known payer)',
        option: '--compliance-path /v2/payer',
      },
    ]);
    expect(data.counts).toEqual({ total: 6, ok: 0, waiting: 0, invalid: 0, failed: 6, skipped: 0 });
  });

  // Dates as validation words them: the shape, then which --date-format reads the date as far as its numbers tell.
  const date = (shape: string, reading: string): RowError => ({
    column: 'Date of Birth',
    message: `must be YYYY-MM-DD, got "${shape}" (masked as personal data: digits shown as 9, letters as a): ${reading}`,
  });
  const DAY = 'written day first, --date-format DD/MM/YYYY reads it';
  const MONTH = 'written month first, --date-format MM/DD/YYYY reads it';
  const EITHER = 'written day or month first, --date-format DD/MM/YYYY or MM/DD/YYYY reads it';
  const fixOf = (...readings: string[]) => {
    const tally = new ReportTally();
    for (const [i, reading] of readings.entries()) tally.add(failed(`p-${i}`, date('99/99/9999', reading)));
    return tally.data(summaryFor()).fix;
  };

  it('names the --date-format of a column whose dates tell their order, counting the dates that do not tell', () => {
    expect(fixOf(DAY, EITHER, DAY)).toEqual([
      { where: 'Date of Birth', rows: 3, problem: 'day-first dates', option: '--date-format DD/MM/YYYY' },
    ]);
    expect(fixOf(MONTH)).toEqual([
      { where: 'Date of Birth', rows: 1, problem: 'month-first dates', option: '--date-format MM/DD/YYYY' },
    ]);
  });

  it('names no option where the dates do not tell their order, or tell both: one would swap day and month', () => {
    expect(fixOf(EITHER, EITHER)).toEqual([
      {
        where: 'Date of Birth',
        rows: 2,
        problem: 'dates written day or month first (no date here tells which)',
        advice: 'use --date-format DD/MM/YYYY if the day comes first, --date-format MM/DD/YYYY if the month does',
      },
    ]);
    expect(fixOf(DAY, MONTH)).toEqual([
      {
        where: 'Date of Birth',
        rows: 2,
        problem: 'dates written in more than one order',
        advice: 'type them as YYYY-MM-DD',
      },
    ]);
  });

  it('counts a row once in each of its groups, and leaves waiting rows out', () => {
    const tally = new ReportTally();
    tally.add(
      failed(
        'p-1',
        { column: 'paymentDetails[0].iban', message: 'must be a valid IBAN: its check digits do not match (mod-97)' },
        { column: 'paymentDetails[1].iban', message: 'must be a valid IBAN: its check digits do not match (mod-97)' },
        { column: 'email', message: 'is required' },
      ),
    );
    tally.add({
      source: 'p.csv',
      line: 3,
      clientUserId: 'p-2',
      result: {
        outcome: 'waiting',
        paymentDetailIds: [],
        steps: {},
        errors: [{ step: 'kyc', message: 'waiting for KYC approval (kycStatus pending)' }],
      },
    });
    expect(tally.data(summaryFor()).fix).toEqual([
      { where: 'email', rows: 1, problem: 'is required' },
      {
        where: 'paymentDetails[…].iban',
        rows: 1,
        problem: 'must be a valid IBAN: its check digits do not match (mod-97)',
      },
    ]);
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
    expect(tally.data(summaryFor()).rows.map((r) => r.step)).toEqual([
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
      { ok: 2, refused: 0, throttled: 0, error: 0, network: 0 },
      { ok: 0, refused: 0, throttled: 0, error: 0, network: 0 },
      { ok: 0, refused: 0, throttled: 1, error: 1, network: 1 },
    ]);
  });

  it('moves an answer the plan read as a refusal before KYC from the errors to its own count', () => {
    let now = 1_000_000;
    const t = new RequestTimeline(() => now);
    t.record({ status: 500 });
    now += 1000;
    t.record({ status: 200 });
    t.refused();
    expect(t.series().seconds).toEqual([
      { ok: 0, refused: 1, throttled: 0, error: 0, network: 0 },
      { ok: 1, refused: 0, throttled: 0, error: 0, network: 0 },
    ]);
  });

  it('draws a long run in a bounded number of columns', () => {
    const seconds = Array.from({ length: 3600 }, () => ({ ok: 5, refused: 0, throttled: 0, error: 0, network: 0 }));
    const svg = toText(rateChart({ seconds }, 720, 240));
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
  const series = { seconds: [{ ok: 0, refused: 0, throttled: 0, error: 1, network: 0 }] };

  it('escapes every value and loads nothing from anywhere', async () => {
    const data = tally.data(summary, series);
    expect(data.rows.map((r) => r.message)).toEqual(['compliance: HTTP 400 <b>no</b> | x: <script>alert(1)</script>']);
    expect(data.fix.map((g) => [g.where, g.problem])).toEqual([
      ['compliance', 'HTTP 400 <b>no</b>'],
      ['x', '<script>alert(1)</script>'],
    ]);

    const html = await writtenReport(tally, summary, series);
    expect(html).not.toMatch(/<script>alert|<b>no<\/b>|o'neil<\/td>|r<1>/);
    expect(html).toContain('o&#39;neil&lt;/td&gt;');
    expect(html).toContain('a&quot;b.csv');
    expect(html).toContain('r&lt;1&gt;');
    // One inline script (the filter), allowed by hash; nothing may be fetched.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toMatch(/Content-Security-Policy" content="default-src &#39;none&#39;/);
    expect(html).not.toMatch(/(src|href)=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });
});
