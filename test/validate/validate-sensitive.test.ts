import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import type { RowIssue } from '../../src/core/types.js';
import { validateBankRow } from '../../src/validate/validateBankRow.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

const cellsOf = (row: Record<string, unknown>) =>
  Object.entries(row)
    .filter(([, v]) => v !== undefined)
    .map(([column, value]) => ({ column, value }));

// Wrong in every way this test can think of, so that each sensitive value reaches a message if anything leaks it.
const secrets = {
  ssn: { given: 'SSN-SECRET-111' },
  accountNumber: { given: { nested: 'ACCT-SECRET-222' }, leak: 'ACCT-SECRET-222' },
  iban: { given: 'DE00 SECRET 3333 4444' },
  routingNumber: { given: '99999999' },
  documentNumber: { given: ['DOC-SECRET-555'], leak: 'DOC-SECRET-555' },
};

const leaksIn = (issues: RowIssue[]) =>
  Object.values(secrets).flatMap(({ given, ...rest }) => {
    const value = 'leak' in rest ? String(rest.leak) : String(given);
    return issues.filter(
      (i) => `${i.column} ${i.message}`.includes(value) || i.message.includes(value.replace(/\s/g, '')),
    );
  });

describe('sensitive values are never echoed', () => {
  test('payer row: ssn, accountNumber, iban, routingNumber, documentNumber', () => {
    const row = Object.fromEntries(Object.entries(secrets).map(([field, { given }]) => [field, given]));
    const result = validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, ...row, SSN: undefined }), {
      defaultAgreementCompleted: true,
    });
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    expect(issues.map((i) => i.column)).toEqual(['accountNumber', 'routingNumber', 'iban', 'documentNumber']);
    expect(leaksIn(issues)).toEqual([]);
  });

  test('JSONL entry and bank-details row', () => {
    const entry = {
      bankName: 'B',
      accountName: 'A',
      currency: 'EUR',
      iban: secrets.iban.given,
      routingNumber: '021000022',
    };
    const payer = validatePayerRow(cellsOf({ ...TEMPLATE_EXAMPLE, paymentDetails: [entry] }), {
      defaultAgreementCompleted: true,
    });
    const bank = validateBankRow(
      cellsOf({
        clientUserId: 'c',
        ...entry,
        beneficiaryType: 'individual',
        addressLine1: 'a',
        city: 'c',
        country: 'DE',
        dateOfBirth: '1980-01-01',
        postalCode: '1',
      }),
    );
    const issues = [...(payer.ok ? [] : payer.issues), ...(bank.ok ? [] : bank.issues)];
    expect(issues).toHaveLength(4);
    expect(leaksIn(issues)).toEqual([]);
    expect(issues.some((i) => i.message.includes('021000022'))).toBe(false);
  });
});
