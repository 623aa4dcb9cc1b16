import { describe, expect, it } from 'vitest';
import type { PaymentDetailRequest } from '../../src/core/schemas.js';
import { accountIdentity, identityText, pickMatch } from '../../src/plan/identity.js';

// A bank account's identity names it in the journal. A release that sent `USD` wrote its keys from this very text:
// the currency now sent as `usd` must name the same account, or a state dir of that release would create it again.

const detail = (currency: string): PaymentDetailRequest => ({
  bankName: 'First Bank',
  accountName: 'Ada Lovelace',
  beneficiaryType: 'individual',
  currency,
  addressLine1: '1 Main St',
  city: 'Springfield',
  country: 'US',
  dateOfBirth: '1980-12-31',
  postalCode: '62701',
  accountNumber: '000123456789',
  routingNumber: '021000021',
});

describe("a bank account's identity", () => {
  it('is the text the journal was keyed by, whatever case the currency is sent in', () => {
    const before = '{"accountNumber":"000123456789","currency":"USD","routingNumber":"021000021"}';
    expect(identityText(accountIdentity(detail('usd')))).toBe(before);
    expect(identityText(accountIdentity(detail('USD')))).toBe(before);
  });

  it("matches a stored account whichever case the service's read gives its currency in", () => {
    const identity = accountIdentity(detail('usd'));
    const stored = (currency: string) => ({
      id: currency,
      currency,
      accountNumber: '6789',
      routingNumber: '021000021',
    });
    expect(pickMatch(identity, [stored('usd')], new Set())).toEqual({ kind: 'adopt', id: 'usd' });
    expect(pickMatch(identity, [stored('USD')], new Set())).toEqual({ kind: 'adopt', id: 'USD' });
    expect(pickMatch(identity, [stored('eur')], new Set())).toEqual({ kind: 'none' });
  });
});
