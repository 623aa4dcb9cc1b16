import type { PaymentDetailRequest, PaymentDetailResponse, StoredPaymentDetail } from '../core/schemas.js';

// A stored bank account ("payment details"): what the create answered, the fields the reads list, and its own status,
// which the provider's check moves from `pending` to `approved` (or `failed`) a moment after creation.

export const ACCOUNT_STATUSES = ['pending', 'approved', 'failed'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** The request fields the payment-details read lists; kept even when the sandbox does not keep request bodies. */
type ListedFields = Pick<
  PaymentDetailRequest,
  | 'bankName'
  | 'accountName'
  | 'beneficiaryType'
  | 'currency'
  | 'country'
  | 'rails'
  | 'accountNumber'
  | 'routingNumber'
  | 'iban'
  | 'sortCode'
  | 'swiftBic'
>;

export interface AccountRecord {
  id: string;
  /** The request body exactly as received (text), when the sandbox keeps requests. */
  requestText: string | undefined;
  response: PaymentDetailResponse;
  fields: ListedFields;
  createdAt: number;
  /** Set by the admin route; otherwise the status follows the clock. */
  pinned: AccountStatus | undefined;
}

export function newAccount(
  id: string,
  clientUserId: string,
  request: PaymentDetailRequest,
  requestText: string | undefined,
  createdAt: number,
): AccountRecord {
  const {
    bankName,
    accountName,
    beneficiaryType,
    currency,
    country,
    accountNumber,
    routingNumber,
    iban,
    sortCode,
    swiftBic,
  } = request;
  const rails = request.rails ?? 'local';
  // The documented fields, plus a few harmless ones; account numbers are not echoed back.
  const response: PaymentDetailResponse = {
    payment_detail: { id, clientUserId, bankName, accountName, currency, beneficiaryType, rails, country },
  };
  return {
    id,
    requestText,
    response,
    fields: {
      bankName,
      accountName,
      beneficiaryType,
      currency,
      country,
      rails,
      accountNumber,
      routingNumber,
      iban,
      sortCode,
      swiftBic,
    },
    createdAt,
    pinned: undefined,
  };
}

export function accountStatus(account: AccountRecord, now: number, approveMs: number): AccountStatus {
  return account.pinned ?? (now - account.createdAt >= approveMs ? 'approved' : 'pending');
}

/** The same account as far as numbers go: same currency in any case, and the same numbers as given (absent = absent). */
export function sameNumbers(a: ListedFields, b: ListedFields): boolean {
  return (
    a.currency.toLowerCase() === b.currency.toLowerCase() &&
    a.accountNumber === b.accountNumber &&
    a.iban === b.iban &&
    a.routingNumber === b.routingNumber &&
    a.sortCode === b.sortCode
  );
}

/** One account as GET /v2/payer/{clientUserId}/payment-details lists it: lower-case currency, absent numbers as null. */
export function listedAccount(
  account: AccountRecord,
  owner: { userId: string; clientUserId: string },
  status: AccountStatus,
  mask: boolean,
): StoredPaymentDetail & { clientUserId: string; country: string } {
  const f = account.fields;
  const hide = (value: string | undefined): string | null =>
    value === undefined ? null : mask ? value.slice(-4) : value;
  return {
    id: account.id,
    userId: owner.userId,
    clientUserId: owner.clientUserId,
    bankName: f.bankName,
    accountName: f.accountName,
    beneficiaryType: f.beneficiaryType,
    accountNumber: hide(f.accountNumber),
    routingNumber: f.routingNumber ?? null,
    iban: hide(f.iban),
    sortCode: f.sortCode ?? null,
    swiftBic: f.swiftBic ?? null,
    currency: f.currency.toLowerCase(),
    status,
    rails: f.rails ?? 'local',
    country: f.country,
  };
}
