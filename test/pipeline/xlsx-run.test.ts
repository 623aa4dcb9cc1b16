import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness } from '../helpers/runHarness.js';
import { PAYER_COLUMNS, payerRows, readWorkbook, writeWorkbook } from '../helpers/xlsxFixtures.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const TEXT = ['postcode', 'ssn', 'accountNumber', 'routingNumber', 'phone'];

describe('run: an .xlsx of payers', () => {
  it('sends date cells as YYYY-MM-DD and text-formatted numbers exactly as typed', async () => {
    const input = await writeWorkbook(h.tmp.path('payers.xlsx'), [
      { name: 'Payers', textColumns: TEXT, rows: payerRows(['x-1', 'x-2']) },
    ]);
    const { summary, results } = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(summary.exitCode).toBe(0);
    expect(results.map((r) => [r.source, r.line, r.outcome])).toEqual([
      ['payers.xlsx', '2', 'ok'],
      ['payers.xlsx', '3', 'ok'],
    ]);
    const stored = h.sandbox.payer('x-1')!;
    expect(stored.request).toMatchObject({ dateOfBirth: '1985-12-10', postcode: '02101', phone: '+12175550100' });
    expect(stored.paymentDetails[0]!.request).toMatchObject({
      routingNumber: '021000021',
      accountNumber: '000123456789',
      postalCode: '02101',
      dateOfBirth: '1985-12-10',
    });
    expect(summary.outputs.failed).toEqual([]);
  });

  it('names lost leading zeros, returns failed-<name>.xlsx with the cells in error marked, and the fixed file runs clean', async () => {
    // Excel took these columns for numbers: the zeros and the + are gone.
    const damaged = { routingNumber: 21000021, postcode: 2101, phone: 12175550100, accountNumber: 123456789 };
    const rows = payerRows(['z-1', 'z-2', 'z-3'], { 'z-1': damaged, 'z-3': { routingNumber: 21000021 } });
    const input = await writeWorkbook(h.tmp.path('payers.xlsx'), [{ name: 'Payers', rows }]);
    const first = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(first.summary.exitCode).toBe(1);
    const bad = first.results.find((r) => r.clientUserId === 'z-1')!;
    expect(bad.outcome).toBe('invalid');
    expect(bad.error).toContain(
      'routingNumber: is a number cell of 8 digits, and a routing number has 9: the spreadsheet dropped a leading zero: format the column as Text and type the value again',
    );
    expect(bad.error).toContain(
      'postcode: is a number cell of 4 digits, and a postal code in US has 5: the spreadsheet dropped a leading zero: format the column as Text and type the value again, got "2101"',
    );
    expect(bad.error).toContain(
      'phone: is a number cell, which cannot keep a leading + or 0: format the column as Text and type the number with + and its country code',
    );
    expect(bad.error).toContain(
      'accountNumber: is a number cell of 9 digits, which may have lost leading zeros: format the column as Text and type the value again',
    );
    expect(bad.error).not.toContain('21000021');
    expect(bad.error).not.toContain('123456789');
    expect(first.results.map((r) => r.outcome)).toEqual(['invalid', 'ok', 'invalid']);

    const failedPath = h.tmp.path(`${first.summary.outputs.dir.split('/').pop()}/failed-payers.xlsx`);
    expect(first.summary.outputs.failed).toEqual([failedPath]);
    expect(statSync(failedPath).mode & 0o777).toBe(0o600);
    const book = await readWorkbook(failedPath);
    const sheet = book.getWorksheet('Payers')!;
    expect(sheet.getRow(1).values).toEqual([undefined, ...PAYER_COLUMNS, 'error', 'completedSteps']);
    expect(sheet.rowCount).toBe(3);
    const routing = PAYER_COLUMNS.indexOf('routingNumber') + 1;
    const phone = PAYER_COLUMNS.indexOf('phone') + 1;
    const row = sheet.getRow(2);
    expect(row.getCell(1).value).toBe('z-1');
    expect(row.getCell(routing).value).toBe('21000021'); // the cell as read, for the team to fix
    expect(row.getCell(routing).fill).toMatchObject({ type: 'pattern', fgColor: { argb: 'FFFFC7CE' } });
    expect(noteText(row.getCell(routing).note)).toContain('the spreadsheet dropped a leading zero');
    expect(row.getCell(phone).fill).toMatchObject({ fgColor: { argb: 'FFFFC7CE' } });
    expect((row.getCell(2).fill as { fgColor?: unknown } | undefined)?.fgColor).toBeUndefined(); // email was fine
    // Every input column, red or not, is Text: what the team types next keeps its leading zeros.
    expect([row.getCell(1).numFmt, row.getCell(2).numFmt, row.getCell(routing).numFmt]).toEqual(['@', '@', '@']);
    expect(row.getCell(PAYER_COLUMNS.length + 1).value).toBe(bad.error);

    // The team fixes the marked cells in the same workbook (the columns are text now) and runs it again.
    row.getCell(routing).value = '021000021';
    row.getCell(phone).value = '+12175550100';
    row.getCell(PAYER_COLUMNS.indexOf('postcode') + 1).value = '02101';
    row.getCell(PAYER_COLUMNS.indexOf('accountNumber') + 1).value = '0123456789';
    sheet.getRow(3).getCell(routing).value = '021000021';
    await book.xlsx.writeFile(failedPath);
    const second = await h.run({ agreementSignedElsewhere: true, inputs: [failedPath] });
    expect(second.summary.exitCode).toBe(0);
    expect(second.results.map((r) => [r.clientUserId, r.outcome])).toEqual([
      ['z-1', 'ok'],
      ['z-3', 'ok'],
    ]);
    expect(h.sandbox.payer('z-1')!.paymentDetails[0]!.request).toMatchObject({
      routingNumber: '021000021',
      postalCode: '02101',
      accountNumber: '0123456789',
    });
  });

  it('a failed sheet of many rows: every cell in error red, the notes on its first thousand rows only', async () => {
    const ids = Array.from({ length: 1002 }, (_, i) => `n-${i}`);
    const rows = payerRows(ids, Object.fromEntries(ids.map((id) => [id, { routingNumber: 21000021 }])));
    const input = await writeWorkbook(h.tmp.path('many.xlsx'), [{ name: 'Payers', rows }]);
    const { summary } = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(summary.rows.invalid).toBe(1002);
    const sheet = (await readWorkbook(summary.outputs.failed[0]!)).getWorksheet('Payers')!;
    const routing = PAYER_COLUMNS.indexOf('routingNumber') + 1;
    const error = PAYER_COLUMNS.length + 1;
    for (const line of [2, 1001, 1002, 1003]) {
      const row = sheet.getRow(line);
      expect(row.getCell(routing).fill).toMatchObject({ fgColor: { argb: 'FFFFC7CE' } });
      expect(String(row.getCell(error).value)).toContain('the spreadsheet dropped a leading zero');
    }
    expect(noteText(sheet.getRow(1001).getCell(routing).note)).toContain('the spreadsheet dropped a leading zero');
    expect(sheet.getRow(1002).getCell(routing).note).toBeUndefined();
  });

  it('reads the sheet --sheet names', async () => {
    const input = await writeWorkbook(h.tmp.path('book.xlsx'), [
      { name: 'Notes', rows: [['read me'], ['nothing here']] },
      { name: 'Payers 2024', textColumns: TEXT, rows: payerRows(['s-1']) },
    ]);
    const { summary, results } = await h.run({ agreementSignedElsewhere: true, inputs: [input], sheet: 'payers 2024' });
    expect(summary.exitCode).toBe(0);
    expect(results[0]).toMatchObject({ source: 'book.xlsx[Payers 2024]', line: '2', outcome: 'ok' });
  });
});

function noteText(note: unknown): string {
  if (typeof note === 'string') return note;
  return ((note as { texts?: { text: string }[] })?.texts ?? []).map((t) => t.text).join('');
}
