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
  pathSegment,
  RouteError,
  storedPaymentDetail,
} from '../core/schemas.js';
import type { ApiClient } from './ApiClient.js';
import type {
  AccountsAnswer,
  AgreementAnswer,
  CallResult,
  ComplianceAnswer,
  PayerAnswer,
  PaymentDetailAnswer,
} from '../core/answers.js';
import type { CallStep } from '../core/apiError.js';
import type { PersonalData } from './scrubServerText.js';

/** One call as the client sends it: the endpoint, and how its answer is read. */
export interface CallSpec<T> {
  step: CallStep;
  clientUserId: string;
  method: Method;
  /** A RouteError when the clientUserId cannot be the path's segment: the call is refused, nothing is sent. */
  path: string | RouteError;
  body?: object;
  /** The rest of the row's personal data, cut out of the server's words like the body's own values. */
  personal?: PersonalData;
  headers: Record<string, string>;
  read: (body: unknown, status: number) => Read<T>;
  /** A read: a 404 is this answer, not a failure (the payer is simply not known). */
  notFound?: T;
  /**
   * A create the service does not de-duplicate: retried only when it certainly stored nothing (a 429, a
   * connection refused); any other failure is returned at once for a read to settle. Its failures do not count
   * towards "API down" either: a refusal by the KYC gate is a 500 that says nothing about the API's health.
   */
  once?: boolean;
  /**
   * A call the service may refuse by its rules with a 500 (the agreement of a payer whose KYC is not approved): such
   * an answer is returned at once for the plan to read, not resent, and not counted towards "API down". Other
   * faults are retried as usual.
   */
  refusable?: boolean;
}

type Call = <T>(spec: CallSpec<T>) => Promise<CallResult<T>>;

/** The service's endpoints, each a call through `call` (which owns retries, limits and the stop). */
export function endpoints(
  call: Call,
  compliancePath: CompliancePath,
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
        // The id is in the body here, but a payer no path can name could never be read or completed: not registered.
        path: route(() => {
          pathSegment(meta.clientUserId);
          return paths.compliance(compliancePath);
        }),
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
        path: route(() => paths.paymentDetails(clientUserId)),
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
        path: route(() => paths.payer(clientUserId)),
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
        path: route(() => paths.paymentDetails(clientUserId)),
        headers: {},
        read: readAccounts,
        notFound: { found: false, accounts: [] },
      }),
    completeAgreement: (clientUserId, body, meta) =>
      call({
        step: 'agreement',
        clientUserId,
        personal: meta?.personal,
        ...(meta?.refusable ? { refusable: true } : {}),
        method: 'PATCH',
        path: route(() => paths.agreement(clientUserId)),
        body,
        headers: {},
        read: readAgreement,
      }),
  };
}

/** The path `build` makes, or the RouteError it threw: refused as data, so the call ends as that row's error. */
function route(build: () => string): string | RouteError {
  try {
    return build();
  } catch (error) {
    if (error instanceof RouteError) return error;
    throw error;
  }
}

// Success bodies are read leniently where they are the operation's answer: a body that only strays from the spec's
// response schema (a userId that is not a UUID, odd extra fields) must not turn a created payer into a failure. The
// schema is tried first; whatever is usable is taken from the rest. But a 2xx is success only when its body is that
// answer at all: a captive portal, a proxy or a web server at a wrong --base-url answers `200 text/html` to anything,
// and taking that for "created" would report payers registered that never were. Such a body is `unclear`.

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
  /** Not the operation's answer: what it lacks (`without payment_detail.id`); the call's outcome is unknown. */
  unclear?: string;
}

const NOT_AN_OBJECT = 'that is not a JSON object';

/** An answer that is not the operation's: no value to take from it. */
function unclear<T>(value: T, lacks: string): Read<T> {
  return { value, problems: [], unclear: lacks };
}

export function readCompliance(body: unknown): Read<ComplianceAnswer> {
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
  const r = record(body);
  if (r === undefined) return unclear({}, NOT_AN_OBJECT);
  const status = record(r['status']);
  // Its documented fields: a payer's id, its links or its statuses. An object with none of them is another answer.
  const answered = ['userId', 'agreementUrl', 'kycUrl'].some((key) => string(r[key]) !== undefined);
  if (!answered && string(status?.['kycStatus']) === undefined && string(status?.['agreementStatus']) === undefined)
    return unclear({}, 'without userId, links or status');
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
  const parsed = answer.paymentDetail.safeParse(body);
  if (parsed.success) return { value: { id: parsed.data.payment_detail.id }, problems: [] };
  const detail = record(record(body)?.['payment_detail']);
  const raw = detail?.['id'];
  const id = typeof raw === 'number' ? String(raw) : string(raw);
  // Without the id, nothing says an account was stored: a read settles it, as after a lost answer.
  if (id === undefined) return unclear({}, record(body) === undefined ? NOT_AN_OBJECT : 'without payment_detail.id');
  return { value: { id }, problems: issuePaths(parsed.error.issues) };
}

/**
 * The PATCH is documented to answer `{ "success": true }`; being idempotent, any JSON object (or a 204, which has no
 * body by definition) is taken as done. An HTML page or an empty 200 is not.
 */
export function readAgreement(body: unknown, status?: number): Read<AgreementAnswer> {
  const parsed = answer.agreement.safeParse(body);
  if (parsed.success) return { value: { success: parsed.data.success }, problems: [] };
  if (status === 204) return { value: {}, problems: [] };
  if (record(body) === undefined) return unclear({}, NOT_AN_OBJECT);
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
  if (r === undefined) return unclear({ found: true }, NOT_AN_OBJECT);
  const compliant = r['isCompliant'];
  // What the plan decides on: with none of them, there is nothing to decide with.
  if (
    typeof compliant !== 'boolean' &&
    string(r['kycStatus']) === undefined &&
    string(r['agreementStatus']) === undefined
  )
    return unclear({ found: true }, 'without kycStatus, agreementStatus or isCompliant');
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
 * The accounts stored, leniently: odd extra fields are fine, a numeric id is taken as text. An answer without the
 * list is unclear; an account without an id makes it `unreadable`: what it leaves out cannot be taken as absent.
 */
export function readAccounts(body: unknown): Read<AccountsAnswer> {
  const parsed = answer.accounts.safeParse(body);
  if (parsed.success) return { value: { found: true, accounts: parsed.data.paymentDetails }, problems: [] };
  const list = record(body)?.['paymentDetails'];
  if (!Array.isArray(list))
    return unclear(
      { found: true, accounts: [] },
      record(body) === undefined ? NOT_AN_OBJECT : 'without a paymentDetails list',
    );
  const items = list;
  const accounts = items.flatMap((item) => {
    const id = record(item)?.['id'];
    const one = storedPaymentDetail.safeParse(typeof id === 'number' ? { ...(item as object), id: String(id) } : item);
    return one.success ? [one.data] : [];
  });
  const unreadable = accounts.length < items.length;
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
