import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { runStatus } from '../../src/status/runStatus.js';
import { crashAtCreate } from '../helpers/testStore.js';
import { API_KEY, harness, memoryStream, NO_BANK, payersCsv } from '../helpers/runHarness.js';

// What exactly-once rests on when the service's reads show little: ids, and the service's own verdict. The sandbox
// lists stored accounts as only id, userId, bankName and status (--bare-reads), and reports an approved KYC as
// `completed` (--kyc-word), both as the service's published documents allow.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

/** A bank-details file of the payer's accounts, one row each, at the same bank. */
function bankCsv(clientUserId: string, accountNumbers: string[]): string {
  const header =
    'clientUserId,bankName,accountName,beneficiaryType,currency,accountNumber,routingNumber,accountType,' +
    'addressLine1,city,state,postalCode,country,dateOfBirth';
  const row = (n: string) =>
    `${clientUserId},First Midwest Bank,Ada Lovelace,individual,USD,${n},021000021,checking,` +
    '12 Analytical Way,Springfield,IL,62701,US,1985-12-10';
  return `${header}\n${accountNumbers.map(row).join('\n')}\n`;
}

/** Stores an account for the payer as someone else would (another tool, the portal); gives its id. */
async function addAccount(clientUserId: string, bankName: string): Promise<string> {
  const answer = await fetch(`${h!.sandbox.url}/v2/payer/${clientUserId}/payment-details`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      bankName,
      accountName: 'Ada Lovelace',
      currency: 'USD',
      accountNumber: '555566667777',
      routingNumber: '021000021',
      beneficiaryType: 'individual',
      country: 'US',
      city: 'Springfield',
      addressLine1: '12 Analytical Way',
      postalCode: '62701',
      state: 'IL',
      dateOfBirth: '1985-12-10',
    }),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { payment_detail: { id: string } }).payment_detail.id;
}

/** Every payer holds exactly one stored account, and the sandbox saw no account created twice. */
function expectOneAccountEach(payers: string[]): void {
  for (const id of payers) expect(h!.sandbox.payer(id)!.paymentDetails, id).toHaveLength(1);
  expect(h!.sandbox.stats().duplicatePaymentDetails).toBe(0);
}

describe('bank accounts by ids, against reads that show no numbers', () => {
  it('creates that are answered 500 after they were made are settled by the one new id: nothing twice', async () => {
    h = await harness({ bareReads: true, faultCommit500: 0.2, seed: 11 });
    const payers = ids(30, 'c5');
    const input = h.tmp.write('payers.csv', payersCsv(payers));
    const { summary, results } = await h.run({ inputs: [input], concurrency: 6, retries: 10 });
    expect(results.filter((r) => r.outcome !== 'ok')).toEqual([]);
    expect(summary.requests.byStatus['500']).toBeGreaterThan(5);
    expectOneAccountEach(payers);
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(30);
    // Each row names the account the service holds for it.
    for (const row of results)
      expect(row.paymentDetailId).toBe(h.sandbox.payer(row.clientUserId!)!.paymentDetails[0]!.id);

    // The same file with the state dir deleted (the faults still on): nothing created, every row ok.
    await h.store.lose();
    const again = await h.run({ inputs: [input], concurrency: 6, retries: 10 });
    expect(again.results.filter((r) => r.outcome !== 'ok')).toEqual([]);
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(30);
    expectOneAccountEach(payers);
  });

  it("the same file with the state dir deleted creates nothing: each payer's one account is adopted", async () => {
    h = await harness({ bareReads: true });
    const payers = ids(12, 'ls');
    const input = h.tmp.write('payers.csv', payersCsv(payers));
    expect((await h.run({ inputs: [input] })).summary.exitCode).toBe(0);
    const created = h.sandbox.stats().paymentDetailsCreated;

    await h.store.lose();
    const { summary, results } = await h.run({ inputs: [input] });
    expect(summary.exitCode).toBe(0);
    expect(results.map((r) => r.steps)).toEqual(
      Array(12).fill('compliance=done-before payment-details=done-before agreement=done-before'),
    );
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(created);
    expectOneAccountEach(payers);
  });

  it('an answer lost in a crash is settled by the ids the journal noted when the create went out', async () => {
    h = await harness({ bareReads: true });
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const baseUrl = crash.url;
      await h.run({ inputs: [h.tmp.write('registered.csv', payersCsv(['cr-1'], { 'cr-1': NO_BANK }))], baseUrl });
      // The payer already has an account at the same bank, which the read cannot tell from the row's: a person
      // checked it is not the row's, and the row's is created.
      const other = await addAccount('cr-1', 'First Midwest Bank');
      const input = h.tmp.write('payers.csv', payersCsv(['cr-1']));
      crash.arm();
      const running = h.run({ inputs: [input], createUnmatchedAccounts: true, baseUrl });
      // The process dies once the create went out: the journal has its sent record (with the ids before it), nothing after.
      const image = await crash.imageAtCreate(h.store);
      expect((await running).results[0]!.outcome).toBe('ok');
      await image.restore();
      expect(await h.store.callsInDoubt()).toEqual([{ b: JSON.stringify([other]) }]);
      // Meanwhile someone added an account at another bank: not the one the create made either.
      await addAccount('cr-1', 'Another Bank');
      const made = h.sandbox.payer('cr-1')!.paymentDetails[1]!.id;

      const { results } = await h.run({ inputs: [input], baseUrl });
      expect(results[0]).toMatchObject({ outcome: 'ok', paymentDetailId: made });
      expect(h.sandbox.payer('cr-1')!.paymentDetails).toHaveLength(3);
    } finally {
      await crash.close();
    }
  });

  it('where the stored accounts cannot be told apart, nothing is created: the row names them and the way on', async () => {
    h = await harness({ bareReads: true });
    // The payer has two accounts at the same bank, from two files; then the state dir is lost.
    await h.run({ inputs: [h.tmp.write('first.csv', payersCsv(['tw-1']))] });
    const second = h.tmp.write('second.csv', payersCsv(['tw-1'], { 'tw-1': { accountNumber: '000999888777' } }));
    const added = await h.run({ inputs: [second] });
    expect(added.results[0]!.steps).toBe('compliance=done-before payment-details=ok agreement=done-before');
    expect(h.sandbox.payer('tw-1')!.paymentDetails).toHaveLength(2);

    await h.store.lose();
    const { summary, results } = await h.run({ inputs: [second] });
    expect(summary.exitCode).toBe(1);
    const stored = h.sandbox.payer('tw-1')!.paymentDetails.map((d) => d.id);
    expect(results[0]!.outcome).toBe('failed');
    expect(results[0]!.error).toBe(
      'payment-details: not sent: the service lists 2 bank accounts for this payer that its reads do not show ' +
        'enough of to compare with this row (no account number, IBAN or their last 4 digits): ' +
        `First Midwest Bank (id ${stored[0]}), First Midwest Bank (id ${stored[1]}). If one of them is this row's ` +
        "account, add payment-details to the row's completedSteps cell; if none is, run the row again with " +
        '--create-unmatched-accounts',
    );
    expect(h.sandbox.payer('tw-1')!.paymentDetails).toHaveLength(2);

    // A person checked: the row's account is one of them. Its completedSteps says so, and the run sends nothing.
    const failed = readFileSync(summary.outputs.failed[0]!, 'utf8');
    const fixed = failed.replace(/,compliance@([0-9a-f]+)(;[^,\n]*)?$/m, ',compliance@$1;payment-details$2');
    expect(fixed).not.toBe(failed);
    const again = await h.run({ inputs: [h.tmp.write('fixed.csv', fixed)] });
    expect(again.results[0]).toMatchObject({ outcome: 'ok' });
    expect(again.results[0]!.steps).toContain('payment-details=done-before');
    expect(h.sandbox.payer('tw-1')!.paymentDetails).toHaveLength(2);
  });

  it('--create-unmatched-accounts creates the account a person has checked is not among them', async () => {
    h = await harness({ bareReads: true });
    await h.run({ inputs: [h.tmp.write('a.csv', payersCsv(['un-1']))] });
    await h.run({ inputs: [h.tmp.write('b.csv', payersCsv(['un-1'], { 'un-1': { accountNumber: '000999888777' } }))] });
    await h.store.lose();
    const third = h.tmp.write('c.csv', payersCsv(['un-1'], { 'un-1': { accountNumber: '000111222333' } }));
    expect((await h.run({ inputs: [third] })).results[0]!.outcome).toBe('failed');
    const { results } = await h.run({ inputs: [third], createUnmatchedAccounts: true });
    expect(results[0]).toMatchObject({ outcome: 'ok' });
    expect(results[0]!.steps).toContain('payment-details=ok');
    expect(h.sandbox.payer('un-1')!.paymentDetails).toHaveLength(3);
  });

  it('a new account for a payer the journal knows is created, not taken for the account it already has', async () => {
    h = await harness({ bareReads: true });
    await h.run({ inputs: [h.tmp.write('a.csv', payersCsv(['nw-1']))] });
    // Only the new row, in a file of its own: the stored account is the other row's, as the journal knows.
    const { results } = await h.run({
      inputs: [h.tmp.write('b.csv', payersCsv(['nw-1'], { 'nw-1': { accountNumber: '000999888777' } }))],
    });
    expect(results[0]!.steps).toBe('compliance=done-before payment-details=ok agreement=done-before');
    expect(h.sandbox.payer('nw-1')!.paymentDetails).toHaveLength(2);
  });

  it('several bank rows of one payer are created one after the other, each settled by its own new id', async () => {
    h = await harness({ bareReads: true });
    // The first two creates of the payer are stored and answered 500: only ids can tell which is whose.
    h.sandbox.script([{ route: 'payment-details', fault: 'commit500', times: 2 }]);
    const payers = h.tmp.write('payers.csv', payersCsv(['mb-1'], { 'mb-1': NO_BANK }));
    const bankFile = h.tmp.write('bank.csv', bankCsv('mb-1', ['000000000111', '000000000222', '000000000333']));
    const { results } = await h.run({ inputs: [payers], bankDetails: bankFile, concurrency: 4 });
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const stored = h.sandbox.payer('mb-1')!.paymentDetails;
    expect(stored).toHaveLength(3);
    // Each row holds the account made from its own numbers.
    for (const row of results.slice(1)) {
      const account = stored.find((d) => d.id === row.paymentDetailId)!;
      const line = readFileSync(bankFile, 'utf8').split('\n')[Number(row.line) - 1]!;
      expect(line).toContain((account.request as { accountNumber: string }).accountNumber);
    }
  });
});

describe('a crash between a create and its answer, with another account of the payer in the next file', () => {
  it('the account that create made is not taken by the other row, which creates its own', async () => {
    h = await harness({ bareReads: true });
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const baseUrl = crash.url;
      crash.arm();
      const running = h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['cx-1']))], baseUrl });
      // The process died once the create had gone out: the journal ends with its sent record.
      const image = await crash.imageAtCreate(h.store);
      await running;
      await image.restore();
      const made = h.sandbox.payer('cx-1')!.paymentDetails[0]!.id;

      // The next file has a new account of the payer first, then the one in doubt, at the same bank.
      const file = h.tmp.write('bank.csv', bankCsv('cx-1', ['000555000555', '000123456789']));
      const { results } = await h.run({ inputs: [file], baseUrl });
      expect(results.map((r) => [r.line, r.outcome, r.steps])).toEqual([
        ['2', 'ok', 'payment-details=ok'],
        ['3', 'ok', 'payment-details=done-before'],
      ]);
      expect(results[1]!.paymentDetailId).toBe(made);
      const stored = h.sandbox.payer('cx-1')!.paymentDetails;
      expect(stored.map((d) => (d.request as { accountNumber: string }).accountNumber).sort()).toEqual([
        '000123456789',
        '000555000555',
      ]);
    } finally {
      await crash.close();
    }
  });
});

describe('approval as the service words it', () => {
  it('KYC reported `completed`: accounts attached on the next run, and status says payable', async () => {
    h = await harness({ kycAfter: undefined, kycWord: 'completed', accountApproveMs: 0 });
    const payers = ids(4, 'kw');
    const input = h.tmp.write('payers.csv', payersCsv(payers));
    const first = await h.run({ inputs: [input] });
    expect(first.results.map((r) => r.outcome)).toEqual(Array(4).fill('waiting'));

    for (const id of payers.slice(0, 2)) h.sandbox.setKyc(id, 'completed');
    const second = await h.run({ inputs: [input] });
    expect(second.results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'waiting', 'waiting']);
    expect(second.results[0]).toMatchObject({ kycStatus: 'completed', error: '' });
    expect(second.results[2]!.error).toBe('payment-details: waiting for KYC approval (kycStatus not_started)');
    for (const id of payers.slice(0, 2)) expect(h.sandbox.payer(id)!.paymentDetails).toHaveLength(1);

    const err = memoryStream();
    const summary = await runStatus(
      { inputs: [input], baseUrl: h.sandbox.url, stateDir: h.tmp.path('state'), rate: 0, out: h.tmp.path('status') },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream },
    );
    const rows = parse(readFileSync(summary.outputs.status, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.clientUserId, r.kycStatus, r.payable])).toEqual([
      ['kw-1', 'completed', 'true'],
      ['kw-2', 'completed', 'true'],
      ['kw-3', 'not_started', 'false'],
      ['kw-4', 'not_started', 'false'],
    ]);
    expect(summary.payers).toMatchObject({ payable: 2, 'kyc-pending': 2 });
  });
});
