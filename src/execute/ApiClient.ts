import type { Logger } from 'pino';
import type {
  AgreementRequest,
  CompliancePath,
  ComplianceRequest,
  PaymentDetailRequest,
  StoredPaymentDetail,
} from '../schema/index.js';
import type { AdaptiveRateOptions, AdaptiveRateStats } from './AdaptiveRate.js';
import type { ApiError, CallStep, Backoff } from './retryPolicy.js';
import type { Clock, RateLimiter } from './RateLimiter.js';

/** A call's end: never thrown, so one row's failure stays that row's data. */
export type CallResult<T> =
  /** `replayed`: not sent, the journal had this call's answer from an earlier run. */
  { ok: true; status: number; body: T; replayed?: boolean } | { ok: false; error: ApiError };

/**
 * Why the client stopped; `write-failed`: the journal or the results could not be written, so nothing more may go out;
 * `unreachable`: no call ever got an answer (DNS, refused, TLS, timeouts).
 */
export type StopReason = 'key-rejected' | 'api-down' | 'interrupted' | 'write-failed' | 'unreachable';

export interface StopInfo {
  reason: StopReason;
  message: string;
}

export interface ClientStats {
  /** Requests sent, retries included. */
  requests: number;
  /** Responses by status code, and `network` / `timeout` for attempts that got none. */
  byStatus: Record<string, number>;
  /** Attempts after the first of a call. */
  retries: number;
}

/**
 * One attempt, as reported to `onAttempt` (report.html's chart of attempts per second listens here). Carries no
 * body value.
 */
export interface AttemptInfo {
  step: CallStep;
  clientUserId: string;
  /** 0 for the first attempt of a call. */
  attempt: number;
  /** HTTP status, or `network` / `timeout`. */
  status: number | 'network' | 'timeout';
  ms: number;
}

export interface ApiClientOptions {
  /** API root; the spec's paths (`v1/payer`, ...) are appended. */
  baseUrl: string;
  /** Where create compliance is served. Default `/v1/payer`. */
  compliancePath?: CompliancePath;
  apiKey: string;
  /** Per attempt. Default 30 000. */
  timeoutMs?: number;
  /** Retries per call for retryable failures. Default 5. */
  retries?: number;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  /** Requests per second, all calls together; 0 = no cap. Default 5. Ignored when `limiter` is given. */
  rate?: number;
  logger?: Logger;
  /** Default { baseMs: 500, maxMs: 30 000 }. */
  backoff?: Backoff;
  /** Jitter source, [0, 1). Default Math.random. */
  random?: () => number;
  /** For the limiter and the retry delays. Default: the system clock. */
  clock?: Clock;
  /** Consecutive calls failed for good with network errors or 5xx before the client stops ('api-down'). Default 20. */
  maxConsecutiveFailures?: number;
  /** A `Retry-After` longer than this is cut to it. Default 300 000 (the real API's 5-minute block). */
  maxRetryAfterMs?: number;
  /** A limiter to use instead of a new one from `rate` (to share it, or to drive its rate from outside). */
  limiter?: RateLimiter;
  /**
   * Lower the rate on 429s that follow it and raise it again after quiet periods (see AdaptiveRate), never above `rate`
   * (or the given limiter's rate). With no cap (rate 0) a 429 engages one. `false` keeps the rate fixed. Default on.
   */
  adaptiveRate?: AdaptiveRateOptions | false;
  /** Called after every attempt. */
  onAttempt?: (info: AttemptInfo) => void;
}

export interface ApiClient {
  /** POST v1/payer (or v2/payer, the create-or-update path). */
  createCompliance(
    body: ComplianceRequest,
    meta: { clientUserId: string; idempotencyKey: string },
  ): Promise<CallResult<ComplianceAnswer>>;
  /**
   * POST v2/payer/{clientUserId}/payment-details. Never sent twice blindly: only a 429 or a connection that never
   * opened (the service certainly stored nothing) is retried here; any other failure comes back at once, for a read of
   * what is stored to settle it.
   */
  createPaymentDetail(
    clientUserId: string,
    body: PaymentDetailRequest,
    meta: { idempotencyKey: string },
  ): Promise<CallResult<PaymentDetailAnswer>>;
  /** GET v2/payer/{clientUserId}: the payer's statuses; `found: false` for a 404. */
  readPayer(clientUserId: string): Promise<CallResult<PayerAnswer>>;
  /** GET v2/payer/{clientUserId}/payment-details: every stored account; `found: false` for a 404. */
  readPaymentDetails(clientUserId: string): Promise<CallResult<AccountsAnswer>>;
  /** PATCH v2/payer/{clientUserId}. */
  completeAgreement(clientUserId: string, body: AgreementRequest): Promise<CallResult<AgreementAnswer>>;
  /** Waits the backoff of a call's `retry`-th new attempt made from outside (a bank account re-created after a read); ends early when the client stops. */
  backoff(retry: number): Promise<void>;
  /** Why the client stopped sending, if it did. */
  stopped(): StopInfo | undefined;
  /**
   * Stop sending: calls not yet sent, and calls whose retry the stop cut off, resolve `{ ok: false, error.kind
   * 'stopped' }`; requests on the wire finish. The first reason wins.
   */
  stop(reason: StopReason, message?: string): void;
  /** Calls queued or in flight (backoff waits included). */
  readonly pending: number;
  /** Resolves once `pending < n` (the reader waits here: backpressure). */
  whenBelow(n: number): Promise<void>;
  stats(): ClientStats;
  /** What the rate adaptation did and where it stands; undefined when it is off. */
  rateAdaptation(): AdaptiveRateStats | undefined;
  readonly concurrency: number;
  readonly limiter: RateLimiter;
}

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
