import { describe, expect, it } from 'vitest';
import type { Summary } from '../../src/output/results.js';
import type { RowError } from '../../src/core/types.js';
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
  it('a refused identity check is a payer to contact, not a row to fix: nothing in the row is wrong', async () => {
    const tally = new ReportTally();
    const failed = (line: number, id: string, errors: RowError[]) =>
      tally.add({
        source: 'payers.csv',
        line,
        clientUserId: id,
        result: { outcome: 'failed' as const, paymentDetailIds: [], steps: {}, errors },
      });
    const rejected = {
      step: 'kyc' as const,
      message: 'KYC rejected: nothing in this row is wrong; the payer must be contacted',
    };
    failed(4, 'p-4', [{ step: 'payment-details', message: 'not sent: KYC rejected' }, rejected]);
    failed(5, 'p-5', [{ message: 'still waiting after 31 days (--max-wait 30): the payer must be contacted' }]);
    // Rejected, and a bank account refused for a field of its own: both to contact and to fix.
    failed(6, 'p-6', [rejected, { step: 'payment-details', message: 'HTTP 400 iban is invalid' }]);
    const data = tally.data(summaryFor('/out', { failed: 3 }));
    expect(data.fixRows).toBe(1);
    expect(data.fix).toEqual([{ where: 'payment-details', rows: 1, problem: 'HTTP 400 iban is invalid' }]);
    expect(data.contactTotal).toBe(3);
    expect(data.contact.map((c) => [c.clientUserId, c.why])).toEqual([
      ['p-4', `payment-details: not sent: KYC rejected | kyc: ${rejected.message}`],
      ['p-5', 'still waiting after 31 days (--max-wait 30): the payer must be contacted'],
      ['p-6', `kyc: ${rejected.message}`],
    ]);
    // On the page: under "Payers to contact", by name where the directory has one, the id alone where it has none.
    const who = async (ids: readonly string[]) =>
      new Map(
        ids
          .filter((id) => id !== 'p-5')
          .map((id) => [
            id,
            { clientUserId: id, firstName: 'Grace', lastName: 'Hopper', email: `${id}@example.com`, updatedAt: 'x' },
          ]),
      );
    const html = await writtenReport(tally, summaryFor('/out', { failed: 3 }), undefined, who);
    expect(html).toContain('<h3 data-next="contact">Payers to contact: 3 payers</h3>');
    expect(html).toContain('<h3 data-next="failed">Rows to fix: 1</h3>');
    expect(html).toContain(
      '<td class="who"><span class="name">Grace Hopper</span> <span class="email">p-4@example.com</span> <span class="id">p-4</span></td>',
    );
    expect(html).toContain('<td class="who"><span class="id">p-5</span></td>');
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
