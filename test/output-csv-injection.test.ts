import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvSafe, csvUnguard } from '../src/output/CsvFileWriter.js';
import { harness, PAYER_HEADER, payerRow } from './helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('formula injection: what a spreadsheet would run is written as text', () => {
  it.each([
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['+x', "'+x"],
    ['-x', "'-x"],
    ['-', "'-"],
    ['+12175550100', '+12175550100'],
    ['-5', '-5'],
    ['plain', 'plain'],
    ["'=already", "''=already"],
  ])('%j is written %j and read back as it was', (value, written) => {
    expect(csvSafe(value)).toBe(written);
    expect(csvUnguard(csvSafe(value))).toBe(value);
  });

  it("every cell of results.csv is guarded, the input's clientUserId included; the failed file keeps the input's cells", async () => {
    const evil = "=cmd|' /C calc'!A0";
    const input = h.tmp.write(
      '=payers.csv',
      `${PAYER_HEADER}\n${payerRow(evil, { email: 'nope' })}\n${payerRow('-x')}\n${payerRow('p-1')}\n`,
    );
    const { summary } = await h.run({ inputs: [input], command: 'validate' });
    const rows = parse(readFileSync(summary.outputs.results, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.source, r.clientUserId])).toEqual([
      ["'=payers.csv", `'${evil}`],
      ["'=payers.csv", "'-x"],
      ["'=payers.csv", 'p-1'],
    ]);
    const failed = parse(readFileSync(summary.outputs.failed[0]!, 'utf8'), { columns: true, bom: true }) as Record<
      string,
      string
    >[];
    expect(failed[0]!.clientUserId).toBe(evil);
  });
});
