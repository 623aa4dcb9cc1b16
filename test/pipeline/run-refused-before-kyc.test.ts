import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

// The real service refuses a bank account (HTTP 500) until its payer's KYC is approved; the run expects it. Such a
// refusal is counted as what it is wherever requests are counted, never as a 500 that reads as a fault.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('bank accounts refused before KYC', () => {
  it('are counted apart from the answers by status in the summary, on stderr, in run.log and in report.html', async () => {
    // The gate as the real service has it, and no payer approved.
    h = await harness({ kycAfter: undefined });
    const input = h.tmp.write('payers.csv', payersCsv(['g-1', 'g-2', 'g-3', 'g-4']));
    const { summary, stderr } = await h.run({ inputs: [input], concurrency: 4 });

    expect(summary.rows.waiting).toBe(4);
    expect(summary.exitCode).toBe(0);
    const refused = summary.requests.refused?.beforeKyc ?? 0;
    // Every refusal the sandbox answered, and nothing else, is counted as one.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBe(h.sandbox.stats().kycRefusals);
    expect(summary.requests.refused).toEqual({ beforeKyc: refused, beforeAgreement: 0 });
    // The rest is what a first run gets: 200s, and 404s of reads for payers the service does not know yet.
    const { byStatus } = summary.requests;
    expect(Object.keys(byStatus).sort()).toEqual(['200', '404']);
    expect(byStatus['200']! + byStatus['404']! + refused).toBe(summary.requests.total);
    const answers = `200: ${byStatus['200']}, 404: ${byStatus['404']}, refused before KYC: ${refused}`;

    expect(stderr).toContain(
      `  requests: ${summary.requests.total} (${answers}), retries: 0\n` +
        '  refused: expected, not errors: the service takes a bank account (or records an agreement) only once its payer is approved; it is sent then\n',
    );
    expect(stderr).not.toMatch(/\b500: /);

    const finished = readFileSync(summary.outputs.log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { msg: string; requests?: unknown })
      .find((line) => line.msg === 'run finished');
    expect(finished?.requests).toEqual(summary.requests);

    const html = readFileSync(summary.outputs.report, 'utf8');
    expect(html).toContain(`requests (${answers}), 0 retries`);
    expect(html).not.toMatch(/\b500: /);
    expect(JSON.parse(readFileSync(summary.outputs.summary, 'utf8')).requests).toEqual(summary.requests);
  });

  it('leave no refusal count where the service took every account', async () => {
    h = await harness({ kycAfter: 0 });
    const input = h.tmp.write('payers.csv', payersCsv(['a-1', 'a-2']));
    const { summary, stderr } = await h.run({ inputs: [input] });
    expect(summary.rows.ok).toBe(2);
    expect(summary.requests.refused).toBeUndefined();
    expect(stderr).not.toContain('refused');
  });
});
