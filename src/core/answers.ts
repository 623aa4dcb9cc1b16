import type { ApiError } from './apiError.js';
import type { StoredPaymentDetail } from './schemas.js';

// The service's answers as the client hands them on, read by the plan, `status` and the reports alike.

/** A call's end: never thrown, so one row's failure stays that row's data. */
export type CallResult<T> =
  /** `replayed`: not sent, the journal had this call's answer from an earlier run. */
  { ok: true; status: number; body: T; replayed?: boolean } | { ok: false; error: ApiError };

export interface ComplianceAnswer {
  userId?: string;
  agreementUrl?: string;
  kycUrl?: string;
  agreementStatus?: string;
  kycStatus?: string;
}

export interface PaymentDetailAnswer {
  id?: string;
}

export interface AgreementAnswer {
  success?: boolean;
}

/** GET v2/payer/{id}; a 404 is `found: false` (a payer the service does not know: not registered). */
export interface PayerAnswer {
  found: boolean;
  kycStatus?: string;
  agreementStatus?: string;
  isCompliant?: boolean;
  userId?: string;
}

/** GET v2/payer/{id}/payment-details; a 404 is `found: false` with no accounts. */
export interface AccountsAnswer {
  found: boolean;
  accounts: StoredPaymentDetail[];
  /** The list could not be read whole: nothing may be concluded from what it lacks. */
  unreadable?: boolean;
}
