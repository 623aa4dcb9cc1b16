import type { PaymentDetailRequest, StoredPaymentDetail } from '../schema/index.js';

// Whether a bank account the service already stores is the one a row describes. The service does not
// de-duplicate accounts and documents no idempotency, so before creating one the client looks at what is stored
// and adopts a match instead. A match is the same currency (any case) and the same account number or IBAN, with
// the routing number or sort code where both sides give one. The service may mask long numbers to their last
// four digits: then the last four are compared.

/** What makes a bank account the same account: never its holder's name or address, which a team may correct. */
export interface AccountIdentity {
  currency: string;
  accountNumber?: string;
  iban?: string;
  routingNumber?: string;
  sortCode?: string;
  /** Only when the row has no number at all: bank and holder name are then all there is to compare. */
  names?: string;
}

export function accountIdentity(detail: PaymentDetailRequest): AccountIdentity {
  const identity: AccountIdentity = { currency: detail.currency.toUpperCase() };
  const iban = alnum(detail.iban);
  const accountNumber = alnum(detail.accountNumber);
  if (iban) identity.iban = iban;
  if (accountNumber) identity.accountNumber = accountNumber;
  const routingNumber = alnum(detail.routingNumber);
  const sortCode = alnum(detail.sortCode);
  if (routingNumber) identity.routingNumber = routingNumber;
  if (sortCode) identity.sortCode = sortCode;
  if (!iban && !accountNumber) identity.names = `${detail.bankName}\u0000${detail.accountName}`.toUpperCase();
  return identity;
}

/** Whether `stored` is the account `identity` describes (whatever its status: see pickMatch for failed ones). */
export function sameAccount(identity: AccountIdentity, stored: StoredPaymentDetail): boolean {
  if (stored.currency !== undefined && stored.currency.toUpperCase() !== identity.currency) return false;
  if (identity.names !== undefined) {
    return (
      !alnum(stored.iban) &&
      !alnum(stored.accountNumber) &&
      `${stored.bankName ?? ''}\u0000${stored.accountName ?? ''}`.toUpperCase() === identity.names
    );
  }
  const number =
    identity.iban !== undefined
      ? sameNumber(identity.iban, stored.iban)
      : sameNumber(identity.accountNumber!, stored.accountNumber);
  if (!number) return false;
  // Routing numbers and sort codes are short enough to come back whole; compare them only when both sides have one.
  if (
    identity.routingNumber &&
    alnum(stored.routingNumber) &&
    !sameNumber(identity.routingNumber, stored.routingNumber)
  )
    return false;
  if (identity.sortCode && alnum(stored.sortCode) && !sameNumber(identity.sortCode, stored.sortCode)) return false;
  return true;
}

export type AccountMatch =
  | { kind: 'none' }
  | { kind: 'adopt'; id: string }
  /** The matching stored account failed the provider's check: never adopted, a new one is created. */
  | { kind: 'stored-failed'; id: string };

/**
 * The stored account a row adopts: the first match not already taken by another row of this run (one stored
 * account answers for one row at most) and not marked `failed` by the provider.
 */
export function pickMatch(
  identity: AccountIdentity,
  stored: readonly StoredPaymentDetail[],
  taken: ReadonlySet<string>,
): AccountMatch {
  let failed: string | undefined;
  for (const account of stored) {
    if (taken.has(account.id) || !sameAccount(identity, account)) continue;
    if (account.status?.toLowerCase() === 'failed') {
      failed ??= account.id;
      continue;
    }
    return { kind: 'adopt', id: account.id };
  }
  return failed === undefined ? { kind: 'none' } : { kind: 'stored-failed', id: failed };
}

function alnum(value: string | null | undefined): string {
  return (value ?? '').replace(/[^0-9a-zA-Z]/g, '').toUpperCase();
}

/** Equal, or equal in the last four when the service sent only those (masked as `6789`, `****6789`, `XXXX6789`). */
function sameNumber(ours: string, theirs: string | null | undefined): boolean {
  const raw = theirs ?? '';
  const masked = /[*•xX]{2,}/.test(raw) || (alnum(raw).length <= 4 && ours.length > 4);
  const digits = masked ? alnum(raw.replace(/[*•]/g, '').replace(/^[xX]+/, '')) : alnum(raw);
  if (digits === '') return false;
  return masked ? ours.endsWith(digits.slice(-4)) && digits.length >= Math.min(4, ours.length) : digits === ours;
}
