import { describe, expect, it } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { layoutOf } from '../../src/rows/layout.js';
import { checkBankRow, validateBankRow } from '../../src/validate/validateBankRow.js';
import { checkPayerRow, validatePayerRow } from '../../src/validate/validatePayerRow.js';

// A file's rows share one layout (what each column means), worked out at its first row. These check that a row is
// never read by a layout that is not its own: other columns, another order, another --map, a field named twice.

const today = new Date(2024, 5, 15);
const options = { defaultAgreementCompleted: true, today };
const columns = Object.keys(TEMPLATE_EXAMPLE);
const values = Object.values(TEMPLATE_EXAMPLE);

describe('row layouts', () => {
  it('is reused for rows with the same columns, and worked out again for others', () => {
    const first = layoutOf(columns, 'payers');
    expect(layoutOf([...columns], 'payers')).toBe(first);
    expect(layoutOf(columns.slice(1), 'payers')).not.toBe(first);
    expect(layoutOf(columns, 'payers', '', new Map([['city', 'state']]))).not.toBe(first);
  });

  it('reads each row by its own columns, whatever the row before it had', () => {
    expect(checkPayerRow(columns, values, options).ok).toBe(true);
    // The same values under the columns in another order: every cell lands in its own field again.
    const reversed = [...columns].reverse();
    const result = checkPayerRow(reversed, [...values].reverse(), options);
    expect(result).toEqual(checkPayerRow(columns, values, options));
    // Two columns swapped but not their values: the fields get each other's values.
    const swapped = [...columns];
    const email = swapped.indexOf('email');
    const phone = swapped.indexOf('phone');
    [swapped[email], swapped[phone]] = [swapped[phone]!, swapped[email]!];
    const wrong = checkPayerRow(swapped, values, options);
    expect(wrong.ok).toBe(false);
    expect(wrong.ok ? [] : wrong.issues.map((issue) => issue.column)).toEqual(['phone', 'email']);
  });

  it('reads the same columns by another --map as that map says', () => {
    const cells = [
      ...columns.filter((c) => c !== 'email').map((column) => ({ column, value: TEMPLATE_EXAMPLE[column] })),
      { column: 'Contact', value: 'not an address' },
    ];
    const unmapped = validatePayerRow(cells, options);
    const mapped = validatePayerRow(cells, { ...options, columns: new Map([['contact', 'email']]) });
    expect(unmapped.ok ? [] : unmapped.issues).toEqual([{ column: 'email', message: 'is required' }]);
    expect(mapped.ok ? [] : mapped.issues.map((issue) => issue.column)).toEqual(['Contact']);
  });

  it('a field named twice: the first filled cell counts, a second filled one is an issue, a blank one is none', () => {
    const twice = (first: string, second: string) =>
      validatePayerRow(
        [
          ...columns.map((column) => ({ column, value: column === 'firstName' ? first : TEMPLATE_EXAMPLE[column] })),
          { column: 'first_name', value: second },
        ],
        options,
      );
    const blankFirst = twice('', 'Ann');
    expect(blankFirst.ok && blankFirst.compliance.firstName).toBe('Ann');
    const blankSecond = twice('Ann', ' ');
    expect(blankSecond.ok && blankSecond.compliance.firstName).toBe('Ann');
    expect(twice('Ann', 'Bea')).toMatchObject({
      ok: false,
      issues: [{ column: 'first_name', message: 'gives firstName a second time (already given as "firstName")' }],
    });
  });

  it('a bank-details row read by columns and values gives what validateBankRow gives', () => {
    const bank = { clientUserId: 'p-1', currency: 'usd', bankName: 'Bank', accountName: 'Ann Lee', city: '' };
    const cells = Object.entries(bank).map(([column, value]) => ({ column, value }));
    const result = checkBankRow(Object.keys(bank), Object.values(bank), { today });
    expect(result).toEqual(validateBankRow(cells, { today }));
    expect(result.ok ? [] : result.issues).toContainEqual({ column: 'city', message: 'is required' });
  });
});
