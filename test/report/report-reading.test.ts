import { describe, expect, it } from 'vitest';
import type { Summary } from '../../src/output/results.js';
import { ReportTally } from '../../src/report/collectReportData.js';
import { type SafeHtml, toText } from '../../src/core/html.js';
import { rateChart } from '../../src/report/svgCharts.js';
import { summaryFor, writtenReport } from '../helpers/reportFixtures.js';

// report.html as a finance person and an operator read it: each number once, in words they use.

const invalid = (clientUserId: string, message: string) => ({
  source: 'payers.xlsx',
  line: 9,
  clientUserId,
  result: {
    outcome: 'invalid' as const,
    paymentDetailIds: [],
    steps: {},
    errors: [{ column: '(row)', message }],
  },
});

/** The y axis's labels of a requests chart, bottom up. */
const axis = (svg: SafeHtml) => [...toText(svg).matchAll(/class="tick" text-anchor="end">([^<]*)</g)].map((m) => m[1]);

describe('report.html, read by the people it is for', () => {
  it('a refused identity check is for the payer to redo, not a cell to fix: the line says whom to contact', () => {
    const tally = new ReportTally();
    tally.add({
      source: 'payers.csv',
      line: 4,
      clientUserId: 'p-4',
      result: {
        outcome: 'failed' as const,
        paymentDetailIds: [],
        steps: {},
        errors: [{ step: 'kyc' as const, message: 'KYC rejected: the payer must be contacted' }],
      },
    });
    expect(tally.data(summaryFor()).fix).toEqual([
      {
        where: 'kyc',
        rows: 1,
        problem: 'KYC rejected: the payer must be contacted',
        advice: 'contact the payer: the service refused their identity check',
      },
    ]);
  });

  it('groups rows that are a total or a note as one line a finance person reads, whatever cells they fill', () => {
    const tally = new ReportTally();
    tally.add(
      invalid(
        '',
        'is not a payer row: only "clientUserId" and "accountNumber" are filled (a total or a note?): delete the row, or move it off the sheet',
      ),
    );
    tally.add(
      invalid(
        'Total',
        'is not a payer row: only "email" is filled (a total or a note?): delete the row, or move it off the sheet',
      ),
    );
    expect(tally.data(summaryFor()).fix).toEqual([
      {
        where: '(row)',
        rows: 2,
        problem: 'not payers: only a cell or two filled, like a total or a note',
        advice: 'delete these rows, or move them off the sheet',
      },
    ]);
  });

  it('labels the requests-per-second axis in whole requests', () => {
    const second = (ok: number) => ({ ok, refused: 0, throttled: 0, error: 0, network: 0 });
    expect(axis(rateChart({ seconds: [second(5), second(3)] }))).toEqual(['0', '2', '4', '6']);
    expect(axis(rateChart({ seconds: [second(1)] }))).toEqual(['0', '1']);
    expect(axis(rateChart({ seconds: [second(3)] }))).toEqual(['0', '1', '2', '3']);
    expect(axis(rateChart({ seconds: [second(20), second(17)] }))).toEqual(['0', '5', '10', '15', '20']);
    // A long run's columns are averages: the axis still counts whole requests.
    const long = Array.from({ length: 600 }, (_, i) => second(i % 2 === 0 ? 1 : 2));
    expect(axis(rateChart({ seconds: long })).every((label) => /^\d+$/.test(label!))).toBe(true);
  });

  it('shows the counts by outcome once, as cards, and the refusals before KYC apart from the errors', async () => {
    const summary: Summary = {
      ...summaryFor('/out', { ok: 3, waiting: 2 }),
      requests: { total: 9, byStatus: { '200': 7 }, refused: { beforeKyc: 2, beforeAgreement: 0 }, retries: 0 },
    };
    const html = await writtenReport(new ReportTally(), summary, {
      seconds: [{ ok: 7, refused: 2, throttled: 0, error: 0, network: 0 }],
    });
    expect(html).toContain('<span class="n" data-count="waiting">');
    expect(html.match(/<svg/g)).toHaveLength(1);
    expect(html).not.toContain('rows by outcome');
    expect(html).toContain('<span data-requests="9">9</span> requests (200: 7, refused before KYC: 2), 0 retries');
    expect(html).toContain(
      '<p class="muted" data-refused>refused: expected, not errors: the service takes a bank account (or records an agreement) only once its payer is approved; it is sent then.</p>',
    );
    expect(html).toContain('refused until approved (expected)');
  });
});
