import type { Logger } from 'pino';
import type { AgreementRequest, CompliancePath, ComplianceRequest, PaymentDetailRequest } from '../core/schemas.js';
import type {
  CallResult,
  ComplianceAnswer,
  PaymentDetailAnswer,
  AgreementAnswer,
  PayerAnswer,
  AccountsAnswer,
} from '../core/answers.js';
import type { Backoff } from './retryPolicy.js';
import type { BlockNews, BlockTiming } from './ServiceBlock.js';
import type { CallStep } from '../core/apiError.js';
import type { Clock, RateLimiter } from './RateLimiter.js';
import type { PersonalData } from './scrubServerText.js';
import type { Refusal } from '../plan/rowState.js';

/**
 * Why the client stopped; `write-failed`: the journal or the results could not be written, so nothing more may go out;
 * `unreachable`: no call ever got an answer (DNS, refused, TLS, timeouts); `not-the-api`: the first answers were 2xx
 * that were not the API's (an HTML page, nothing), and none was; `blocked`: the service's block (nothing but 429s)
 * outlasted --max-block-wait.
 */
export type StopReason =
  | 'key-rejected'
  | 'api-down'
  | 'interrupted'
  | 'write-failed'
  | 'unreachable'
  | 'not-the-api'
  | 'blocked';

export interface StopInfo {
  reason: StopReason;
  message: string;
}

export interface ClientStats {
  /** Requests sent, retries included. */
  requests: number;
  /** Responses by status code, and `network` / `timeout` for attempts that got none; the refusals below apart. */
  byStatus: Record<string, number>;
  /**
   * Bank accounts the service refused as it refuses every one until the payer is ready for it (before KYC is
   * approved, or before the agreement is completed): what the service does then, not faults. Present when any.
   */
  refused?: RefusalCounts;
  /** Attempts after the first of a call. */
  retries: number;
}

export interface RefusalCounts {
  beforeKyc: number;
  beforeAgreement: number;
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
  /** Where create compliance is served. */
  compliancePath: CompliancePath;
  apiKey: string;
  /** Where the key came from and how to give another: the stop's message says it when the service rejects the key. */
  keyAdvice?: string;
  /** Per attempt, in ms. */
  timeoutMs: number;
  /** Retries per call for retryable failures (a 429 is waited out, not counted). */
  retries: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Requests per second, all calls together; 0 = no cap. Ignored when `limiter` is given. */
  rate: number;
  logger?: Logger;
  /** Default { baseMs: 500, maxMs: 30 000 }. */
  backoff?: Backoff;
  /** Jitter source, [0, 1). Default Math.random. */
  random?: () => number;
  /** For the limiter and the retry delays. Default: the system clock. */
  clock?: Clock;
  /** Consecutive calls failed for good with network errors or 5xx before the client stops ('api-down'). */
  maxConsecutiveFailures: number;
  /** A `Retry-After` longer than this is cut to it. Default 300 000 (the real API's 5-minute block). */
  maxRetryAfterMs?: number;
  /** A limiter to use instead of a new one from `rate` (to share it, or to drive its rate from outside). */
  limiter?: RateLimiter;
  /**
   * Lower the rate on 429s that follow it and raise it again after quiet periods (see AdaptiveRate), never above `rate`
   * (or the given limiter's rate). With no cap (rate 0) a 429 engages one. `false` keeps the rate fixed. Default on.
   */
  adaptiveRate?: AdaptiveRateOptions | false;
  /** The longest the service's block (nothing but 429s) is waited out before the client stops. Default 10 min. */
  maxBlockWaitMs?: number;
  /** When nothing but 429s is a block, and how often it is probed (tests scale them down). */
  blockTiming?: Partial<Omit<BlockTiming, 'maxWaitMs'>>;
  /** Told when the service's block begins, is probed, and ends: the run says it. */
  onBlock?: (news: BlockNews) => void;
  /** Called after every attempt. */
  onAttempt?: (info: AttemptInfo) => void;
  /** Called when the caller reads an answer as an expected refusal (`refused()`). */
  onRefused?: (refusal: Refusal) => void;
}

/**
 * Every call may be given `personal`: what the row holds of the payer (its request bodies). A server may quote data
 * of the payer that another call sent, so all of it is cut out of the server's words (scrubServerText), not only the
 * call's own body.
 */
export interface ApiClient {
  /** POST v2/payer (or v1/payer, the path first documented). */
  createCompliance(
    body: ComplianceRequest,
    meta: { clientUserId: string; idempotencyKey: string; personal?: PersonalData },
  ): Promise<CallResult<ComplianceAnswer>>;
  /**
   * POST v2/payer/{clientUserId}/payment-details. Never sent twice blindly: only a 429 or a connection that never
   * opened (the service certainly stored nothing) is retried here; any other failure comes back at once, for a read of
   * what is stored to settle it.
   */
  createPaymentDetail(
    clientUserId: string,
    body: PaymentDetailRequest,
    meta: { idempotencyKey: string; personal?: PersonalData },
  ): Promise<CallResult<PaymentDetailAnswer>>;
  /** GET v2/payer/{clientUserId}: the payer's statuses; `found: false` for a 404. */
  readPayer(clientUserId: string, personal?: PersonalData): Promise<CallResult<PayerAnswer>>;
  /** GET v2/payer/{clientUserId}/payment-details: every stored account; `found: false` for a 404. */
  readPaymentDetails(clientUserId: string, personal?: PersonalData): Promise<CallResult<AccountsAnswer>>;
  /**
   * PATCH v2/payer/{clientUserId}. `refusable`: sent for a payer whose KYC is not approved, which a service may
   * refuse until it is: a 500 then is the plan's to read, not resent, and says nothing of the API's health.
   */
  completeAgreement(
    clientUserId: string,
    body: AgreementRequest,
    meta?: { personal?: PersonalData | undefined; refusable?: boolean | undefined },
  ): Promise<CallResult<AgreementAnswer>>;
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
  /**
   * The caller read a failed create's answer as the service's refusal until the payer is ready (the plan knows the
   * payer's statuses, the client does not): counted in `stats().refused` instead of under its status code.
   */
  refused(refusal: Refusal): void;
  /** What the rate adaptation did and where it stands; undefined when it is off. */
  rateAdaptation(): AdaptiveRateStats | undefined;
  readonly concurrency: number;
  readonly limiter: RateLimiter;
}

// The rate adaptation's settings and what it reports (AdaptiveRate.ts carries them out).

export interface AdaptiveRateOptions {
  /** A decrease takes the rate to (the lower of the current rate and the rate really sent) x this at most. Default 0.7. */
  decreaseFactor?: number;
  /** Never below this many requests/s (nor above the cap). Default 1. */
  floor?: number;
  /** Requests/s added by the first probe above the last rate that got a 429; each probe that passes doubles it. Default 1. */
  increaseStep?: number;
  /** A quiet period before a probe: this long since the last change, no 429 and an answer to end it. Default 2000 ms. */
  increaseEveryMs?: number;
  /** Repeated 429s at the same rate double the quiet period before the next probe, up to this. Default 16 000 ms. */
  maxIncreaseEveryMs?: number;
  /** Answers to requests sent at a lowered rate that say whether the 429s follow the rate. Default 40. */
  trialAnswers?: number;
}

/** What the adaptation is doing: trusting 429s as a rate signal, testing a decrease, or ignoring 429s as noise. */
export type AdaptiveMode = 'steady' | 'trial' | 'noise';

/**
 * A change of rate, and why: a 429 lowered it (`refined`: the rest of that burst's answers showed the server took
 * less), a quiet period raised it, or 429s were found not to follow the rate.
 */
export interface RateChange {
  rate: number;
  because: 'throttled' | 'refined' | 'quiet' | 'not-the-rate';
}

export interface AdaptiveRateStats {
  decreases: number;
  increases: number;
  /** Decreases undone because the 429 share did not fall with the rate. */
  undone: number;
  /** The limiter's rate now (0: no cap). */
  rate: number;
  /** The lowest rate the limiter was set to (Infinity while never lowered). */
  lowest: number;
  ceiling: number;
  probeEveryMs: number;
  mode: AdaptiveMode;
}
