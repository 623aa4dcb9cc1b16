import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { StopInfo, StopReason } from './ApiClient.js';
import type { Clock } from './RateLimiter.js';
import { isTlsFailure, type RequestFailure, unreachableCause } from './retryPolicy.js';
import { ApiError, type CallStep } from '../core/apiError.js';

const STOPPED_BECAUSE: Record<StopReason, string> = {
  'key-rejected': 'API key rejected',
  'api-down': 'API down',
  interrupted: 'run interrupted',
  'write-failed': 'the run could not write its records',
  unreachable: 'the API cannot be reached',
  'not-the-api': 'the server does not answer as the API does',
  blocked: 'the service blocked this key and address',
};

/** How long connections may keep failing, with nothing ever answered, before the client gives the API up. */
const UNREACHABLE_GRACE_MS = 2000;
/** Attempts timed out, with nothing ever answered, before the client gives the API up (a first batch all hung). */
const UNREACHABLE_TIMEOUTS = 3;
/**
 * 2xx answers that were not the operation's, with none that was, before the client gives the server up: a captive
 * portal or a web server at a wrong --base-url answers every call so. Three, so one odd answer is not a verdict.
 */
const FOREIGN_ANSWERS = 3;

export interface StopRulesOptions {
  baseUrl: string;
  /** Consecutive calls failed for good with network errors, 5xx or unclear answers before 'api-down'. */
  maxConsecutiveFailures: number;
  clock: Clock;
  logger: Logger | undefined;
  /** Called once, when the client stops: the rate limiter lets its waiters go, so that they can give up. */
  onStop: () => void;
  /** Where the key came from and how to give another, added to the stop when the service rejects the key. */
  keyAdvice?: string | undefined;
}

/**
 * When the whole client stops rather than one row failing: a key the API rejects, an API that cannot be reached or
 * is down, or a server that answers but is not the API. Every row would meet the same wall, so the run ends with one
 * line saying which, instead of each row spending its retries on it. The stop itself is kept here too (the run's
 * own reasons come through `stop`): why, and the signal that ends every wait.
 */
export class StopRules {
  /** Why the client stopped sending; undefined while it sends. */
  stopped: StopInfo | undefined;
  private readonly stopping = new AbortController();
  /** Aborted at the stop: a call waiting out a backoff gives up then. */
  readonly signal: AbortSignal = this.stopping.signal;
  /** Some call got an HTTP answer: from then on a failure to connect is a blip, not an API out of reach. */
  reached = false;
  /** Some 2xx was the operation's answer: from then on an unclear one is a blip, retried (or read for) as usual. */
  private understood = false;
  private foreignAnswers = 0;
  private unreachableSince: number | undefined;
  private unreachableTimeouts = 0;
  private consecutiveFailures = 0;
  private readonly baseUrl: string;

  constructor(private readonly o: StopRulesOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    // Every call waiting out a backoff listens on it; after a 429 that is every call in flight, not a leak.
    setMaxListeners(0, this.signal);
  }

  /** Stop sending. The first reason wins. */
  stop(reason: StopReason, message?: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = { reason, message: message ?? `stopped: ${STOPPED_BECAUSE[reason]}` };
    this.o.logger?.error({ reason }, this.stopped.message);
    this.stopping.abort();
    this.o.onStop();
  }

  /**
   * The error of a call the stop kept from going out. `tried`: the error of an attempt that would have been retried
   * but for the stop; kept as the cause.
   */
  notSent(step: CallStep, tried?: ApiError): ApiError {
    const reason = this.stopped?.reason;
    return new ApiError({
      step,
      kind: 'stopped',
      retryable: false,
      stoppedBecause: reason === undefined ? undefined : STOPPED_BECAUSE[reason],
      ...(tried === undefined ? {} : { cause: tried }),
    });
  }

  /** An HTTP answer. One that is not a 5xx means the API is up; a 2xx only once it is read as the answer (below). */
  answered(status: number): void {
    this.reached = true;
    if (status >= 300 && status < 500) this.consecutiveFailures = 0;
  }

  /** A 2xx read as the operation's answer. */
  understoodAnswer(): void {
    this.understood = true;
    this.consecutiveFailures = 0;
  }

  /** A 2xx that was not the operation's answer; a few of them, with none that was, and this is not the API. */
  foreignAnswer(answered: string): void {
    if (this.understood) return;
    this.foreignAnswers += 1;
    this.o.logger?.warn({ answered }, "a 2xx answer that is not the API's");
    if (this.foreignAnswers >= FOREIGN_ANSWERS)
      this.stop('not-the-api', `this does not look like the Payer API at ${this.baseUrl}: ${answered}`);
  }

  /**
   * No call has had an answer yet, and one could not connect: a name that does not resolve, a port that refuses, a
   * TLS handshake that fails, a timeout. The client stops at once for a TLS failure (retrying does not change a
   * certificate), after a few timeouts (each costs a whole timeout), and after a short grace for the rest (a service
   * restarting). Once anything answered, the same failures are blips and are retried as usual.
   */
  failedToConnect(failure: RequestFailure): void {
    if (this.reached) return;
    const cause = unreachableCause(failure);
    if (cause === undefined) return;
    const now = this.o.clock.now();
    this.unreachableSince ??= now;
    if (failure.kind === 'timeout') this.unreachableTimeouts += 1;
    if (
      isTlsFailure(failure.code) ||
      this.unreachableTimeouts >= UNREACHABLE_TIMEOUTS ||
      now - this.unreachableSince >= UNREACHABLE_GRACE_MS
    )
      this.unreachable(cause);
  }

  /** Out of retries without ever connecting: no later call will connect either. */
  unreachable(cause: string): void {
    this.stop('unreachable', `cannot reach ${this.baseUrl}: ${cause}`);
  }

  /** A call that failed for good. `countsAsTrouble`: false for a create's failure (a KYC gate's 500 says nothing of the API). */
  failedForGood(error: ApiError, countsAsTrouble: boolean): void {
    if (error.kind === 'http' && (error.status === 401 || error.status === 403)) {
      const advice = this.o.keyAdvice === undefined ? '' : `: ${this.o.keyAdvice}`;
      this.stop('key-rejected', `stopped: API key rejected (${error.message})${advice}`);
      return;
    }
    // Create compliance has no payer to be missing: a 404 there is a wrong address, for every row alike.
    if (error.kind === 'http' && error.status === 404 && error.step === 'compliance') {
      this.stop(
        'api-down',
        `stopped: create compliance answered ${error.detail} at ${this.o.baseUrl}: check --base-url and --compliance-path`,
      );
      return;
    }
    if (!countsAsTrouble) return;
    const apiTrouble =
      error.kind === 'network' ||
      error.kind === 'timeout' ||
      error.kind === 'unclear' ||
      (error.kind === 'http' && (error.status ?? 0) >= 500);
    if (!apiTrouble) return;
    this.consecutiveFailures += 1;
    if (this.consecutiveFailures >= this.o.maxConsecutiveFailures) {
      this.stop(
        'api-down',
        `stopped: API down, ${this.consecutiveFailures} calls in a row failed after retries (last: ${error.message})`,
      );
    }
  }
}
