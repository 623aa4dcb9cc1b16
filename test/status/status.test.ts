import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { runStatus, type StatusInput } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, NO_BANK, payersCsv, type ResultRow } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
afterEach(async () => {
  await h?.close();
});

async function status(input: Omit<StatusInput, 'inputs'> & { inputs: string[] }, key = API_KEY) {
  const err = memoryStream();
  const summary = await runStatus(
    {
      baseUrl: h.sandbox.url,
      stateDir: h.tmp.path('state'),
      rate: 0,
      out: h.tmp.path(`status-${Math.random()}`),
      ...input,
    },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: key }, stderr: err.stream, backoff: { baseMs: 20, maxMs: 200 } },
  );
  const rows = parse(readFileSync(summary.outputs.status, 'utf8'), { columns: true }) as ResultRow[];
  return { summary, rows, stderr: err.text(), byId: new Map(rows.map((r) => [r.clientUserId, r])) };
}

describe('status: where each payer stands', () => {
  it('puts payers in mixed states in the right category, with their links, and reads nothing twice', async () => {
    // The real service's gate: bank accounts wait until KYC is approved; KYC moves only when told.
    h = await harness({ kycAfter: undefined, accountApproveMs: 0 });
    const main = h.tmp.write('payers.csv', payersCsv(['pay-1', 'kyc-rej', 'kyc-pend', 'bank-fail']));
    const noAgreement = h.tmp.write('later.csv', payersCsv(['agree-1'], { 'agree-1': { agreementCompleted: '' } }));
    const first = await h.run({ inputs: [main] });
    await h.run({ inputs: [noAgreement] });
    expect(first.summary.rows.waiting).toBe(4);
    for (const id of ['pay-1', 'bank-fail', 'agree-1']) h.sandbox.setKyc(id, 'approved');
    h.sandbox.setKyc('kyc-rej', 'rejected');
    const second = await h.run({ inputs: [main] });
    await h.run({ inputs: [noAgreement] });
    const failedAccount = second.results.find((r) => r.clientUserId === 'bank-fail')!.paymentDetailId!;
    h.sandbox.setPaymentDetailStatus(failedAccount, 'failed');
    const stranger = h.tmp.write('stranger.csv', payersCsv(['never-run']));

    const before = h.sandbox.stats();
    const { summary, rows, byId, stderr } = await status({ inputs: [main, noAgreement, stranger] });

    expect(rows.map((r) => r.clientUserId)).toEqual([
      'pay-1',
      'kyc-rej',
      'kyc-pend',
      'bank-fail',
      'agree-1',
      'never-run',
    ]);
    expect(byId.get('pay-1')).toMatchObject({
      kycStatus: 'approved',
      agreementStatus: 'completed',
      isCompliant: 'true',
      bankAccounts: 'approved=1 pending=0 failed=0',
      payable: 'true',
      error: '',
    });
    expect(byId.get('pay-1')!.kycUrl).toMatch(/^https?:\/\//);
    expect(byId.get('pay-1')!.userId).not.toBe('');
    expect(byId.get('kyc-rej')).toMatchObject({ kycStatus: 'rejected', payable: 'false' });
    // Not ready for a bank account: its accounts are not read, nothing on its line depends on them.
    expect(byId.get('kyc-pend')).toMatchObject({ kycStatus: 'not_started', bankAccounts: '' });
    expect(byId.get('kyc-pend')!.agreementUrl).toMatch(/^https?:\/\//);
    expect(byId.get('bank-fail')).toMatchObject({ bankAccounts: 'approved=0 pending=0 failed=1', payable: 'false' });
    expect(byId.get('agree-1')).toMatchObject({
      kycStatus: 'approved',
      agreementStatus: 'not_started',
      payable: 'false',
    });
    expect(byId.get('never-run')).toMatchObject({ payable: 'false', kycStatus: 'not_registered' });
    expect(byId.get('never-run')!.error).toMatch(/not registered/);

    expect(summary.payers).toMatchObject({
      total: 6,
      'not-registered': 1,
      'kyc-rejected': 1,
      'kyc-pending': 1,
      'agreement-pending': 1,
      'bank-failed': 1,
      payable: 1,
      unread: 0,
      skipped: 0,
    });
    expect(summary.exitCode).toBe(0);
    // The counts on stderr, in the order people act on them.
    const labels = [
      'not registered',
      'KYC rejected',
      'KYC pending',
      'agreement pending',
      'bank account failed',
      'payable',
    ];
    const at = labels.map((label) => stderr.indexOf(`  ${label} `));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);

    // Reads only: one status read per payer, the accounts read for each payer ready for one (pay-1, bank-fail).
    const after = h.sandbox.stats();
    expect(after.payersCreated).toBe(before.payersCreated);
    expect(after.paymentDetailsCreated).toBe(before.paymentDetailsCreated);
    expect(after.agreementsCompleted).toBe(before.agreementsCompleted);
    expect(summary.requests.total).toBe(6 + 2);
    expect((statSync(summary.outputs.status).mode & 0o777).toString(8)).toBe('600');

    const asked = await status({ inputs: [main, noAgreement, stranger], exitCode: true });
    expect(asked.summary.exitCode).toBe(1);
  });

  it('--exit-code: 1 until every payer is payable, then 0; a results.csv as input gives the same payers', async () => {
    h = await harness({ kycAfter: undefined, accountApproveMs: 0 });
    const input = h.tmp.write(
      'payers.csv',
      payersCsv(['r-1', 'r-2', '=cmd'], { '=cmd': { email: 'cmd@example.com' } }),
    );
    const first = await h.run({ inputs: [input] });
    expect((await status({ inputs: [first.summary.outputs.results], exitCode: true })).summary.exitCode).toBe(1);

    for (const id of ['r-1', 'r-2', '=cmd']) h.sandbox.setKyc(id, 'approved');
    const second = await h.run({ inputs: [input] });
    expect(second.summary.rows.ok).toBe(3);
    const { summary, rows } = await status({ inputs: [second.summary.outputs.results], exitCode: true });
    expect(summary.exitCode).toBe(0);
    expect(summary.payers.payable).toBe(3);
    // A clientUserId a spreadsheet would run as a formula is written guarded, and read back as the payer it is.
    expect(rows.map((r) => r.clientUserId)).toEqual(['r-1', 'r-2', "'=cmd"]);
    expect(rows.every((r) => r.kycUrl !== '' && r.agreementUrl !== '')).toBe(true);
  });

  it('a refused key stops at once: exit 3, every payer skipped with why, summary written', async () => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(Array.from({ length: 30 }, (_, i) => `k-${i}`)));
    const { summary, rows, stderr } = await status({ inputs: [input], concurrency: 2 }, 'wrong-key');
    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.reason).toBe('key-rejected');
    expect(summary.payers.skipped).toBe(30);
    expect(rows.every((r) => r.error?.startsWith('skipped: ') && r.payable === '')).toBe(true);
    expect(rows[0]!.error).toMatch(/key/i);
    expect(statSync(summary.outputs.summary).isFile()).toBe(true);
    expect(stderr).not.toContain('wrong-key');
    // At most the requests already in flight when the first 401 came back.
    expect(h.sandbox.stats().byStatus['401'] ?? 0).toBeLessThanOrEqual(4);
  });

  it("reads a payer's accounts only where its line depends on them: once it is ready for a bank account", async () => {
    h = await harness({ kycAfter: undefined, accountApproveMs: 0 });
    const ids = Array.from({ length: 12 }, (_, i) => `s-${i}`);
    await h.run({ inputs: [h.tmp.write('register.csv', payersCsv(ids))] });
    // Approved since the run: the journal last saw them waiting, so their accounts are read after their status.
    for (const id of ['s-0', 's-1']) h.sandbox.setKyc(id, 'approved');
    const input = h.tmp.write('status.csv', payersCsv(ids, { 's-1': NO_BANK, 's-2': NO_BANK }));

    const before = h.sandbox.stats().byRoute;
    const { summary, byId } = await status({ inputs: [input], concurrency: 2 });
    const after = h.sandbox.stats().byRoute;

    // s-1's bank row is in the run's file, not in the one given: a compliant payer with no bank account given.
    expect(summary.payers).toMatchObject({ 'kyc-pending': 10, 'bank-pending': 1, 'no-bank': 1 });
    // With a bank row in the input or without, a ready payer's accounts decide its line.
    expect(byId.get('s-0')?.bankAccounts).toBe('approved=0 pending=0 failed=0');
    expect(byId.get('s-1')?.bankAccounts).toBe('approved=0 pending=0 failed=0');
    expect(byId.get('s-2')?.bankAccounts).toBe('');
    expect(byId.get('s-3')?.bankAccounts).toBe('');
    expect(after['read-payer'] - before['read-payer']).toBe(12);
    expect(after['read-payment-details'] - before['read-payment-details']).toBe(2);
  });

  it('an input that breaks further down: exit 2 naming file and line, no status.csv for a part of it', async () => {
    h = await harness({ kycAfter: 0 });
    const rows = payersCsv(Array.from({ length: 40 }, (_, i) => `b-${i}`));
    // An opening quote never closed swallows the rest of the file.
    const input = h.tmp.write('broken.csv', `${rows}"b-40,unterminated\n`);
    const out = h.tmp.path('status-broken');
    const error = await runStatus(
      { baseUrl: h.sandbox.url, stateDir: h.tmp.path('state'), rate: 0, out, inputs: [input] },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: memoryStream().stream },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/^broken\.csv:42: /);
    expect(existsSync(join(out, 'status.csv'))).toBe(false);
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
  });
});

describe('status: report.html', () => {
  it('counts the payers by where they stand and lists those not yet payable with their links, loading nothing', async () => {
    h = await harness({ kycAfter: undefined, accountApproveMs: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['rep-1', 'rep-2', 'rep-3']));
    await h.run({ inputs: [input] });
    h.sandbox.setKyc('rep-1', 'approved');
    h.sandbox.setKyc('rep-3', 'rejected');
    await h.run({ inputs: [input] });
    const { summary } = await status({ inputs: [input] });
    const html = readFileSync(summary.outputs.report, 'utf8');
    expect((statSync(summary.outputs.report).mode & 0o777).toString(8)).toBe('600');
    expect(html).toContain('<span class="n" data-count="payable">1</span>');
    expect(html).toContain('<span class="n" data-count="kyc-pending">1</span>');
    expect(html).toContain('<span class="n" data-count="kyc-rejected">1</span>');
    // Rejected before pending (the order people act on them); the payable payer is not in the table.
    // Each by the name and e-mail the payer directory has (the run wrote them), then the id; the rejected one is to
    // contact, not a row to fix.
    const rows = [
      ...html.matchAll(
        /<tr data-kind="([a-z-]+)"><td class="who"><span class="name">([^<]+)<\/span> <span class="email">([^<]+)<\/span> <span class="id">([^<]+)<\/span><\/td>.*?<td class="msg">([^<]*)<\/td>/g,
      ),
    ].map((m) => m.slice(1));
    expect(rows).toEqual([
      ['kyc-rejected', 'Ada Lovelace', 'rep-3@example.com', 'rep-3', 'nothing in their rows is wrong: contact them'],
      ['kyc-pending', 'Ada Lovelace', 'rep-2@example.com', 'rep-2', ''],
    ]);
    expect(html).toContain(
      '<li data-next="kyc-rejected"><b>KYC rejected</b> (1): contact them: the identity check failed</li>',
    );
    expect(html).not.toContain('data-next="fix-rows"');
    // status.csv ends with who the payer is; the rejected payer's note says nothing in the rows is wrong.
    const csv = parse(readFileSync(summary.outputs.status, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(csv[0]!).slice(-2)).toEqual(['name', 'email']);
    expect(csv.find((r) => r.clientUserId === 'rep-3')).toMatchObject({
      name: 'Ada Lovelace',
      email: 'rep-3@example.com',
      error: 'KYC rejected: nothing in their rows is wrong; contact them',
    });
    const kycLink = readFileSync(summary.outputs.status, 'utf8').match(
      /rep-2,[^\n]*?(http:\/\/[^,]*\/kyc\/[^,]*)/,
    )![1]!;
    expect(html).toContain(`<a href="${kycLink}" rel="noreferrer noopener">KYC</a>`);
    expect(html).toContain('<li data-next="kyc-pending"><b>KYC pending</b> (1): send them their KYC link</li>');
    expect(html).toMatch(/Content-Security-Policy" content="default-src &#39;none&#39;/);
    expect(html).not.toMatch(/<(img|link|iframe)\b|src="http/);
  });
});
