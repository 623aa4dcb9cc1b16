import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ReportTally } from '../../src/report/collectReportData.js';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { readReport, summaryFor, writtenReport } from '../helpers/reportFixtures.js';
import { BIN } from '../helpers/spawnBin.js';

// The top of report.html, "What to do next", from real runs against the sandbox: what a finance person acts on.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** An element's text as a reader sees it: tags dropped, entities decoded. */
const text = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
const groupLines = (html: string) => [...html.matchAll(/<li data-group="[^"]*">(.*?)<\/li>/g)].map((m) => text(m[1]!));
const rerunLine = (html: string) =>
  text(/<pre class="cmd" data-rerun><code>(.*?)<\/code><\/pre>/s.exec(html)?.[1] ?? '');

/** Eight payers whose dates of birth are all different and all written day first, one bad e-mail. */
const EIGHT_DATES = ['13/01/1980', '25/12/1979', '05/06/1981', '31/03/1975', '14/02/1990', '01/11/1969', '28/08/1988'];
function dayFirstPayers(): string {
  const ids = ['d-1', 'd-2', 'd-3', 'd-4', 'd-5', 'd-6', 'd-7', 'd-8', 'd-9'];
  const over: Record<string, Record<string, string>> = { 'd-9': { email: 'not-an-email' } };
  [...EIGHT_DATES, '17/09/2001'].forEach((dateOfBirth, i) => {
    over[ids[i]!] = { dateOfBirth };
  });
  return payersCsv(ids, over);
}

describe('report.html: what to do next', () => {
  it('groups the rows to fix by column and kind of problem: eight different dates are one line, with the option', async () => {
    h = await harness();
    // A column the tool does not know, too: its warning says how to name it.
    const csv = dayFirstPayers()
      .split('\n')
      .map((line, i) => (line === '' ? line : `${line},${i === 0 ? 'Nickname' : 'x'}`))
      .join('\n');
    const input = h.tmp.write('payers.csv', csv);
    const { summary } = await h.run({ inputs: [input], command: 'validate' });
    const html = readReport(summary.outputs.report);
    expect(groupLines(html)).toEqual([
      'dateOfBirth: 8 rows, day-first dates: use --date-format DD/MM/YYYY',
      'email: 1 row, must be a valid e-mail address',
    ]);
    expect(html).toContain(
      '<li data-next="warning">payers.csv: column &quot;Nickname&quot; is not a known field; it is ignored and ' +
        'carried through to the failed file (if it holds a field, --map names it)</li>',
    );
    // The list comes before the counts and the rows; the requests come last, for the operator.
    const at = (marker: string) => html.indexOf(marker);
    expect(at('What to do next')).toBeLessThan(at('data-count="total"'));
    expect(at('data-count="total"')).toBeLessThan(at('<table id="table">'));
    expect(at('<table id="table">')).toBeLessThan(at('For the operator'));
    // validate's command validates the failed file again, with the option; it needs no service and no key.
    expect(rerunLine(html)).toBe(`npx payer-onboard validate ${summary.outputs.failed[0]} --date-format DD/MM/YYYY`);
  });

  it('gives the exact command that runs the failed file again, without the key, and that command finishes the job', async () => {
    h = await harness();
    const input = h.tmp.write('payers.csv', dayFirstPayers().replace('not-an-email', 'd-9@example.com'));
    const first = await h.run({ inputs: [input] });
    expect(first.summary.rows).toMatchObject({ ok: 1, invalid: 8 });
    const html = readReport(first.summary.outputs.report);
    const command = rerunLine(html);
    const failed = first.summary.outputs.failed[0]!;
    expect(command).toBe(
      `npx payer-onboard run ${failed} --base-url ${h.sandbox.url} --state-dir ${h.tmp.path('state')} --rate 0 --date-format DD/MM/YYYY`,
    );
    expect(html).not.toContain(API_KEY);
    expect(html).toContain('The API key comes from PAYER_API_KEY or --api-key-file, as for this run');

    // Run as printed, by the shell, with the key as for the first run: the eight rows are read and registered.
    const out = h.tmp.path('again');
    const { stderr } = await promisify(execFile)(
      'sh',
      ['-c', `${command.replace(/^npx payer-onboard /, `"${process.execPath}" "${BIN}" `)} --out ${out}`],
      {
        cwd: h.tmp.dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYER_API_KEY: API_KEY },
        timeout: 30_000,
      },
    );
    expect(stderr).toContain('8 rows');
    expect(stderr).toContain('8 ok, 0 waiting, 0 invalid, 0 failed, 0 skipped');
    expect(h.sandbox.stats().payersCreated).toBe(9);
  });

  it('a rehearsal is run again in a sandbox; a run with every row ok has no command', async () => {
    h = await harness();
    const input = h.tmp.write('payers.csv', payersCsv(['s-1', 's-2'], { 's-2': { email: 'nope' } }));
    const { summary } = await h.run({ inputs: [input], sandbox: true, baseUrl: undefined });
    expect(rerunLine(readReport(summary.outputs.report))).toBe(
      `npx payer-onboard run ${summary.outputs.failed[0]} --sandbox --rate 0`,
    );
    const clean = await h.run({ inputs: [h.tmp.write('ok.csv', payersCsv(['s-3']))] });
    const html = readReport(clean.summary.outputs.report);
    expect(html).not.toContain('data-rerun');
    expect(html).toContain('Nothing: every row is ok.');
  });

  it('lists the payers whose links must be sent, with the links results.csv holds', async () => {
    h = await harness({ kycAfter: undefined });
    // Signatures the team did not collect: the payers sign on their page.
    const unsigned = { agreementCompleted: '' };
    const input = h.tmp.write(
      'payers.csv',
      payersCsv(['k-1', 'k-2', 'k-3'], { 'k-1': unsigned, 'k-2': unsigned, 'k-3': unsigned }),
    );
    const { summary, results } = await h.run({ inputs: [input] });
    expect(results.map((r) => r.outcome)).toEqual(['waiting', 'waiting', 'waiting']);
    const html = readReport(summary.outputs.report);
    expect(text(/<h3 data-next="links">(.*?)<\/h3>/.exec(html)?.[1] ?? '')).toBe('Links to send: 3 payers');
    const rows = [...html.matchAll(/<table id="links">.*?<tbody>(.*?)<\/tbody>/gs)][0]?.[1]?.split('\n') ?? [];
    expect(rows).toHaveLength(3);
    results.forEach((r, i) => {
      // By the name and e-mail the run wrote to the payer directory, then the id.
      expect(rows[i]).toContain(
        `<td class="who"><span class="name">Ada Lovelace</span> <span class="email">${r.clientUserId}@example.com</span> <span class="id">${r.clientUserId}</span></td><td>payers.csv</td><td>${r.line}</td>`,
      );
      expect(rows[i]).toContain(`<a href="${r.kycUrl}" rel="noreferrer noopener">KYC</a>`);
      // The agreement's link alone signs nothing: the payer signs on their own page.
      expect(rows[i]).toContain('<span data-sign>agreement: on their page</span>');
      expect(rows[i]).not.toContain(r.agreementUrl);
    });
  });

  it('groups the number cells of one column as one problem, whatever their count of digits', async () => {
    const tally = new ReportTally();
    const numberCell = (line: number, digits: number) =>
      tally.add({
        source: 'payers.xlsx',
        line,
        clientUserId: `n-${line}`,
        result: {
          outcome: 'invalid',
          paymentDetailIds: [],
          steps: {},
          errors: [
            {
              column: 'accountNumber',
              message: `is a number cell of ${digits} digits, which may have lost leading zeros: format the column as Text and type the value again`,
            },
          ],
        },
      });
    numberCell(2, 9);
    numberCell(3, 10);
    numberCell(4, 12);
    const html = await writtenReport(tally, summaryFor('/out', { invalid: 3 }));
    expect(groupLines(html)).toEqual([
      'accountNumber: 3 rows, is a number cell of N digits, which may have lost leading zeros: format the column as Text and type the value again',
    ]);
  });

  it('caps the links table like the rows table, links only http(s), and leaves out payers with nothing to send', async () => {
    const tally = new ReportTally({ rowLimit: 2 });
    const waiting = (id: string, kycUrl: string, kycStatus = 'pending') =>
      tally.add({
        source: 'payers.csv',
        line: Number(id.slice(2)),
        clientUserId: id,
        result: { outcome: 'waiting', paymentDetailIds: [], steps: {}, errors: [], kycUrl, kycStatus },
      });
    waiting('w-2', 'javascript:alert(1)');
    waiting('w-3', 'https://kyc.example/3', 'approved');
    waiting('w-4', 'https://kyc.example/4', 'rejected');
    waiting('w-5', 'https://kyc.example/5');
    waiting('w-6', 'https://kyc.example/6');
    const html = await writtenReport(tally, summaryFor('/out', { waiting: 5 }));
    expect(html).toContain('Links to send: 3 payers');
    expect(html).toContain('The table lists the first 2 of 3; results.csv has them all (kycUrl, agreementUrl).');
    expect(html).toContain('<span>KYC: javascript:alert(1)</span>');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('<a href="https://kyc.example/5" rel="noreferrer noopener">KYC</a>');
    expect(html).not.toContain('kyc.example/6');
  });
});
