import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/core/errors.js';
import { harness, payerRow, PAYER_HEADER, payersCsv, readBackPayerRows } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** The steps the first row of a failed file says are done, as the next run reads it, and any issue with that cell. */
const carriedSteps = async (path: string) => {
  const [first] = await readBackPayerRows(path);
  return {
    steps: first!.completedSteps,
    cellIssues: first!.ok ? [] : first!.issues.filter((issue) => issue.column === 'completedSteps'),
  };
};

const failedFile = (rows: Array<[string, Record<string, string>, string]>) =>
  `${PAYER_HEADER},error,completedSteps\n${rows.map(([id, over, done]) => `${payerRow(id, over)},old error,${done}`).join('\n')}\n`;

describe('steps a row already carried stay done', () => {
  it('an invalid row of a failed file keeps its completedSteps in the next failed file', async () => {
    const input = h.tmp.write(
      'failed-payers.csv',
      failedFile([['c-1', { email: 'not-an-email' }, 'compliance;payment-details']]),
    );
    const { summary } = await h.run({ inputs: [input] });
    expect(await carriedSteps(summary.outputs.failed[0]!)).toEqual({
      steps: ['compliance', 'payment-details'],
      cellIssues: [],
    });
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('a row run with fewer --steps keeps the steps it carried, plus the ones done now', async () => {
    const input = h.tmp.write('failed-payers.csv', failedFile([['c-2', {}, 'payment-details']]));
    h.sandbox.script([
      {
        route: 'agreement',
        status: 400,
        body: { statusCode: 400, message: 'agreementCompleted must be provided', error: 'Bad Request' },
      },
    ]);
    const { summary, results } = await h.run({ inputs: [input], steps: 'compliance,agreement' });
    expect(results[0]).toMatchObject({ outcome: 'failed', steps: 'compliance=ok agreement=failed' });
    expect(await carriedSteps(summary.outputs.failed[0]!)).toEqual({
      steps: ['compliance', 'payment-details'],
      cellIssues: [],
    });
  });

  it('bank-details rows respect --steps', async () => {
    const payers = h.tmp.write('payers.csv', payersCsv(['s-1']));
    const bank = h.tmp.write(
      'bank.csv',
      'clientUserId,bankName,accountName,currency,beneficiaryType,addressLine1,city,country,dateOfBirth,postalCode,accountNumber,routingNumber\ns-1,Bank,Ada,USD,individual,1 St,City,US,1980-01-01,12345,1234567,021000021\n',
    );
    const { results } = await h.run({ inputs: [payers], bankDetails: bank, steps: 'compliance' });
    expect(h.sandbox.stats()).toMatchObject({ payersCreated: 1, paymentDetailsCreated: 0 });
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok']);
  });
});

describe('the same bank account twice in one row', () => {
  it('is sent once, and both entries get its id', async () => {
    const account = {
      bankName: 'Thames Bank',
      accountName: 'Ada',
      currency: 'GBP',
      accountNumber: '31926819',
      sortCode: '601613',
    };
    const line = JSON.stringify({
      clientUserId: 'j-1',
      email: 'j-1@example.com',
      firstName: 'A',
      lastName: 'B',
      beneficiaryType: 'individual',
      dateOfBirth: '1980-01-01',
      addressLine1: '1 St',
      city: 'London',
      state: 'LND',
      postcode: 'W1U 4EG',
      country: 'GB',
      nationality: 'GB',
      phone: '+442079460000',
      ssn: '1',
      paymentDetails: [account, account],
    });
    const { results } = await h.run({ agreementSignedElsewhere: true, inputs: [h.tmp.write('p.jsonl', `${line}\n`)] });
    expect(h.sandbox.stats().paymentDetailsCreated).toBe(1);
    expect(h.sandbox.stats().requests).toBe(4); // compliance and the read of stored accounts, then one create and the agreement
    const [first, second] = results[0]!.paymentDetailId!.split(';');
    expect(first).toBe(second);
    expect(results[0]!.outcome).toBe('ok');
  });
});

describe('interrupted before sending', () => {
  it('a signal while the input is checked sends nothing and exits 3', async () => {
    const controller = new AbortController();
    controller.abort('SIGINT');
    const error = await h
      .run({ inputs: [h.tmp.write('payers.csv', payersCsv(['i-1']))] }, undefined, controller.signal)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as AbortedError).exitCode).toBe(3);
    expect(h.sandbox.stats().requests).toBe(0);
  });
});
