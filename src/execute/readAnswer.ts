import {
  agreementResponse,
  complianceResponse,
  paymentDetailResponse,
  paymentDetailsListResponse,
  payerStatusResponse,
  storedPaymentDetail,
  type StoredPaymentDetail,
} from '../schema/index.js';

// Success bodies are read leniently: the status code says the call worked, so a body that does not match the
// spec's response schema (a userId that is not a UUID, a missing status, not JSON at all) must not turn a
// created payer into a failure. The schema is tried first; whatever is usable is taken from the rest.

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

export interface Read<T> {
  value: T;
  /** Paths of the schema issues (never values), for a warning in the log. */
  problems: string[];
}

export function readCompliance(body: unknown): Read<ComplianceAnswer> {
  const parsed = complianceResponse.safeParse(body);
  if (parsed.success) {
    const { userId, agreementUrl, kycUrl, status } = parsed.data;
    return {
      value: defined({
        userId,
        agreementUrl,
        kycUrl,
        agreementStatus: status.agreementStatus,
        kycStatus: status.kycStatus,
      }),
      problems: [],
    };
  }
  const status = record(record(body)?.['status']);
  return {
    value: defined({
      userId: string(record(body)?.['userId']),
      agreementUrl: string(record(body)?.['agreementUrl']),
      kycUrl: string(record(body)?.['kycUrl']),
      agreementStatus: string(status?.['agreementStatus']),
      kycStatus: string(status?.['kycStatus']),
    }),
    problems: issuePaths(parsed.error.issues),
  };
}

export function readPaymentDetail(body: unknown): Read<PaymentDetailAnswer> {
  const parsed = paymentDetailResponse.safeParse(body);
  if (parsed.success) return { value: { id: parsed.data.payment_detail.id }, problems: [] };
  const detail = record(record(body)?.['payment_detail']);
  const id = detail?.['id'];
  return {
    value: defined({ id: typeof id === 'number' ? String(id) : string(id) }),
    problems: issuePaths(parsed.error.issues),
  };
}

export function readAgreement(body: unknown): Read<AgreementAnswer> {
  const parsed = agreementResponse.safeParse(body);
  if (parsed.success) return { value: { success: parsed.data.success }, problems: [] };
  const success = record(body)?.['success'];
  return { value: typeof success === 'boolean' ? { success } : {}, problems: issuePaths(parsed.error.issues) };
}

export function readPayer(body: unknown): Read<PayerAnswer> {
  const parsed = payerStatusResponse.safeParse(body);
  if (parsed.success) {
    const { kycStatus, agreementStatus, isCompliant, userId } = parsed.data;
    return { value: defined({ found: true, kycStatus, agreementStatus, isCompliant, userId }), problems: [] };
  }
  const r = record(body);
  const compliant = r?.['isCompliant'];
  return {
    value: defined({
      found: true,
      kycStatus: string(r?.['kycStatus']),
      agreementStatus: string(r?.['agreementStatus']),
      isCompliant: typeof compliant === 'boolean' ? compliant : undefined,
      userId: string(r?.['userId']),
    }),
    problems: issuePaths(parsed.error.issues),
  };
}

/**
 * The accounts stored, leniently: odd extra fields are fine, a numeric id is taken as text. A list that is missing,
 * or an account without an id, makes the answer `unreadable`: what it leaves out cannot be taken as absent.
 */
export function readAccounts(body: unknown): Read<AccountsAnswer> {
  const parsed = paymentDetailsListResponse.safeParse(body);
  if (parsed.success) return { value: { found: true, accounts: parsed.data.paymentDetails }, problems: [] };
  const list = record(body)?.['paymentDetails'];
  const items = Array.isArray(list) ? list : [];
  const accounts = items.flatMap((item) => {
    const id = record(item)?.['id'];
    const one = storedPaymentDetail.safeParse(typeof id === 'number' ? { ...(item as object), id: String(id) } : item);
    return one.success ? [one.data] : [];
  });
  const unreadable = !Array.isArray(list) || accounts.length < items.length;
  return {
    value: { found: true, accounts, ...(unreadable ? { unreadable } : {}) },
    problems: issuePaths(parsed.error.issues),
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function string(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function issuePaths(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey> }>): string[] {
  return issues.map((issue) => (issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.')));
}
