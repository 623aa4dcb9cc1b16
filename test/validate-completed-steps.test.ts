import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../src/rows/fields.js';
import { validatePayerRow } from '../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row).filter(([, v]) => v !== undefined).map(([column, value]) => ({ column, value }));
const payer = (over: Record<string, unknown>) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...over }), { defaultAgreementCompleted: true, today: new Date(2024, 5, 15) });

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
      issues: [{ column: 'completedSteps', message: 'has unknown steps "kyc", "payment" (steps are compliance, payment-details, agreement)' }],
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
