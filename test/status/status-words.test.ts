import { describe, expect, it } from 'vitest';
import type { AccountsAnswer, CallResult, PayerAnswer } from '../../src/core/answers.js';
import { payerStatus, statusRecord, STATUS_COLUMNS } from '../../src/status/payerStatus.js';
import { shownWord, unknownWords } from '../../src/plan/verdict.js';

// Status words the service's documents do not use (a bank account `verified`, an agreement `signed`: seen only in a
// third-party client's fixtures) are shown as the service wrote them, with a note for a person to check them: never
// counted as failed, nor as done. Payable stays the service's verdict and an approved account.

const given = { clientUserId: 'p-1', hasBank: true, invalid: {} };
const ok = <T>(body: T): CallResult<T> => ({ ok: true, body }) as CallResult<T>;
const line = (payer: PayerAnswer, accounts?: AccountsAnswer['accounts']) => {
  const s = payerStatus(
    given,
    { payer: ok(payer), accounts: accounts === undefined ? undefined : ok({ found: true, accounts }) },
    {},
    new Date('2026-12-02T00:00:00Z'),
    undefined,
  );
  const cells = Object.fromEntries(STATUS_COLUMNS.map((c, i) => [c, statusRecord(s)[i]]));
  return { category: s.category, cells };
};
const NOTE = "not a word this tool knows: check it in the service's dashboard";

describe('status words the documents do not use', () => {
  it('a bank account `verified`: neither payable nor failed, its word shown with the note', () => {
    const approved = { found: true, kycStatus: 'approved', agreementStatus: 'completed', isCompliant: true } as const;
    const { category, cells } = line(approved, [{ id: 'a-1', status: 'verified' }]);
    expect(category).toBe('word-to-check');
    expect(cells.payable).toBe('false');
    expect(cells.bankAccounts).toBe('approved=0 pending=0 failed=0 verified=1');
    expect(cells.error).toBe(`status: a bank account's status verified: ${NOTE}`);
    // An approved account beside it: payable, and the word still said.
    const both = line(approved, [
      { id: 'a-1', status: 'verified' },
      { id: 'a-2', status: 'approved' },
    ]);
    expect(both.category).toBe('payable');
    expect(both.cells.error).toBe(`status: a bank account's status verified: ${NOTE}`);
  });

  it('an agreement `signed`: not completed, not failed: a word to check', () => {
    const { category, cells } = line({
      found: true,
      kycStatus: 'approved',
      agreementStatus: 'signed',
      isCompliant: false,
    });
    expect(category).toBe('word-to-check');
    expect(cells.agreementStatus).toBe('signed');
    expect(cells.error).toBe(`status: agreementStatus signed: ${NOTE}`);
  });

  it('the documented words carry no note', () => {
    expect(unknownWords({ kycStatus: 'retry_required', agreementStatus: 'pending' }, ['pending', 'FAILED'])).toEqual(
      [],
    );
    expect(shownWord('kycStatus', 'Approved')).toBe('Approved');
    expect(shownWord('agreementStatus', 'signed')).toBe(`signed, ${NOTE}`);
    expect(shownWord('kycStatus', undefined)).toBe('unknown');
  });
});
