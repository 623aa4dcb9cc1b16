import { agreementResponse, complianceResponse, paymentDetailResponse } from '../schema/index.js';

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

export interface Read<T> {
  value: T;
  /** Paths of the schema issues (never values), for a warning in the log. */
  problems: string[];
}

export function readCompliance(body: unknown): Read<ComplianceAnswer> {
  const parsed = complianceResponse.safeParse(body);
  if (parsed.success) {
    const { userId, agreementUrl, kycUrl, status } = parsed.data;
    return { value: defined({ userId, agreementUrl, kycUrl, agreementStatus: status.agreementStatus, kycStatus: status.kycStatus }), problems: [] };
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

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
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
