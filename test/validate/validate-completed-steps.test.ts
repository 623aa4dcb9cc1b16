import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { validateBankRow } from '../../src/validate/validateBankRow.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const payer = (over: Record<string, unknown>) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...over }), {
    defaultAgreementCompleted: true,
    today: new Date(2024, 5, 15),
  });

describe('completedSteps cell', () => {
  test.each([
    ['compliance;payment-details', ['compliance', 'payment-details']],
    ['payment-details, compliance', ['compliance', 'payment-details']],
    ['Compliance agreement', ['compliance', 'agreement']],
    [' compliance ;; compliance ', ['compliance']],
    ['', []],
  ])('%j -> %j', (cell, steps) => {
    const result = payer({ completedSteps: cell });
    expect(result.ok && result.completedSteps).toEqual(steps);
  });

  test('unknown step names are an issue, and the steps are kept on the invalid row only when readable', () => {
    const result = payer({ completedSteps: 'compliance;kyc;payment' });
    expect(result).toEqual({
      ok: false,
      clientUserId: 'payer-0001',
      issues: [
        {
          column: 'completedSteps',
          message: 'has unknown steps "kyc", "payment" (steps are compliance, payment-details, agreement)',
        },
      ],
    });
  });

  test('an invalid row keeps the steps already done, so a re-fed failed file does not repeat them', () => {
    const result = payer({ completedSteps: 'compliance', email: 'nope' });
    expect(result).toMatchObject({ ok: false, completedSteps: ['compliance'] });
  });

  test('the error column of a re-fed failed file is ignored', () => {
    expect(payer({ error: 'email: must be a valid e-mail address, got "nope"' }).ok).toBe(true);
  });
});

describe('what a failed or pending file carries besides the steps', () => {
  const origin = { source: 'payers 2024.csv', line: 12 };
  const cell = 'compliance@3f9a1c;agreement;from=payers%202024.csv:12';

  test('a valid payer row carries the compliance digest and its origin', () => {
    expect(payer({ completedSteps: cell })).toMatchObject({
      ok: true,
      completedSteps: ['compliance', 'agreement'],
      complianceDigest: '3f9a1c',
      origin,
    });
  });

  test('an invalid payer row keeps them too, so its next failed file still names where it came from', () => {
    expect(payer({ completedSteps: cell, email: 'nope' })).toMatchObject({
      ok: false,
      completedSteps: ['compliance', 'agreement'],
      complianceDigest: '3f9a1c',
      origin,
    });
  });

  test('a row without the cell has neither: its own file and line are its origin', () => {
    const result = payer({});
    expect(result.ok && 'origin' in result).toBe(false);
    expect(result.ok && 'complianceDigest' in result).toBe(false);
  });

  test('a bank row carries its origin; a digest on it is not kept, as it stands for no payer of its own', () => {
    const cells = Object.entries({
      clientUserId: 'payer-0001',
      bankName: 'Lloyds',
      accountName: 'Jane Doe',
      beneficiaryType: 'individual',
      currency: 'GBP',
      addressLine1: '1 High St',
      city: 'London',
      country: 'GB',
      dateOfBirth: '1985-04-12',
      postalCode: 'EC1A 1BB',
      accountNumber: '31926819',
      sortCode: '309457',
      completedSteps: 'compliance@3f9a1c;from=bank.csv:4',
    }).map(([column, value]) => ({ column, value }));
    const result = validateBankRow(cells, { today: new Date(2024, 5, 15) });
    expect(result).toMatchObject({ ok: true, completedSteps: ['compliance'], origin: { source: 'bank.csv', line: 4 } });
    expect('complianceDigest' in result).toBe(false);
    const invalid = validateBankRow(
      [...cells.filter((c) => c.column !== 'currency'), { column: 'currency', value: 'XXX1' }],
      { today: new Date(2024, 5, 15) },
    );
    expect(invalid).toMatchObject({ ok: false, origin: { source: 'bank.csv', line: 4 } });
  });
});
