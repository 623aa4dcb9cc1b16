import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('run: invalid rows', () => {
  it('sends nothing for an invalid row, reports every issue, and the fixed failed file finishes the job', async () => {
    // `P-1` differs from `p-1` only in case: to the service it may be one payer, or two with one SSN.
    const csv = payersCsv(['p-1', 'p-2', 'p-3', 'P-1'], {
      'p-2': { dateOfBirth: '31/12/1980', routingNumber: '021000022' },
      'p-3': { email: 'not-an-email' },
    });
    const input = h.tmp.write('payers.csv', csv);
    const first = await h.run({ inputs: [input] });

    expect(first.summary.exitCode).toBe(1);
    expect(first.summary.rows).toMatchObject({ ok: 1, invalid: 3 });
    expect(h.sandbox.stats().payersCreated).toBe(1);
    expect(h.sandbox.payer('p-2')).toBeUndefined();
    expect(first.results.map((r) => [r.line, r.outcome])).toEqual([
      ['2', 'ok'],
      ['3', 'invalid'],
      ['4', 'invalid'],
      ['5', 'invalid'],
    ]);
    const p2 = first.results[1]!.error;
    expect(p2).toContain(
      'dateOfBirth: must be YYYY-MM-DD, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a)',
    );
    expect(p2).toContain('routingNumber');
    expect(p2).not.toContain('021000022');
    expect(first.results[3]!.error).toContain('the same payer is already on line 2');

    // The failed file holds the three rows, original cells, plus error and completedSteps.
    const failedPath = first.summary.outputs.failed[0]!;
    expect(failedPath.endsWith('failed-payers.csv')).toBe(true);
    const failedText = readFileSync(failedPath, 'utf8');
    const lines = failedText.trim().split('\n');
    expect(lines[0]!.endsWith(',error,completedSteps')).toBe(true);
    expect(lines).toHaveLength(4);

    // The team fixes the cells and deletes the duplicate; the same file, run again, finishes with exit 0.
    const fixed = lines
      .filter((line) => !line.startsWith('P-1,'))
      .join('\n')
      .replace('31/12/1980', '1980-12-31')
      .replace('021000022', '021000021')
      .replace('not-an-email', 'p-3@example.com');
    writeFileSync(failedPath, `${fixed}\n`);
    const second = await h.run({ inputs: [failedPath] });
    expect(second.summary.exitCode).toBe(0);
    expect(second.results.map((r) => [r.clientUserId, r.outcome])).toEqual([
      ['p-2', 'ok'],
      ['p-3', 'ok'],
    ]);
    expect(h.sandbox.stats().payersCreated).toBe(3);
  });

  it('a base URL that ends in the API version is refused with the fix, nothing sent', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['v-1']));
    await expect(h.run({ inputs: [input], baseUrl: `${h.sandbox.url}/v1/` })).rejects.toMatchObject({
      exitCode: 2,
      message: `--base-url: ends in /v1, but the API's paths already start with their version: use ${h.sandbox.url}`,
    });
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('validate checks every row and sends nothing, with no key', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['p-1', 'p-2'], { 'p-2': { country: 'ZZ' } }));
    const { summary, results } = await h.run({ inputs: [input], command: 'validate' }, {});
    expect(summary.exitCode).toBe(1);
    expect(summary.command).toBe('validate');
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'invalid']);
    expect(h.sandbox.stats().requests).toBe(0);
  });
});
