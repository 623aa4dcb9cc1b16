import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness } from '../helpers/runHarness.js';
import { PAYER_COLUMNS, payerCells, payerRows } from '../helpers/xlsxFixtures.js';

// An account number whose digits cannot be trusted is never sent: 000123456789 typed into a General cell is stored
// as the number 123456789, another account that passes every rule of the field.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const ACCOUNT = PAYER_COLUMNS.indexOf('accountNumber') + 1;

describe('run: digits that cannot be trusted are refused', () => {
  it('an .xlsx account number: a General number cell is invalid; a Text cell and a 000000000000 number cell arrive as typed', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Payers');
    const rows = payerRows(['general-1', 'text-1', 'padded-1'], {
      'general-1': { accountNumber: 123456789 },
      'padded-1': { accountNumber: 123456789 },
    });
    for (const row of rows) sheet.addRow(row);
    sheet.getRow(3).getCell(ACCOUNT).numFmt = '@';
    sheet.getRow(4).getCell(ACCOUNT).numFmt = '000000000000';
    const input = h.tmp.path('payers.xlsx');
    await workbook.xlsx.writeFile(input);

    const { summary, results } = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(summary.exitCode).toBe(1);
    expect(results.map((r) => [r.clientUserId, r.outcome])).toEqual([
      ['general-1', 'invalid'],
      ['text-1', 'ok'],
      ['padded-1', 'ok'],
    ]);
    expect(results[0]!.error).toBe(
      'accountNumber: is a number cell of 9 digits, which may have lost leading zeros: format the column as Text and type the value again',
    );
    expect(h.sandbox.payer('general-1')).toBeUndefined();
    for (const id of ['text-1', 'padded-1']) {
      const stored = h.sandbox.payer(id)!.paymentDetails;
      expect(stored).toHaveLength(1);
      expect(stored[0]!.request).toMatchObject({ accountNumber: '000123456789' });
    }
  });

  it('a JSONL accountNumber given as a number is invalid, named, and nothing of that row is sent', async () => {
    const line = (id: string, accountNumber: unknown) =>
      JSON.stringify({ ...payerCells(id), dateOfBirth: '1985-12-10', accountNumber });
    const input = h.tmp.write('payers.jsonl', `${line('j-1', 123456789)}\n${line('j-2', '000123456789')}\n`);

    const { summary, results } = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(summary.exitCode).toBe(1);
    expect(results.map((r) => [r.clientUserId, r.outcome, r.error])).toEqual([
      [
        'j-1',
        'invalid',
        'accountNumber: is a JSON number, which cannot keep leading zeros: write it as a string with all its digits ("accountNumber": "...")',
      ],
      ['j-2', 'ok', ''],
    ]);
    expect(h.sandbox.payer('j-1')).toBeUndefined();
    expect(h.sandbox.payer('j-2')!.paymentDetails[0]!.request).toMatchObject({ accountNumber: '000123456789' });
  });
});
