import { describe, expect, it } from 'vitest';
import { buildReport } from '../src/report/buildReport.js';
import { escapeHtml, rateChart } from '../src/report/svgCharts.js';
import { normaliseError, type ReportData, RequestTimeline } from '../src/report/collectReportData.js';

describe('normaliseError', () => {
  it('groups messages that differ only by the values they quote or the row they name', () => {
    expect(normaliseError('email: must be a valid e-mail address, got something shaped "aaa@a"')).toBe(
      'email: must be a valid e-mail address, got something shaped "…"',
    );
    expect(normaliseError('clientUserId: "p-4" appears again: the same payer is already on line 5', 'p-4')).toBe(
      'clientUserId: "…" appears again: the same payer is already on line N',
    );
    expect(normaliseError('agreement: HTTP 404 Payer with client user ID p-9 not found', 'p-9')).toBe(
      'agreement: HTTP 404 Payer with client user ID <id> not found',
    );
    expect(normaliseError("'=compliance: x")).toBe('=compliance: x');
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

describe('buildReport', () => {
  const data: ReportData = {
    run: {
      runId: 'r<1>',
      command: 'run',
      startedAt: '2026-01-01T00:00:00Z',
      endedAt: '2026-01-01T00:00:01Z',
      durationMs: 1000,
      sandbox: false,
      inputs: [{ source: 'a"b.csv', rows: 1 }],
      exitCode: 1,
      requests: { total: 1, byStatus: { '400': 1 }, retries: 0 },
      files: { results: 'results.csv', failed: ['failed-a"b.csv'], pending: [] },
    },
    counts: { total: 1, ok: 0, waiting: 0, invalid: 0, failed: 1, skipped: 0 },
    topErrors: [{ message: 'x: <script>alert(1)</script>', count: 1 }],
    waitingOn: [],
    rows: [
      {
        source: 'a"b.csv',
        line: '2',
        clientUserId: "o'neil</td>",
        outcome: 'failed',
        step: 'compliance',
        message: 'compliance: HTTP 400 <b>no</b>',
      },
    ],
    rowsNotOk: 1,
    series: { seconds: [{ ok: 0, throttled: 0, error: 1, network: 0 }] },
  };

  it('escapes every value and loads nothing from anywhere', () => {
    const html = buildReport(data);
    expect(html).not.toMatch(/<script>alert|<b>no<\/b>|o'neil<\/td>/);
    expect(html).toContain(escapeHtml("o'neil</td>"));
    expect(html).toContain(escapeHtml('a"b.csv'));
    // One inline script (the filter), allowed by hash; nothing may be fetched.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toMatch(/Content-Security-Policy" content="default-src &#39;none&#39;/);
    expect(html).not.toMatch(/(src|href)=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });
});
