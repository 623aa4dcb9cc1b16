import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { runStatus, type StatusInput } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, payersCsv, type ResultRow } from '../helpers/runHarness.js';

// The next step `status` gives for each kind of payer, against the sandbox as the real service behaves: the advice
// has to be the step that moves the payer on, from what the service says and what the files given say.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NO_BANK = { bankName: '', accountName: '', currency: '', accountNumber: '', routingNumber: '', accountType: '' };

async function status(input: Omit<StatusInput, 'inputs'> & { inputs: string[] }) {
  const err = memoryStream();
  const summary = await runStatus(
    {
      baseUrl: h!.sandbox.url,
      stateDir: h!.tmp.path('state'),
      rate: 0,
      out: h!.tmp.path(`s-${Math.random()}`),
      ...input,
    },
    { cwd: h!.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream },
  );
  const rows = parse(readFileSync(summary.outputs.status, 'utf8'), { columns: true }) as ResultRow[];
  return {
    summary,
    stderr: err.text(),
    byId: new Map(rows.map((r) => [r.clientUserId, r])),
    html: readFileSync(summary.outputs.report, 'utf8'),
  };
}

/** A payer's row of the status report: its category and the links offered. */
function reportRow(html: string, id: string): { kind: string; links: string[] } | undefined {
  const row = new RegExp(
    `<tr data-kind="([a-z-]+)"><td class="who">(?:(?!</td>).)*<span class="id">${id}</span></td>.*?<td class="links">(.*?)</td>`,
  ).exec(html);
  return row ? { kind: row[1]!, links: [...row[2]!.matchAll(/>(KYC|agreement)<\/a>/g)].map((m) => m[1]!) } : undefined;
}

describe('status: the next step for each payer', () => {
  it('names its own step for rows to fix, a compliant payer with no bank row, and an account to attach', async () => {
    h = await harness({ kycAfter: undefined, accountApproveMs: 0 });
    const payers = h.tmp.write(
      'payers.csv',
      payersCsv(['paid', 'no-bank', 'bad-row', 'kyc-wait', 'bank-wait'], {
        'no-bank': NO_BANK,
        'bad-row': { email: 'not-an-email' },
      }),
    );
    const unsigned = h.tmp.write('unsigned.csv', payersCsv(['unsigned'], { unsigned: { agreementCompleted: '' } }));
    const stranger = h.tmp.write('stranger.csv', payersCsv(['stranger']));
    const first = await h.run({ inputs: [payers] });
    await h.run({ inputs: [unsigned] });
    for (const id of ['paid', 'no-bank', 'unsigned']) h.sandbox.setKyc(id, 'approved');
    const second = await h.run({ inputs: [payers] });
    expect(second.results.find((r) => r.clientUserId === 'no-bank')?.outcome).toBe('ok');
    // Approved after the last run: its bank account is attached by the next one.
    h.sandbox.setKyc('bank-wait', 'approved');

    const { summary, stderr, byId, html } = await status({ inputs: [payers, unsigned, stranger] });

    expect(summary.payers).toMatchObject({
      total: 7,
      'fix-rows': 1,
      'not-registered': 1,
      'kyc-pending': 1,
      'agreement-pending': 1,
      'no-bank': 1,
      'bank-pending': 1,
      payable: 1,
    });
    // A run with every row ok leaves a compliant payer without a bank row where it is, whatever runs next.
    const third = await h.run({ inputs: [payers] });
    expect(third.results.find((r) => r.clientUserId === 'no-bank')?.outcome).toBe('ok');
    expect((await status({ inputs: [payers] })).summary.payers['no-bank']).toBe(1);

    expect(stderr).toContain(
      "  rows to fix                       1  fix the rows (validate, or a run's failed-* file, says what is wrong), then run them\n",
    );
    expect(stderr).toContain('  not registered                    1  run their rows: the service does not know them\n');
    expect(stderr).toContain('  KYC pending                       1  send them their KYC link\n');
    expect(stderr).toContain(
      '  agreement pending                 1  they sign it on their page: serve invites them, or link new ID makes a link to send\n',
    );
    expect(stderr).toContain(
      '  compliant, no bank account given  1  add one: their bank columns on the row, or a --bank-details file, then run it\n',
    );
    expect(stderr).toContain(
      '  bank account pending              1  a later run of their rows attaches it, or the provider is still checking it\n',
    );
    expect(stderr).toContain('  payable                           1  ready to pay\n');
    expect(stderr).toContain(`\nreport: ${summary.outputs.report}\n`);

    expect(byId.get('bad-row')).toMatchObject({
      kycStatus: 'not_registered',
      payable: 'false',
      error: 'rows to fix: a run refuses them as they are; fix them, then run them',
    });
    expect(byId.get('stranger')?.error).toBe('not registered: the service does not know this payer');
    expect(byId.get('no-bank')).toMatchObject({
      isCompliant: 'true',
      bankAccounts: 'approved=0 pending=0 failed=0',
      payable: 'false',
      error: 'no bank account given: add one to the rows, then run them',
    });
    expect(byId.get('bank-wait')).toMatchObject({ bankAccounts: 'approved=0 pending=0 failed=0', error: '' });

    // The links offered are the ones each payer still needs.
    expect(reportRow(html, 'kyc-wait')).toEqual({ kind: 'kyc-pending', links: ['KYC'] });
    expect(reportRow(html, 'unsigned')).toEqual({ kind: 'agreement-pending', links: ['agreement'] });
    expect(reportRow(html, 'no-bank')).toEqual({ kind: 'no-bank', links: [] });
    expect(reportRow(html, 'bad-row')).toEqual({ kind: 'fix-rows', links: [] });
    expect(html).toContain(
      '<li data-next="no-bank"><b>compliant, no bank account given</b> (1): add one: their bank columns on the row, or a --bank-details file, then run it</li>',
    );

    // The same payers from the first run's results.csv: its invalid row is a row to fix there too.
    const fromResults = await status({ inputs: [first.summary.outputs.results] });
    expect(fromResults.summary.payers['fix-rows']).toBe(1);
    expect(fromResults.byId.get('bad-row')?.error).toBe(
      'rows to fix: a run refuses them as they are; fix them, then run them',
    );
  });

  it('a payer whose row was fixed since is a payer to run again, not a row to fix', async () => {
    h = await harness({ kycAfter: 0 });
    const broken = h.tmp.write('payers.csv', payersCsv(['p-1'], { 'p-1': { email: 'nope' } }));
    expect((await status({ inputs: [broken] })).summary.payers['fix-rows']).toBe(1);
    const fixed = h.tmp.write('fixed.csv', payersCsv(['p-1']));
    expect((await status({ inputs: [fixed] })).summary.payers['not-registered']).toBe(1);
    // Both files at once: a run refuses the later row too, as a repeat of the payer, so there is a row to fix still.
    expect((await status({ inputs: [broken, fixed] })).summary.payers['fix-rows']).toBe(1);
  });
});
