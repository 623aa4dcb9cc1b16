import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PayerOnboardError } from '../../src/core/errors.js';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { validateBankRow } from '../../src/validate/validateBankRow.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';
import { harness, payersCsv } from '../helpers/runHarness.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const payer = (over: Record<string, unknown>, dateFormat?: string) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...over }), {
    defaultAgreementCompleted: true,
    today: new Date(2024, 5, 15),
    dateFormat,
  });
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);
const TEXT = 'format the column as text and type the value again';

describe('spreadsheet damage, named for what it is', () => {
  it('a number in scientific notation was turned into a number by the spreadsheet; ssn and bank numbers are not echoed', () => {
    expect(
      issuesOf(payer({ phone: undefined, Phone: '1.21755E+10', ssn: '1.23457E+08', accountNumber: '1.23457E+11' })),
    ).toEqual([
      {
        column: 'ssn',
        message: `was turned into a number by the spreadsheet, which kept only its first digits: ${TEXT}`,
      },
      {
        column: 'accountNumber',
        message: `was turned into a number by the spreadsheet, which kept only its first digits: ${TEXT}`,
      },
      // `Phone` comes last: it is the row's last cell here.
      {
        column: 'Phone',
        message: `was turned into a number by the spreadsheet, which kept only its first digits: ${TEXT}, got "9.99999a+99" (masked as personal data: digits shown as 9, letters as a)`,
      },
    ]);
  });

  it('an 8-digit routing number or a 5-digit sort code looks like a lost leading zero', () => {
    expect(issuesOf(payer({ routingNumber: '21000021' }))).toEqual([
      {
        column: 'routingNumber',
        message: `must be 9 digits with a valid ABA checksum; it has 8 digits: looks like a leading zero was lost: ${TEXT}`,
      },
    ]);
    const gbp = { currency: 'GBP', routingNumber: undefined, sortCode: '40051', accountNumber: '12345678' };
    expect(issuesOf(payer(gbp))).toEqual([
      {
        column: 'sortCode',
        message: `has 5 digits, a sort code has 6: looks like a leading zero was lost: ${TEXT}, got "40051"`,
      },
    ]);
    expect(payer({ ...gbp, sortCode: '04-00-51' }).ok).toBe(true);
  });

  it("a phone whose + the spreadsheet dropped, and a date left as the spreadsheet's day number", () => {
    expect(issuesOf(payer({ phone: '12175550100', dateOfBirth: '31148' }))).toEqual([
      {
        column: 'dateOfBirth',
        message:
          'looks like a spreadsheet\'s date number (days since 1900): format the column as a date, or type YYYY-MM-DD, got "99999" (masked as personal data: digits shown as 9, letters as a)',
      },
      {
        column: 'phone',
        message:
          'has no leading + and country code, as when a spreadsheet turns +12175550100 into the number 12175550100: format the column as text and type it with the +, got "99999999999" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  it('12/31/1980 must be YYYY-MM-DD, unless --date-format says how to read it; then it is converted', () => {
    expect(issuesOf(payer({ dateOfBirth: '12/31/1980' }))).toEqual([
      {
        column: 'dateOfBirth',
        message:
          'must be YYYY-MM-DD, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a): written month first, --date-format MM/DD/YYYY reads it',
      },
    ]);
    const us = payer({ dateOfBirth: '12/31/1980', bankDateOfBirth: '1/2/1981' }, 'MM/DD/YYYY');
    expect(us.ok && [us.compliance.dateOfBirth, us.paymentDetails[0]!.dateOfBirth]).toEqual([
      '1980-12-31',
      '1981-01-02',
    ]);
    const eu = payer({ dateOfBirth: '31.12.1980' }, 'DD.MM.YYYY');
    expect(eu.ok && eu.compliance.dateOfBirth).toBe('1980-12-31');
    expect(payer({ dateOfBirth: '1980-12-31' }, 'DD/MM/YYYY').ok).toBe(true); // date cells of an xlsx arrive as YYYY-MM-DD
    expect(issuesOf(payer({ dateOfBirth: '12/31/1980' }, 'DD/MM/YYYY'))).toEqual([
      {
        column: 'dateOfBirth',
        message:
          'is not a real calendar date, got "9999-99-99" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
    expect(issuesOf(payer({ dateOfBirth: 'Dec 31 1980' }, 'MM/DD/YYYY'))).toEqual([
      {
        column: 'dateOfBirth',
        message:
          'must be YYYY-MM-DD or MM/DD/YYYY (--date-format), got "aaa 99 9999" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  it('applies to a bank-details row too', () => {
    const bank = {
      clientUserId: 'b-1',
      bankName: 'B',
      accountName: 'A',
      beneficiaryType: 'individual',
      currency: 'GBP',
      addressLine1: 'x',
      city: 'y',
      country: 'GB',
      dateOfBirth: '12/31/1980',
      postalCode: 'SW1A 1AA',
      sortCode: '40051',
    };
    expect(validateBankRow(cellsOf(bank), { dateFormat: 'MM/DD/YYYY' })).toMatchObject({
      ok: false,
      issues: [{ column: 'sortCode', message: expect.stringContaining('looks like a leading zero was lost') }],
    });
  });
});

describe('run --date-format', () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  it("converts the file's dates before sending", async () => {
    const input = h.tmp.write('p.csv', payersCsv(['d-1'], { 'd-1': { dateOfBirth: '12/31/1980' } }));
    const { summary } = await h.run({ inputs: [input], dateFormat: 'mm/dd/yyyy' });
    expect(summary.exitCode).toBe(0);
    expect(h.sandbox.payer('d-1')!.request).toMatchObject({ dateOfBirth: '1980-12-31' });
    expect(h.sandbox.payer('d-1')!.paymentDetails[0]!.request).toMatchObject({ dateOfBirth: '1980-12-31' });
  });

  it('refuses a format it cannot read (exit 2)', async () => {
    const input = h.tmp.write('p.csv', payersCsv(['d-1']));
    const error = await h.run({ inputs: [input], dateFormat: 'MM/YYYY' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayerOnboardError);
    expect((error as PayerOnboardError).message).toBe(
      '--date-format: must be YYYY, MM and DD in some order with / . or - between, e.g. MM/DD/YYYY or DD.MM.YYYY',
    );
  });
});
