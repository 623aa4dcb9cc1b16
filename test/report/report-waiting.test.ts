import { describe, expect, it } from 'vitest';
import { ReportTally } from '../../src/report/collectReportData.js';
import type { Outcome, PayerResult, RowError } from '../../src/core/types.js';
import { dataValues, summaryFor, writtenReport } from '../helpers/reportFixtures.js';

const KYC = 'waiting for KYC approval (kycStatus pending)';
const row = (clientUserId: string, outcome: Outcome, steps: PayerResult['steps'], errors: RowError[]) => ({
  source: 'payers.csv',
  line: Number(clientUserId.slice(2)),
  clientUserId,
  result: { outcome, paymentDetailIds: [], steps, errors },
});

/** A first run as onboarding goes: some payers done, most waiting for KYC, one row to fix. */
function firstRun() {
  const tally = new ReportTally();
  const waiting = { compliance: 'ok', 'payment-details': 'waiting', agreement: 'ok' } as const;
  tally.add(row('p-2', 'ok', { compliance: 'ok', 'payment-details': 'ok', agreement: 'ok' }, []));
  tally.add(row('p-3', 'waiting', waiting, [{ step: 'payment-details', message: KYC }]));
  tally.add(row('p-4', 'waiting', waiting, [{ step: 'payment-details', message: KYC }]));
  tally.add(
    row('p-5', 'invalid', {}, [
      {
        column: 'email',
        message: 'must be a valid e-mail address, got "aaa" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]),
  );
  return { tally, summary: summaryFor('/out', { ok: 1, waiting: 2, invalid: 1 }) };
}

describe('report.html of a run with waiting rows', () => {
  it('counts waiting apart, lists waiting rows with the step they wait on, and keeps them out of the rows to fix', async () => {
    const { tally, summary } = firstRun();
    const data = tally.data(summary);
    expect(data.counts).toEqual({ total: 4, ok: 1, waiting: 2, invalid: 1, failed: 0, skipped: 0 });
    expect(data.rows.map((r) => [r.clientUserId, r.outcome, r.step, r.message])).toEqual([
      ['p-3', 'waiting', 'payment-details', `payment-details: ${KYC}`],
      ['p-4', 'waiting', 'payment-details', `payment-details: ${KYC}`],
      [
        'p-5',
        'invalid',
        'validation',
        'email: must be a valid e-mail address, got "aaa" (masked as personal data: digits shown as 9, letters as a)',
      ],
    ]);
    expect(data.waitingOn).toEqual([{ message: `payment-details: ${KYC}`, count: 2 }]);
    expect(data.fix).toEqual([{ where: 'email', rows: 1, problem: 'must be a valid e-mail address' }]);

    const html = await writtenReport(tally, summary);
    expect(Object.fromEntries(dataValues(html, 'count').map(({ key, value }) => [key, Number(value)]))).toMatchObject({
      waiting: 2,
    });
    expect(html).toContain(
      '<tr data-kind="waiting"><td>payers.csv</td><td>3</td><td class="who"><span class="id">p-3</span></td><td><span class="pill waiting">waiting</span></td><td>payment-details</td>',
    );
    expect(html).toContain('<option value="waiting">waiting</option>');
  });

  it('says what happens next to each file, and never to fix the pending rows', async () => {
    const { tally, summary } = firstRun();
    const html = await writtenReport(tally, summary);
    const next = (kind: string) => new RegExp(`<([a-z0-9]+) data-next="${kind}">(.*?)</\\1>`, 's').exec(html)?.[2];
    expect(next('failed')).toBe('Rows to fix: 1');
    expect(html).toContain('They are in <b>failed-payers.csv</b>:');
    expect(next('pending')).toBe(
      'waiting on the payers (KYC, agreement): run the same file again later, or let the inbox do it; ' +
        'they are in <b>pending-payers.csv</b>. Waiting on: payment-details: waiting for KYC approval (kycStatus pending) (2).',
    );
    expect(next('pending')).not.toMatch(/fix/i);
  });
});
