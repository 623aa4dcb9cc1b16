import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import type { PayerRowResult } from '../../src/core/types.js';
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
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);

describe('enums', () => {
  test('any case in, lower case out', () => {
    const business = { companyName: 'Acme LLC', businessActivity: 'retail' };
    const result = payer({
      ...business,
      beneficiaryType: 'Business',
      rails: 'SWIFT',
      swiftBic: 'CHASUS33',
      accountType: 'Savings',
    });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.compliance.beneficiaryType).toBe('business');
    expect(result.paymentDetails[0]).toMatchObject({
      beneficiaryType: 'business',
      rails: 'swift',
      accountType: 'savings',
    });
  });

  test('values outside the enum name the allowed ones', () => {
    expect(issuesOf(payer({ beneficiaryType: 'person', rails: 'ach', accountType: 'current' }))).toEqual([
      { column: 'beneficiaryType', message: 'must be one of individual, business, got "person"' },
      { column: 'rails', message: 'must be one of local, swift, wire, got "ach"' },
      { column: 'accountType', message: 'must be one of checking, savings, got "current"' },
    ]);
  });
});
