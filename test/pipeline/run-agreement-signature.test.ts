import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

// The agreement is the payer's to sign: a run completes it only where the row says the team collected the
// signature, or where the operator states it for the whole file. A blank cell never sends the PATCH.

let h: Awaited<ReturnType<typeof harness>>;
afterEach(async () => {
  await h?.close();
});

const signedBy = (cells: Record<string, string>) =>
  Object.fromEntries(Object.entries(cells).map(([id, agreementCompleted]) => [id, { agreementCompleted }]));

describe('the agreement only on a signature', () => {
  it('a blank cell sends no PATCH: the payer waits on their signature, and nothing else of the row is held back', async () => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['b-1', 'b-2'], signedBy({ 'b-1': '', 'b-2': 'no' })));
    const { summary, results } = await h.run({ inputs: [input] });

    expect(h.sandbox.stats().byRoute.agreement).toBe(0);
    expect(summary.rows.waiting).toBe(2);
    for (const row of results) {
      expect(row).toMatchObject({ outcome: 'waiting', agreementCompleted: 'false' });
      expect(row.steps).toContain('agreement=waiting');
      expect(row.error).toContain('agreement: waiting for the agreement: the payer signs it on their page');
    }
    // The sandbox gates bank accounts on KYC alone, which is approved at creation here: the account is stored.
    expect(h.sandbox.payer('b-1')!.paymentDetails).toHaveLength(1);
  });

  it.each([
    ['yes', 'yes'],
    ['x', 'x'],
    ['the day it was collected', '2024-03-01'],
  ])('a row that says the team collected it (%s) completes it with the registration', async (_, cell) => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['s-1'], signedBy({ 's-1': cell })));
    const { results } = await h.run({ inputs: [input] });
    expect(results[0]).toMatchObject({ outcome: 'ok', agreementCompleted: 'true' });
    expect(h.sandbox.stats().agreementsCompleted).toBe(1);
  });

  it('--agreement-signed-elsewhere completes the blank rows, never a "no", and is said on stderr, in the summary, the report and the log', async () => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['e-1', 'e-2'], signedBy({ 'e-1': '', 'e-2': 'no' })));
    const { summary, results, stderr } = await h.run({ inputs: [input], agreementSignedElsewhere: true });

    expect(results.map((r) => [r.clientUserId, r.outcome, r.agreementCompleted])).toEqual([
      ['e-1', 'ok', 'true'],
      ['e-2', 'waiting', 'false'],
    ]);
    expect(h.sandbox.stats().agreementsCompleted).toBe(1);
    const statement = /--agreement-signed-elsewhere: you state that every payer of these files signed the agreement/;
    expect(stderr).toMatch(statement);
    expect(summary.warnings.join('\n')).toMatch(statement);
    expect(readFileSync(summary.outputs.report, 'utf8')).toMatch(statement);
    expect(readFileSync(summary.outputs.log, 'utf8')).toMatch(statement);
  });

  it('the payer signs in the service meanwhile: the next run finds it completed and attaches the bank account', async () => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['m-1'], signedBy({ 'm-1': '' })));
    await h.run({ inputs: [input] });
    // What the service's own frame leads to: the platform's PATCH once the payer signed there.
    const signed = await fetch(`${h.sandbox.url}/v2/payer/m-1`, {
      method: 'PATCH',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ agreementCompleted: true }),
    });
    expect(signed.status).toBe(200);
    const before = h.sandbox.stats().byRoute.agreement;

    const { results } = await h.run({ inputs: [input] });
    expect(results[0]).toMatchObject({ outcome: 'ok', agreementCompleted: 'true' });
    expect(results[0]!.steps).toContain('agreement=done-before');
    expect(h.sandbox.stats().byRoute.agreement).toBe(before);
    expect(h.sandbox.payer('m-1')!.paymentDetails).toHaveLength(1);
  });

  it('is a statement about the files of one run: inbox and serve do not take it', async () => {
    h = await harness();
    for (const command of [['inbox', h.tmp.dir], ['serve']]) {
      const err = memoryStream();
      const io = {
        stdout: memoryStream().stream,
        stderr: err.stream,
        env: {},
        cwd: h.tmp.dir,
        signal: new AbortController().signal,
      };
      expect(await cli([...command, '--agreement-signed-elsewhere'], io)).toBe(2);
      expect(err.text()).toMatch(/Unknown arguments?: .*agreement-signed-elsewhere/);
    }
  });

  it.each([
    ['--complete-agreement', /--complete-agreement is gone: .*--agreement-signed-elsewhere/],
    ['--no-complete-agreement', /--no-complete-agreement is gone: .*drop the flag/],
  ])('%s, the flag of an earlier version, exits 2 naming what replaces it', async (flag, said) => {
    h = await harness();
    const err = memoryStream();
    const io = {
      stdout: memoryStream().stream,
      stderr: err.stream,
      env: {},
      cwd: h.tmp.dir,
      signal: new AbortController().signal,
    };
    const code = await cli(['run', 'payers.csv', flag], io);
    expect(code).toBe(2);
    expect(err.text()).toMatch(said);
  });
});

describe('a service that records the agreement only once KYC is approved', () => {
  it('the signature waits like a bank account: each refused PATCH sent once, none resent, and it goes out once the payer is approved', async () => {
    h = await harness({ kycAfter: undefined, agreementGate: true });
    const input = h.tmp.write('payers.csv', payersCsv(['g-1', 'g-2']));
    const first = await h.run({ inputs: [input] });
    expect(first.results.map((r) => [r.outcome, r.agreementCompleted])).toEqual([
      ['waiting', 'false'],
      ['waiting', 'false'],
    ]);
    expect(first.results[0]!.steps).toContain('agreement=waiting');
    expect(first.results[0]!.error).toContain('signed, waiting for KYC approval before the service records it');
    // Not retried, and not counted as the API failing: at most one refusal a payer, each counted as expected.
    const refused = h.sandbox.stats().agreementRefusals;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(2);
    expect(first.summary.requests.refused?.beforeKyc).toBe(refused + h.sandbox.stats().kycRefusals);
    expect(first.summary.requests.retries).toBe(0);

    // Run again with a file that says nothing of signatures: the store kept them.
    h.sandbox.setKyc('g-1', 'approved');
    const unsigned = h.tmp.write(
      'again.csv',
      payersCsv(['g-1', 'g-2'], { 'g-1': { agreementCompleted: '' }, 'g-2': { agreementCompleted: '' } }),
    );
    const second = await h.run({ inputs: [unsigned] });
    expect(second.results.map((r) => [r.clientUserId, r.outcome, r.agreementCompleted])).toEqual([
      ['g-1', 'ok', 'true'],
      ['g-2', 'waiting', 'false'],
    ]);
    expect(h.sandbox.stats().agreementsCompleted).toBe(1);
    expect(h.sandbox.payer('g-1')!.paymentDetails).toHaveLength(1);
    expect(h.sandbox.stats().agreementRefusals - refused).toBeLessThanOrEqual(1);
  });

  it('many signed payers at once: the refusals never stop the run as an API down', async () => {
    h = await harness({ kycAfter: undefined, agreementGate: true });
    const ids = Array.from({ length: 30 }, (_, i) => `m-${i}`);
    const { summary } = await h.run({ inputs: [h.tmp.write('many.csv', payersCsv(ids))], concurrency: 16 });
    expect(summary.exitCode).toBe(0);
    expect(summary.rows.waiting).toBe(30);
    expect(h.sandbox.stats().agreementRefusals).toBeLessThanOrEqual(16);
  });
});
