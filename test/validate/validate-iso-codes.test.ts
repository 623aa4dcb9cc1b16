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

describe('country, nationality, currency', () => {
  test('countries any case in, upper case out, in both bodies; a currency any case in, lower case out', () => {
    const result = payer({ country: 'us', nationality: 'Gb', currency: 'UsD' });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.compliance).toMatchObject({ country: 'US', nationality: 'GB' });
    expect(result.paymentDetails[0]).toMatchObject({ country: 'US', currency: 'usd' });
  });

  test('an override country is normalised too', () => {
    const result = payer({ bankCountry: 'de' });
    expect(result.ok && result.paymentDetails[0]?.country).toBe('DE');
  });

  test('alpha-3 codes, unknown codes and names are refused', () => {
    expect(issuesOf(payer({ country: 'USA', nationality: 'XX' }))).toEqual([
      { column: 'country', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "USA"' },
      { column: 'nationality', message: 'must be an ISO 3166-1 alpha-2 country code such as US, got "XX"' },
    ]);
  });

  test('a currency must be an ISO 4217 code', () => {
    expect(issuesOf(payer({ currency: 'US$' }))).toEqual([
      { column: 'currency', message: 'must be an ISO 4217 currency code such as USD, got "US$"' },
    ]);
    expect(issuesOf(payer({ currency: 'ABC' }))).toEqual([
      { column: 'currency', message: 'must be an ISO 4217 currency code such as USD, got "ABC"' },
    ]);
  });
});
