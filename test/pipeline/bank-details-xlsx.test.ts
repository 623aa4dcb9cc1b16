import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness } from '../helpers/runHarness.js';
import { day, payerRows, readWorkbook, writeWorkbook } from '../helpers/xlsxFixtures.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const PAYER_ONLY = [
  'clientUserId',
  'email',
  'firstName',
  'lastName',
  'beneficiaryType',
  'dateOfBirth',
  'addressLine1',
  'city',
  'state',
  'postcode',
  'country',
  'nationality',
  'phone',
  'ssn',
];
const BANK_COLUMNS = [
  'clientUserId',
  'bankName',
  'accountName',
  'beneficiaryType',
  'currency',
  'addressLine1',
  'city',
  'country',
  'dateOfBirth',
  'postalCode',
  'accountNumber',
  'routingNumber',
];
const bankRow = (id: string, account: string, over: Record<string, unknown> = {}) => {
  const cells: Record<string, unknown> = {
    clientUserId: id,
    bankName: 'First Bank',
    accountName: 'Ada L',
    beneficiaryType: 'individual',
    currency: 'USD',
    addressLine1: '1 Main',
    city: 'Springfield',
    country: 'US',
    dateOfBirth: day('1985-12-10'),
    postalCode: '02101',
    accountNumber: account,
    routingNumber: '021000021',
    ...over,
  };
  return BANK_COLUMNS.map((c) => cells[c]);
};
const csvLine = (cells: unknown[]) =>
  cells.map((c) => (c instanceof Date ? c.toISOString().slice(0, 10) : String(c))).join(',');
const TEXT = ['postcode', 'postalCode', 'accountNumber', 'routingNumber'];

describe('bank accounts apart from payers', () => {
  it('--bank-details (CSV or xlsx): two accounts for one payer, one for a payer registered before, one for nobody', async () => {
    // A payer registered by an earlier run: its bank row is sent on its own.
    const earlier = await writeWorkbook(h.tmp.path('earlier.xlsx'), [
      { name: 'P', textColumns: TEXT, rows: payerRows(['old-1'], {}, PAYER_ONLY) },
    ]);
    expect((await h.run({ agreementSignedElsewhere: true, inputs: [earlier] })).summary.exitCode).toBe(0);

    const payers = await writeWorkbook(h.tmp.path('payers.xlsx'), [
      { name: 'P', textColumns: TEXT, rows: payerRows(['bd-1', 'bd-2'], {}, PAYER_ONLY) },
    ]);
    const rows = [bankRow('bd-1', '111'), bankRow('old-1', '333'), bankRow('bd-1', '222'), bankRow('nobody', '444')];
    for (const bank of [
      h.tmp.write('bank.csv', `${BANK_COLUMNS.join(',')}\n${rows.map(csvLine).join('\n')}\n`),
      await writeWorkbook(h.tmp.path('bank.xlsx'), [
        { name: 'Accounts', textColumns: TEXT, rows: [BANK_COLUMNS, ...rows] },
      ]),
    ]) {
      const { summary, results } = await h.run({ agreementSignedElsewhere: true, inputs: [payers], bankDetails: bank });
      const source = bank.endsWith('.xlsx') ? 'bank.xlsx' : 'bank.csv';
      expect(results.map((r) => [r.source, r.line, r.clientUserId, r.outcome])).toEqual([
        ['payers.xlsx', '2', 'bd-1', 'ok'],
        ['payers.xlsx', '3', 'bd-2', 'ok'],
        [source, '2', 'bd-1', 'ok'],
        [source, '3', 'old-1', 'ok'],
        [source, '4', 'bd-1', 'ok'],
        [source, '5', 'nobody', 'failed'],
      ]);
      expect(results[5]!.error).toContain('payment-details: payer not registered');
      expect(summary.exitCode).toBe(1);
    }
    expect(
      h.sandbox.payer('bd-1')!.paymentDetails.map((p) => (p.request as { accountNumber: string }).accountNumber),
    ).toEqual(expect.arrayContaining(['111', '222']));
  });

  it('a "Bank details" sheet beside the payers is read the same way; a payer\'s failure fails its bank rows; the failed workbook keeps both sheets and runs clean once fixed', async () => {
    const input = await writeWorkbook(h.tmp.path('book.xlsx'), [
      {
        name: 'Payers',
        textColumns: TEXT,
        rows: payerRows(['bs-1', 'bs-2'], { 'bs-2': { email: 'not-an-email' } }, PAYER_ONLY),
      },
      {
        name: 'Bank details',
        textColumns: TEXT,
        rows: [
          BANK_COLUMNS,
          bankRow('bs-1', '111'),
          bankRow('bs-2', '222'),
          bankRow('bs-1', '333'),
          bankRow('bs-2', '444'),
        ],
      },
    ]);
    const first = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(first.results.map((r) => [r.source, r.line, r.clientUserId, r.outcome])).toEqual([
      ['book.xlsx', '2', 'bs-1', 'ok'],
      ['book.xlsx', '3', 'bs-2', 'invalid'],
      ['book.xlsx[Bank details]', '2', 'bs-1', 'ok'],
      ['book.xlsx[Bank details]', '3', 'bs-2', 'failed'],
      ['book.xlsx[Bank details]', '4', 'bs-1', 'ok'],
      ['book.xlsx[Bank details]', '5', 'bs-2', 'failed'],
    ]);
    expect(first.results[3]!.error).toBe("payment-details: not sent, the payer's row is invalid");
    expect(h.sandbox.payer('bs-1')!.paymentDetails).toHaveLength(2);

    expect(first.summary.outputs.failed).toHaveLength(1);
    const failedPath = first.summary.outputs.failed[0]!;
    expect(failedPath.endsWith('/failed-book.xlsx')).toBe(true);
    const book = await readWorkbook(failedPath);
    expect(book.worksheets.map((s) => [s.name, s.rowCount])).toEqual([
      ['Payers', 2],
      ['Bank details', 3],
    ]);
    book.getWorksheet('Payers')!.getRow(2).getCell(2).value = 'bs-2@example.com';
    await book.xlsx.writeFile(failedPath);

    const second = await h.run({ agreementSignedElsewhere: true, inputs: [failedPath] });
    expect(second.summary.exitCode).toBe(0);
    // The rows of the failed workbook keep the places they first had.
    expect(second.results.map((r) => [r.source, r.line, r.clientUserId, r.outcome])).toEqual([
      ['book.xlsx', '3', 'bs-2', 'ok'],
      ['book.xlsx[Bank details]', '3', 'bs-2', 'ok'],
      ['book.xlsx[Bank details]', '5', 'bs-2', 'ok'],
    ]);
    expect(
      h.sandbox
        .payer('bs-2')!
        .paymentDetails.map((p) => (p.request as { accountNumber: string }).accountNumber)
        .sort(),
    ).toEqual(['222', '444']);
  });

  it('when only bank rows failed, the failed workbook has the payers header alone and still runs', async () => {
    const input = await writeWorkbook(h.tmp.path('book.xlsx'), [
      { name: 'Payers', textColumns: TEXT, rows: payerRows(['ob-1'], {}, PAYER_ONLY) },
      {
        name: 'bank_details',
        textColumns: TEXT,
        rows: [BANK_COLUMNS, bankRow('ob-1', '111', { currency: 'DOLLARS' })],
      },
    ]);
    const first = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(first.results.map((r) => r.outcome)).toEqual(['ok', 'invalid']);
    const book = await readWorkbook(first.summary.outputs.failed[0]!);
    expect(book.worksheets.map((s) => [s.name, s.rowCount])).toEqual([
      ['Payers', 1],
      ['bank_details', 2],
    ]);
    book
      .getWorksheet('bank_details')!
      .getRow(2)
      .getCell(BANK_COLUMNS.indexOf('currency') + 1).value = 'USD';
    await book.xlsx.writeFile(first.summary.outputs.failed[0]!);
    const second = await h.run({ agreementSignedElsewhere: true, inputs: [first.summary.outputs.failed[0]!] });
    expect(second.summary.exitCode).toBe(0);
    expect(second.results.map((r) => [r.clientUserId, r.outcome])).toEqual([['ob-1', 'ok']]);
  });
});
