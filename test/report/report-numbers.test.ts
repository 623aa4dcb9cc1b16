import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReportTally } from '../../src/report/collectReportData.js';
import { harness } from '../helpers/runHarness.js';
import {
  dataValues,
  mixedPayers,
  ORPHAN_BANK_ROWS,
  readReport,
  summaryFor,
  writtenReport,
} from '../helpers/reportFixtures.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('report.html of a run', () => {
  it('shows the same numbers and rows as results.csv, escaped, mode 0600', async () => {
    const input = h.tmp.write('payers.csv', mixedPayers());
    const bank = h.tmp.write('bank.csv', ORPHAN_BANK_ROWS);
    const { summary, results } = await h.run({ inputs: [input], bankDetails: bank });
    expect(summary.outputs.report).toBe(`${summary.outputs.dir}/report.html`);
    expect(statSync(summary.outputs.report).mode & 0o777).toBe(0o600);

    const html = readReport(summary.outputs.report);
    const counts = Object.fromEntries(dataValues(html, 'count').map(({ key, value }) => [key, Number(value)]));
    const fromCsv = { total: results.length, ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 } as Record<
      string,
      number
    >;
    for (const r of results) fromCsv[r.outcome!]!++;
    expect(counts).toEqual(fromCsv);
    expect(fromCsv).toMatchObject({ ok: 3, invalid: 2, failed: 1 });
    expect(dataValues(html, 'requests')[0]?.value).toBe(String(summary.requests.total));

    // The table: one line per row not ok, in results.csv's order, with its line, id, step and message.
    const notOk = results.filter((r) => r.outcome !== 'ok');
    const tableRows = [
      ...html.matchAll(
        /<tr data-kind="([a-z]+)"><td>([^<]*)<\/td><td>(\d+)<\/td><td class="who">(?:(?!<\/td>).)*<\/td><td>.*?<\/td><td>([^<]*)<\/td>/g,
      ),
    ];
    expect(tableRows.map((m) => [m[1], m[2], m[3]])).toEqual(notOk.map((r) => [r.outcome, r.source, r.line]));
    expect(tableRows.find((m) => m[2] === 'bank.csv')?.[4]).toBe('payment-details');
    expect(tableRows.find((m) => m[1] === 'invalid')?.[4]).toBe('validation');

    // Markup from a cell is text, never markup; no SSN or bank number, and a name or an e-mail address only where the
    // payer directory has the payer (an invalid row's is never written there).
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    for (const secret of ['123-45-6789', '000123456789', '021000021', 'r-1@example.com'])
      expect(html).not.toContain(secret);
    // The rows to fix are grouped without the values their messages quote; the table shows each row's message.
    expect(html).toContain('<li data-group="dateOfBirth"><b>dateOfBirth</b>: 1 row, day-first dates:');
    expect(html).toContain('dateOfBirth: must be YYYY-MM-DD, got');
    expect(html).not.toContain('31/12/1980');
  });

  it('validate writes a report too, saying nothing was sent', async () => {
    const input = h.tmp.write('payers.csv', mixedPayers());
    const { summary } = await h.run({ inputs: [input], command: 'validate' });
    const html = readReport(summary.outputs.report);
    expect(html).toContain('validate sends nothing');
    expect(Object.fromEntries(dataValues(html, 'count').map(({ key, value }) => [key, Number(value)]))).toMatchObject({
      total: 5,
      ok: 3,
      invalid: 2,
    });
  });

  it('caps the table but still counts every row', async () => {
    const tally = new ReportTally({ rowLimit: 1 });
    for (const [line, outcome] of [
      [2, 'ok'],
      [3, 'invalid'],
      [4, 'invalid'],
    ] as const)
      tally.add({ source: 'payers.csv', line, result: { outcome, paymentDetailIds: [], steps: {}, errors: [] } });
    const data = tally.data(summaryFor());
    expect(data.rows).toHaveLength(1);
    expect(data.rowsNotOk).toBe(2);
    expect(await writtenReport(tally)).toContain('The table shows the first 1 of 2; results.csv has them all.');
  });
});
