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
const phoneOf = (r: PayerRowResult) => (r.ok ? r.compliance.phone : JSON.stringify(r.issues));
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);

describe('phone', () => {
  test('+12175550100 arrives unchanged', () => {
    expect(phoneOf(payer({ phone: '+12175550100' }))).toBe('+12175550100');
  });

  test.each(['+1 (217) 555-0100', '+1.217.555.0100', '  +1 217-555-0100 '])('%s becomes E.164', (typed) => {
    expect(phoneOf(payer({ phone: typed }))).toBe('+12175550100');
  });

  test('a national trunk prefix after the country code is dropped', () => {
    expect(phoneOf(payer({ phone: '+44 (0)20 7946 0958' }))).toBe('+442079460958');
  });

  test('a well-formed number no numbering plan knows is kept: the spec asks only for the format', () => {
    expect(phoneOf(payer({ phone: '+999 1234 5678' }))).toBe('+99912345678');
    expect(phoneOf(payer({ phone: '+1 555 0100' }))).toBe('+15550100');
  });

  // A phone is personal: the message shows only its shape, digits as 9 and letters as a.
  test.each([
    ['217-555-0100', '999-999-9999'],
    ['0044 20 7946 0958', '9999 99 9999 9999'],
    ['+1 217 555 0100 ext 5', '+9 999 999 9999 aaa 9'],
    ['+0 123', '+9 999'],
  ])('%s is not E.164, and is quoted only as %s', (typed, shape) => {
    expect(issuesOf(payer({ Phone: typed, phone: undefined }))).toEqual([
      {
        column: 'Phone',
        message: `must be in E.164 format, e.g. +12175550100, got "${shape}" (masked as personal data: digits shown as 9, letters as a)`,
      },
    ]);
  });
});
