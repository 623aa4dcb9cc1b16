import { describe, expect, it } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { formatCompletedSteps } from '../../src/validate/controls.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));

/**
 * A valid payer row with this completedSteps cell, as validation reads it: what the row carries from the cell
 * (`value`: the steps; the digest and origin only when the cell gave them), or the cell's one issue.
 */
function readCell(text: string) {
  const result = validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, completedSteps: text }), {
    defaultAgreementCompleted: true,
    today: new Date(2024, 5, 15),
  });
  if (!result.ok) {
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]!.column).toBe('completedSteps');
    return { ok: false, message: result.issues[0]!.message };
  }
  return {
    ok: true,
    value: result.completedSteps,
    ...('complianceDigest' in result ? { complianceDigest: result.complianceDigest } : {}),
    ...('origin' in result ? { origin: result.origin } : {}),
  };
}

describe('formatCompletedSteps', () => {
  it('writes the steps in call order, the digest beside compliance, then where the row came from', () => {
    expect(
      formatCompletedSteps({
        steps: ['agreement', 'compliance', 'payment-details'],
        complianceDigest: '3F9A1C',
        origin: { source: 'payers.csv', line: 12 },
      }),
    ).toBe('compliance@3f9a1c;payment-details;agreement;from=payers.csv:12');
    expect(formatCompletedSteps({ steps: [] })).toBe('');
    expect(formatCompletedSteps({ steps: [], origin: { source: 'p.jsonl', line: 3 } })).toBe('from=p.jsonl:3');
  });

  it('writes no digest without compliance: it would stand for nothing', () => {
    expect(formatCompletedSteps({ steps: ['agreement'], complianceDigest: '3f9a1c' })).toBe('agreement');
  });

  it('percent-encodes what would split the cell or be misread, and nothing else', () => {
    const origin = { source: 'Payers 2024; v2, final=yes 100%.csv', line: 7 };
    const cell = formatCompletedSteps({ steps: ['compliance'], origin });
    expect(cell).toBe('compliance;from=Payers%202024%3B%20v2%2C%20final%3Dyes%20100%25.csv:7');
    expect(formatCompletedSteps({ steps: [], origin: { source: 'payés.xlsx[Bank details]', line: 2 } })).toBe(
      'from=payés.xlsx[Bank%20details]:2',
    );
  });
});

describe('a row reads back the completedSteps cell formatCompletedSteps wrote', () => {
  it.each([
    {
      steps: ['compliance', 'payment-details', 'agreement'] as const,
      complianceDigest: '3f9a1c',
      origin: { source: 'payers.csv', line: 12 },
    },
    {
      steps: ['compliance'] as const,
      complianceDigest: '0123456789abcdef',
      origin: { source: 'a:b;c,d=e%f "g"\th.csv', line: 99999 },
    },
    { steps: [] as const, origin: { source: 'payers.xlsx[Bank details]', line: 3 } },
    { steps: ['payment-details'] as const },
  ])('$steps $origin', (cell) => {
    const parsed = readCell(formatCompletedSteps(cell));
    expect(parsed).toEqual({
      ok: true,
      value: [...cell.steps],
      ...(cell.complianceDigest ? { complianceDigest: cell.complianceDigest } : {}),
      ...(cell.origin ? { origin: cell.origin } : {}),
    });
  });
});

describe('the completedSteps cell as people edit it', () => {
  it.each([
    ['Compliance@3F9A1C, Agreement', { value: ['compliance', 'agreement'], complianceDigest: '3f9a1c' }],
    [
      'agreement compliance @ 3f9a1c ;; FROM = payers.csv:12',
      { value: ['compliance', 'agreement'], complianceDigest: '3f9a1c', origin: { source: 'payers.csv', line: 12 } },
    ],
    ['compliance@3f9a1c;compliance', { value: ['compliance'], complianceDigest: '3f9a1c' }],
    ['from=payers.csv:12;from=payers.csv:12', { value: [], origin: { source: 'payers.csv', line: 12 } }],
    ['  ', { value: [] }],
  ])('%j', (text, expected) => {
    expect(readCell(text)).toEqual({ ok: true, ...expected });
  });

  it.each([
    ['compliance;kyc;payment', 'has unknown steps "kyc", "payment" (steps are compliance, payment-details, agreement)'],
    ['compliance=ok', 'has unknown step "compliance=ok" (steps are compliance, payment-details, agreement)'],
    ['compliance@xyz', '"compliance@xyz": the digest after @ must be hex digits'],
    ['compliance@3f9a1c;compliance@aaaaaa', 'names two compliance digests'],
    ['agreement@3f9a1c', '"agreement@3f9a1c": only compliance carries a digest'],
    ['from=payers.csv', '"from=payers.csv" must be from=<file>:<line>'],
    ['from=payers.csv:0', '"from=payers.csv:0" must be from=<file>:<line>'],
    ['from=:12', '"from=:12" must be from=<file>:<line>'],
    ['from=pay%zz.csv:3', '"from=pay%zz.csv:3" must be from=<file>:<line>'],
    ['from=a.csv:1;from=b.csv:1', 'names two origins (from=)'],
    [
      'from=my payers.csv:3',
      'has unknown step "payers.csv:3" (steps are compliance, payment-details, agreement); "from=my" must be from=<file>:<line>',
    ],
  ])('%j is rejected, naming what is wrong', (text, message) => {
    expect(readCell(text)).toEqual({ ok: false, message });
  });
});
