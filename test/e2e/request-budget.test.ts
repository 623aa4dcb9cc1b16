import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxStats } from '../../src/sandbox/index.js';
import { runStatus } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, NO_BANK, payersCsv } from '../helpers/runHarness.js';

// What each case costs, in requests counted by the sandbox per route: the service caps every key at a few requests
// a second, reads included, so at that cap requests per payer is the tool's speed. The README's "What each case
// costs" states these figures.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(3, '0')}`);

type Counts = Pick<SandboxStats, 'requests' | 'reads' | 'readsNotFound' | 'byRoute'>;

/** The requests the sandbox saw while `step` ran, by route. */
async function counted(step: () => Promise<unknown>): Promise<Counts> {
  const before = h!.sandbox.stats();
  await step();
  const after = h!.sandbox.stats();
  const byRoute = Object.fromEntries(
    Object.entries(after.byRoute).map(([route, n]) => [
      route,
      n - before.byRoute[route as keyof typeof before.byRoute],
    ]),
  ) as Counts['byRoute'];
  return {
    requests: after.requests - before.requests,
    reads: after.reads - before.reads,
    readsNotFound: after.readsNotFound - before.readsNotFound,
    byRoute,
  };
}

/** A service that gates bank accounts on KYC, and a journal that already knows it (one payer run before). */
async function gateKnown() {
  // Bank accounts approved by the provider at once: `status` can call a payer payable.
  h = await harness({ kycAfter: undefined, accountApproveMs: 0 });
  const first = await h.run({ inputs: [h.tmp.write('first.csv', payersCsv(['gate-001']))] });
  expect(first.results[0]!.outcome).toBe('waiting');
  expect(h.sandbox.stats().kycRefusals).toBe(1);
}

/** A bank-details file: one account for each payer. */
function bankCsv(payers: string[]): string {
  const header =
    'clientUserId,bankName,accountName,beneficiaryType,currency,accountNumber,routingNumber,accountType,' +
    'addressLine1,city,state,postalCode,country,dateOfBirth';
  const row = (id: string, i: number) =>
    `${id},First Midwest Bank,Ada Lovelace,individual,USD,${String(100000000 + i)},021000021,checking,` +
    '12 Analytical Way,Springfield,IL,62701,US,1985-12-10';
  return `${header}\n${payers.map(row).join('\n')}\n`;
}

async function status(input: string) {
  const err = memoryStream();
  return runStatus(
    { inputs: [input], baseUrl: h!.sandbox.url, stateDir: h!.tmp.path('state'), out: h!.tmp.path('status'), rate: 0 },
    { cwd: h!.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: err.stream },
  );
}

describe('request budget against a service that gates bank accounts on KYC', () => {
  it('a first run of 100 new payers, the gate known, costs the two writes: no read, no doomed create', async () => {
    await gateKnown();
    const input = h!.tmp.write('payers.csv', payersCsv(ids(100, 'new')));
    let outcomes: string[] = [];
    const cost = await counted(async () => {
      outcomes = (await h!.run({ inputs: [input] })).results.map((r) => r.outcome!);
    });
    expect(outcomes).toEqual(Array(100).fill('waiting'));
    expect(cost.requests).toBeLessThanOrEqual(205);
    expect(cost.readsNotFound).toBe(0);
    expect(cost.byRoute).toMatchObject({ compliance: 100, agreement: 100, 'payment-details': 0 });
    expect(cost.reads).toBe(0);
  });

  it('the lifecycle of a payer with one bank account: at most 5 requests, and one read a recheck', async () => {
    await gateKnown();
    const payers = ids(10, 'life');
    const input = h!.tmp.write('payers.csv', payersCsv(payers));
    const run = () => h!.run({ inputs: [input] });

    const registered = await counted(run);
    expect(registered).toMatchObject({ requests: 20, reads: 0 });
    // `status` while they wait: one read a payer, the accounts read for none (nothing depends on them).
    const waiting = await counted(() => status(input));
    expect(waiting.byRoute).toMatchObject({ 'read-payer': 10, 'read-payment-details': 0 });

    for (const id of payers.slice(0, 5)) h!.sandbox.setKyc(id, 'approved');
    const half = await counted(run);
    // A recheck of each (one read), and the bank accounts of the approved: the read of what each has stored (the
    // journal is one writer's memory), then the create.
    expect(half.byRoute).toMatchObject({ 'read-payer': 10, 'read-payment-details': 5, 'payment-details': 5 });
    expect(half.requests).toBe(20);

    for (const id of payers.slice(5)) h!.sandbox.setKyc(id, 'approved');
    const rest = await counted(run);
    // Those done cost nothing; the rest a recheck, a read of their accounts and a create.
    expect(rest.byRoute).toMatchObject({ 'read-payer': 5, 'read-payment-details': 5, 'payment-details': 5 });
    expect(rest.requests).toBe(15);

    const rechecks = 10 + 5;
    expect(registered.requests + half.requests + rest.requests).toBeLessThanOrEqual(5 * payers.length + rechecks);
    expect(h!.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 10, duplicatePaymentDetails: 0 });

    // `status` once they are payable: the two reads of each, its answer depends on both.
    let payable = 0;
    const asked = await counted(async () => {
      payable = (await status(input)).payers.payable;
    });
    expect(payable).toBe(10);
    expect(asked.byRoute).toMatchObject({ 'read-payer': 10, 'read-payment-details': 10 });
    expect(asked.requests).toBe(20);

    // A re-run of done rows sends nothing.
    expect((await counted(run)).requests).toBe(0);
  });

  it('a lost state dir with the bank accounts in a file of their own: at most 3 requests a row, nothing created', async () => {
    await gateKnown();
    const payers = ids(6, 'sep');
    const input = h!.tmp.write('payers.csv', payersCsv(payers, Object.fromEntries(payers.map((id) => [id, NO_BANK]))));
    const banks = h!.tmp.write('banks.csv', bankCsv(payers));
    const run = () => h!.run({ inputs: [input], bankDetails: banks });
    await run();
    for (const id of payers) h!.sandbox.setKyc(id, 'approved');
    expect((await run()).results.every((r) => r.outcome === 'ok')).toBe(true);
    const stored = h!.sandbox.stats();
    expect(stored.paymentDetailsCreated).toBe(6);

    // The payer rows are answered 200 as payers the service knows; the journal is new, so it knows none of their
    // accounts: each bank row reads what is stored and adopts its own.
    rmSync(h!.tmp.path('state'), { recursive: true, force: true });
    let results: Awaited<ReturnType<typeof run>>['results'] = [];
    const cost = await counted(async () => {
      results = (await run()).results;
    });
    expect(results.map((r) => r.outcome)).toEqual(Array(12).fill('ok'));
    expect(cost.requests).toBeLessThanOrEqual(3 * 12);
    expect(h!.sandbox.stats()).toMatchObject({
      paymentDetailsCreated: stored.paymentDetailsCreated,
      duplicatePaymentDetails: 0,
    });
  });

  it('a lost state dir: at most 3 requests a row, nothing created', async () => {
    await gateKnown();
    const payers = ids(20, 'lost');
    const input = h!.tmp.write('payers.csv', payersCsv(payers));
    await h!.run({ inputs: [input] });
    for (const id of payers.slice(0, 10)) h!.sandbox.setKyc(id, 'approved');
    await h!.run({ inputs: [input] });
    const stored = h!.sandbox.stats();
    expect(stored.paymentDetailsCreated).toBe(10);

    rmSync(h!.tmp.path('state'), { recursive: true, force: true });
    let outcomes: string[] = [];
    const cost = await counted(async () => {
      outcomes = (await h!.run({ inputs: [input] })).results.map((r) => r.outcome!);
    });
    expect(outcomes).toEqual([...Array(10).fill('ok'), ...Array(10).fill('waiting')]);
    expect(cost.requests).toBeLessThanOrEqual(3 * payers.length);
    expect(h!.sandbox.stats()).toMatchObject({
      payersCreated: stored.payersCreated,
      paymentDetailsCreated: stored.paymentDetailsCreated,
      duplicatePaymentDetails: 0,
    });
  });
});
