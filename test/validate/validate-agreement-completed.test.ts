import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));
const payer = (value: unknown, defaultAgreementCompleted = true) =>
  validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, agreementCompleted: undefined, 'Agreement Completed': value }), {
    defaultAgreementCompleted,
    today: new Date(2024, 5, 15),
  });
const agreed = (value: unknown, byDefault = true) => {
  const result = payer(value, byDefault);
  return result.ok ? result.agreementCompleted : result.issues;
};

describe('agreementCompleted cell', () => {
  test.each(['true', 'TRUE', 'Yes', 'y', 'Y', '1', true, 1])('%s means true', (value) => {
    expect(agreed(value, false)).toBe(true);
  });

  test.each(['false', 'False', 'NO', 'n', '0', false, 0])('%s means false', (value) => {
    expect(agreed(value, true)).toBe(false);
  });

  test.each(['', '  ', undefined, null])('blank (%j) takes the run default', (value) => {
    expect(agreed(value, true)).toBe(true);
    expect(agreed(value, false)).toBe(false);
  });

  test('anything else is an issue under the column as written', () => {
    expect(agreed('maybe')).toEqual([
      { column: 'Agreement Completed', message: 'must be true/false, yes/no, y/n or 1/0, got "maybe"' },
    ]);
  });
});
