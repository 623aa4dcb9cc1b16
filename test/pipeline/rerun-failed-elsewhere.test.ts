import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, NO_BANK, payersCsv } from '../helpers/runHarness.js';

// A failed file fixed and fed back on another machine (no journal): what the service already stores is read,
// nothing is created twice, and a payer cell changed in the file is noticed through the digest the file carries
// (and said, not sent: the service documents no update of a registered payer).

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A first run whose bank account was stored but whose answer never came: the row fails, the account exists. */
async function failedAfterLostAnswer() {
  h = await harness({ kycAfter: 0 });
  h.sandbox.script([{ route: 'payment-details', fault: 'slow', delayMs: 5000 }]);
  // The other calls must beat the timeout on a loaded machine too; the held answer (5 s) never does.
  const first = await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['e-1']))], retries: 0, timeout: 2 });
  expect(first.results[0]).toMatchObject({
    outcome: 'failed',
    steps: 'compliance=ok payment-details=failed agreement=ok',
  });
  expect(h.sandbox.payer('e-1')!.paymentDetails).toHaveLength(1);
  const failed = first.summary.outputs.failed[0]!;
  const [header, row] = readFileSync(failed, 'utf8').trim().split('\n');
  expect(row).toMatch(/,compliance@[0-9a-f]{6};agreement;from=payers\.csv:2$/);
  // The team fixes the e-mail address in the failed file.
  writeFileSync(failed, `${header}\n${row!.replace('e-1@example.com', 'e-1.new@example.com')}\n`);
  return failed;
}

describe('a failed file fed back where no journal knows it', () => {
  it.each(['/v2/payer', '/v1/payer'] as const)(
    'on %s: the stored account is adopted, and the row says the changed e-mail was not sent',
    async (compliancePath) => {
      const failed = await failedAfterLostAnswer();
      // Another machine: no journal of this one's.
      await h!.store.lose();
      const { summary, results, stderr } = await h!.run({ inputs: [failed], compliancePath });
      expect(results[0]).toMatchObject({
        source: 'payers.csv',
        line: '2',
        outcome: 'ok',
        steps: 'compliance=done-before payment-details=done-before agreement=done-before',
      });
      expect(results[0]!.error).toMatch(
        /^compliance: payer cells changed since the payer was registered and was not sent .*service's dashboard$/,
      );
      expect(summary.exitCode).toBe(0);
      // Said where a person running it sees it, and kept among the run's warnings (summary.json, report.html).
      const note = `1 row went on with a note in its error cell (payer data changed since registration and not sent, or what the service may ask for): see ${summary.outputs.results}`;
      expect(stderr).toContain(`warning: ${note}`);
      expect(summary.warnings).toContain(note);
      expect(h!.sandbox.payer('e-1')!.paymentDetails).toHaveLength(1);
      expect((h!.sandbox.payer('e-1')!.request as { email: string }).email).toBe('e-1@example.com');
      expect(h!.sandbox.stats()).toMatchObject({ payersCreated: 1, duplicatePaymentDetails: 0 });
    },
  );
});

describe('a file of bank rows alone', () => {
  it('goes to payers registered already; a payer the service does not know fails that row', async () => {
    h = await harness({ kycAfter: 0 });
    await h.run({
      inputs: [
        h.tmp.write(
          'payers.csv',
          payersCsv(['b-1'], {
            'b-1': NO_BANK,
          }),
        ),
      ],
    });
    const bank = h.tmp.write(
      'accounts.csv',
      'clientUserId,bankName,accountName,currency,beneficiaryType,addressLine1,city,country,dateOfBirth,postalCode,accountNumber,routingNumber\n' +
        'b-1,Bank,Ada,USD,individual,1 St,City,US,1980-01-01,12345,1234567,021000021\n' +
        'nobody,Bank,Ada,USD,individual,1 St,City,US,1980-01-01,12345,7654321,021000021\n',
    );
    const { results } = await h.run({ inputs: [bank] });
    expect(results.map((r) => [r.clientUserId, r.outcome, r.steps])).toEqual([
      ['b-1', 'ok', 'payment-details=ok'],
      ['nobody', 'failed', 'payment-details=failed'],
    ]);
    expect(results[1]!.error).toBe(
      'payment-details: payer not registered (the service does not know this clientUserId)',
    );
    expect(h.sandbox.payer('b-1')!.paymentDetails).toHaveLength(1);
  });
});
