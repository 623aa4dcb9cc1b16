import type { Method } from 'got';
import { z } from 'zod';
import {
  agreementResponse,
  type CompliancePath,
  complianceResponse,
  paths,
  payerStatusResponse,
  paymentDetailResponse,
  paymentDetailsListResponse,
  storedPaymentDetail,
} from '../schema/index.js';
import type {
  AccountsAnswer,
  AgreementAnswer,
  ApiClient,
  CallResult,
  ComplianceAnswer,
  PayerAnswer,
  PaymentDetailAnswer,
} from './ApiClient.js';
import type { CallStep } from './retryPolicy.js';
import type { PersonalData } from './scrubServerText.js';

/** One call as the client sends it: the endpoint, and how its answer is read. */
export interface CallSpec<T> {
  step: CallStep;
  clientUserId: string;
  method: Method;
  path: string;
  body?: object;
  /** The rest of the row's personal data, cut out of the server's words like the body's own values. */
  personal?: PersonalData;
  headers: Record<string, string>;
  read: (body: unknown) => Read<T>;
  /** A read: a 404 is this answer, not a failure (the payer is simply not known). */
  notFound?: T;
  /**
   * A create the service does not de-duplicate: retried only when it certainly stored nothing (a 429, a
   * connection refused); any other failure is returned at once for a read to settle. Its failures do not count
   * towards "API down" either: a refusal by the KYC gate is a 500 that says nothing about the API's health.
   */
  once?: boolean;
}

type Call = <T>(spec: CallSpec<T>) => Promise<CallResult<T>>;

/** The service's endpoints, each a call through `call` (which owns retries, limits and the stop). */
export function endpoints(
  call: Call,
  compliancePath: CompliancePath | undefined,
): Pick<
  ApiClient,
  'createCompliance' | 'createPaymentDetail' | 'readPayer' | 'readPaymentDetails' | 'completeAgreement'
> {
  return {
    createCompliance: (body, meta) =>
      call({
        step: 'compliance',
        clientUserId: meta.clientUserId,
        method: 'POST',
        path: paths.compliance(compliancePath),
        body,
        personal: meta.personal,
        headers: { 'idempotency-key': meta.idempotencyKey },
        read: readCompliance,
      }),
    createPaymentDetail: (clientUserId, body, meta) =>
      call({
        step: 'payment-details',
        clientUserId,
        method: 'POST',
        path: paths.paymentDetails(clientUserId),
        body,
        personal: meta.personal,
        headers: { 'idempotency-key': meta.idempotencyKey },
        read: readPaymentDetail,
        once: true,
      }),
    readPayer: (clientUserId, personal) =>
      call({
        step: 'status',
        clientUserId,
        personal,
        method: 'GET',
        path: paths.payer(clientUserId),
        headers: {},
        read: readPayer,
        notFound: { found: false },
      }),
    readPaymentDetails: (clientUserId, personal) =>
      call({
        step: 'payment-details',
        clientUserId,
        personal,
        method: 'GET',
        path: paths.paymentDetails(clientUserId),
        headers: {},
        read: readAccounts,
        notFound: { found: false, accounts: [] },
      }),
    completeAgreement: (clientUserId, body, personal) =>
      call({
        step: 'agreement',
        clientUserId,
        personal,
        method: 'PATCH',
        path: paths.agreement(clientUserId),
        body,
        headers: {},
        read: readAgreement,
      }),
  };
}

// Success bodies are read leniently: the status code says the call worked, so a body that does not match the
// spec's response schema (a userId that is not a UUID, a missing status, not JSON at all) must not turn a
// created payer into a failure. The schema is tried first; whatever is usable is taken from the rest.

/**
 * The response schemas compiled (zod's `compile`): the same verdicts and issues, by code made for each schema. zod's
 * shared parser, walking every schema of the run, was most of the cost of reading an answer.
 */
const answer = {
  compliance: z.compile(complianceResponse),
  paymentDetail: z.compile(paymentDetailResponse),
  agreement: z.compile(agreementResponse),
  payer: z.compile(payerStatusResponse),
  accounts: z.compile(paymentDetailsListResponse),
};

export interface Read<T> {
  value: T;
  /** Paths of the schema issues (never values), for a warning in the log. */
  problems: string[];
}

export function readCompliance(body: unknown): Read<ComplianceAnswer> {
  const plain = plainCompliance(body);
  if (plain !== undefined) return { value: plain, problems: [] };
  const parsed = answer.compliance.safeParse(body);
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

/**
 * The answer of every row's first call, read without zod when it plainly matches the schema: every value already
 * what zod would give (a URL with no space or line break to take out). Anything else is zod's to read.
 */
function plainCompliance(body: unknown): ComplianceAnswer | undefined {
  const r = record(body);
  const status = record(r?.['status']);
  const { agreementStatus, kycStatus } = status ?? {};
  if (r === undefined || typeof agreementStatus !== 'string' || typeof kycStatus !== 'string') return undefined;
  const { userId, agreementUrl, kycUrl } = r;
  if (userId !== undefined && !(typeof userId === 'string' && UUID.test(userId))) return undefined;
  if (!plainUrl(agreementUrl) || !plainUrl(kycUrl)) return undefined;
  return defined({
    userId: userId as string | undefined,
    agreementUrl: agreementUrl as string | undefined,
    kycUrl: kycUrl as string | undefined,
    agreementStatus,
    kycStatus,
  });
}

const UUID = z.regexes.uuid();

/** Absent, or a URL that zod's `url()` takes as it is (it trims, and takes out tabs and line breaks). */
function plainUrl(value: unknown): boolean {
  return (
    value === undefined ||
    (typeof value === 'string' && value === value.trim() && !/[\t\n\r]/.test(value) && URL.canParse(value))
  );
}

export function readPaymentDetail(body: unknown): Read<PaymentDetailAnswer> {
  const parsed = answer.paymentDetail.safeParse(body);
  if (parsed.success) return { value: { id: parsed.data.payment_detail.id }, problems: [] };
  const detail = record(record(body)?.['payment_detail']);
  const id = detail?.['id'];
  return {
    value: defined({ id: typeof id === 'number' ? String(id) : string(id) }),
    problems: issuePaths(parsed.error.issues),
  };
}

export function readAgreement(body: unknown): Read<AgreementAnswer> {
  const parsed = answer.agreement.safeParse(body);
  if (parsed.success) return { value: { success: parsed.data.success }, problems: [] };
  const success = record(body)?.['success'];
  return { value: typeof success === 'boolean' ? { success } : {}, problems: issuePaths(parsed.error.issues) };
}

export function readPayer(body: unknown): Read<PayerAnswer> {
  const parsed = answer.payer.safeParse(body);
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
  const parsed = answer.accounts.safeParse(body);
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

/** The object without its undefined members: every answer passes here, so one object and no arrays of entries. */
function defined<T extends object>(value: T): T {
  const record = value as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const key in record) if (record[key] !== undefined) kept[key] = record[key];
  return kept as T;
}

function issuePaths(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey> }>): string[] {
  return issues.map((issue) => (issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.')));
}
