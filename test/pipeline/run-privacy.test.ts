import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness({ fault500: 0.2, seed: 3 });
});
afterEach(async () => {
  await h.close();
});

const SECRETS = {
  ssn: '987-65-4321',
  accountNumber: '55501234567',
  routingNumber: '011000015',
  dateOfBirth: '1971-04-03',
  email: 'private.person@example.org',
  phone: '+16175550999',
};

describe('run: no key and no personal value in logs, stderr or results.csv', () => {
  it('even at --log-level trace, with failures and invalid rows', async () => {
    const csv = payersCsv(['s-1', 's-2', 's-3'], {
      's-1': SECRETS,
      's-2': {
        ...SECRETS,
        email: 'private.person2@example.org',
        routingNumber: '011000016',
        accountNumber: '55509999999',
      },
      's-3': { ...SECRETS, email: 'private.person3@example.org', dateOfBirth: '03/04/1971' },
    });
    const { summary, stderr } = await h.run({
      inputs: [h.tmp.write('payers.csv', csv)],
      logLevel: 'trace',
      retries: 1,
    });
    const log = readFileSync(summary.outputs.log, 'utf8');
    const results = readFileSync(summary.outputs.results, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(log).toContain('"level":20'); // request-level lines were written
    for (const text of [log, stderr, results, JSON.stringify(summary)]) {
      expect(text).not.toContain(API_KEY);
      for (const value of [
        ...Object.values(SECRETS),
        'private.person2@example.org',
        '011000016',
        '55509999999',
        '03/04/1971',
      ]) {
        expect(text).not.toContain(value);
      }
    }
  });
});
