import type { ClientRequest } from 'node:http';
import type { CancelableRequest, Got, Response } from 'got';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import { RouteError } from '../core/schemas.js';
import type { AdaptiveRate, RateChange } from './AdaptiveRate.js';
import type { AttemptInfo, ClientStats, RefusalCounts } from './ApiClient.js';
import type { Refusal } from '../plan/rowState.js';
import type { CallResult } from '../core/answers.js';
import type { CallSpec } from './endpoints.js';
import { AnswerTooLargeError, withinAnswerLimit } from './httpClient.js';
import type { Clock, LimiterSlot, RateLimiter } from './RateLimiter.js';
import {
  attemptError,
  type AttemptEnd,
  certainlyNotStored,
  describeAnswer,
  fromGotError,
  NOT_SENT,
  type RetryTiming,
  retryDelay,
  unreachableCause,
} from './retryPolicy.js';
import { ApiError, MAX_ANSWER_BYTES } from '../core/apiError.js';
import type { StopRules } from './StopRules.js';
import type { ServiceBlock } from './ServiceBlock.js';

/** What the calls go by, checked and resolved by createApiClient. */
export interface ApiCallsConfig {
  http: Got;
  apiKey: string;
  timeoutMs: number;
  retries: number;
  concurrency: number;
  timing: RetryTiming;
  clock: Clock;
  limiter: RateLimiter;
  adaptive: AdaptiveRate | undefined;
  stops: StopRules;
  block: ServiceBlock;
  logger: Logger | undefined;
  onAttempt: ((info: AttemptInfo) => void) | undefined;
  onRefused: ((refusal: Refusal) => void) | undefined;
}

/**
 * The client's request path: `call` is one operation until it is done (its attempts and the waits between them),
 * `attempt` one HTTP attempt, in a concurrency slot and after a limiter slot.
 *
 * Retries are done here, not by got (`retry.limit: 0`): each attempt takes its own concurrency slot and its own
 * limiter slot, so a retry is counted against the concurrency limit and the rate cap like any first attempt,
 * and a call waiting out its backoff holds no concurrency slot. got's own retry would resend from inside one
 * slot and one limiter token, and a beforeRetry hook cannot give the slot back while it sleeps.
 */
export class ApiCalls {
  /** Calls queued or in flight, backoff waits included. */
  pending = 0;
  private readonly belowWaiters: Array<{ n: number; resolve: () => void }> = [];
  private readonly slots: LimitFunction;
  private readonly counts = { requests: 0, retries: 0 };
  // A Map, not an object: an object keyed by status codes keeps them as sparse array elements, slow to update.
  private readonly byStatus = new Map<number | string, number>();
  private refusals: RefusalCounts | undefined;
  // A line per request is built only when it is written: at thousands of requests a second the object is not free.
  private readonly debug: boolean;

  constructor(private readonly c: ApiCallsConfig) {
    this.slots = pLimit(c.concurrency);
    this.debug = c.logger?.isLevelEnabled('debug') === true;
  }

  /** A call until it is done: its attempts, each in a concurrency slot, and the waits between them. */
  async call<T>(spec: CallSpec<T>): Promise<CallResult<T>> {
    const { stops } = this.c;
    if (stops.stopped !== undefined) return { ok: false, error: stops.notSent(spec.step) };
    if (spec.path instanceof RouteError)
      return {
        ok: false,
        error: new ApiError({ step: spec.step, kind: 'bad-route', retryable: false, routeProblem: spec.path.message }),
      };
    this.pending += 1;
    try {
      let lastError: ApiError | undefined;
      // Attempts that failed, 429s apart: a 429 says "not now", and is waited out: in a block by the block watch,
      // and a call refused so alone for as long (others answered) stops the client the same way.
      let failures = 0;
      let refusedSince: number | undefined;
      for (let attempt = 0; ; attempt += 1) {
        const end = await this.slots(() => this.attempt(spec, attempt));
        if (!is429(end)) refusedSince = undefined;
        else {
          refusedSince ??= this.c.clock.now();
          if (this.c.block.refusedSince(refusedSince)) return { ok: false, error: stops.notSent(spec.step) };
        }
        const next = this.afterAttempt(spec, end, attempt, failures, lastError);
        if (!(next instanceof Retry)) return next;
        if (!is429(end)) failures += 1;
        lastError = next.error;
        await this.c.clock.sleep(next.delayMs, stops.signal);
      }
    } finally {
      this.pending -= 1;
      this.wakeBelowWaiters();
    }
  }

  /** One HTTP attempt of a call, once the rate limiter lets it go; not sent once the client stopped. */
  async attempt<T>(spec: CallSpec<T>, attempt: number): Promise<AttemptEnd> {
    const { stops, limiter, logger, block } = this.c;
    if (stops.stopped !== undefined) return NOT_SENT;
    // While the service blocks the key, one call at a time probes it; the others wait here, holding no limiter slot.
    let probe = block.blocked && (await block.turn(stops.signal));
    if (stops.stopped !== undefined) return NOT_SENT;
    const slot = await limiter.acquire();
    // A block found while this call waited for the limiter: it waits its turn too, rather than go out with the rest.
    if (!probe && block.blocked) probe = await block.turn(stops.signal);
    // The stop lets every call waiting on the limiter go, to give up here.
    if (stops.stopped !== undefined) return NOT_SENT;
    const sentAt = this.c.clock.now();
    const started = performance.now();
    this.c.adaptive?.sent(sentAt);
    this.counts.requests += 1;
    if (attempt > 0) this.counts.retries += 1;
    let end: AttemptEnd;
    try {
      const response = await withinAnswerLimit(this.request(spec, slot));
      end = {
        kind: 'response',
        status: response.statusCode,
        body: response.body as unknown,
        headers: response.headers,
      };
    } catch (error) {
      end = fromGotError(error);
      if (error instanceof AnswerTooLargeError)
        logger?.warn(
          { step: spec.step, clientUserId: spec.clientUserId, limitBytes: MAX_ANSWER_BYTES },
          'answer cut off: its body passed the 1 MB limit; read as an unclear answer',
        );
    }
    this.endAttempt(spec, attempt, sentAt, Math.round(performance.now() - started), end, probe);
    return end;
  }

  /** Resolves once fewer than `n` calls are pending. */
  whenBelow(n: number): Promise<void> {
    if (this.pending < n) return Promise.resolve();
    return new Promise<void>((resolve) => this.belowWaiters.push({ n, resolve }));
  }

  stats(): ClientStats {
    return {
      requests: this.counts.requests,
      byStatus: Object.fromEntries([...this.byStatus].map(([status, n]) => [String(status), n])),
      ...(this.refusals ? { refused: { ...this.refusals } } : {}),
      retries: this.counts.retries,
    };
  }

  /** An answer counted under its status, read by the caller as an expected refusal: moved to its own count. */
  refused(refusal: Refusal): void {
    const n = this.byStatus.get(refusal.status) ?? 0;
    if (n > 1) this.byStatus.set(refusal.status, n - 1);
    else this.byStatus.delete(refusal.status);
    this.refusals ??= { beforeKyc: 0, beforeAgreement: 0 };
    if (refusal.before === 'kyc') this.refusals.beforeKyc += 1;
    else this.refusals.beforeAgreement += 1;
    this.c.onRefused?.(refusal);
  }

  private wakeBelowWaiters(): void {
    for (let i = this.belowWaiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.belowWaiters[i];
      if (waiter !== undefined && this.pending < waiter.n) {
        this.belowWaiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** got's request for the attempt, counted against the rate cap from when it left. */
  private request<T>(spec: CallSpec<T>, slot: LimiterSlot): CancelableRequest<Response> {
    const sending = this.c.http(spec.path as string, {
      method: spec.method,
      headers: spec.headers,
      ...(spec.body === undefined ? {} : { json: spec.body }),
    });
    // The request is counted from when its body left (a cold connection may take a while): the native request's
    // own 'finish', rather than got's upload-progress events, which cost every request a listener call per chunk.
    // Uncapped, nothing is counted.
    if (slot.counted)
      sending.on('request', (sent: ClientRequest) => sent.once('finish', () => slot.sentAt(this.c.clock.now())));
    return sending;
  }

  /** What an attempt's end tells the client: the counts, the rate, a 429's pause, an API out of reach. */
  private endAttempt<T>(
    spec: CallSpec<T>,
    attempt: number,
    sentAt: number,
    ms: number,
    end: AttemptEnd,
    probe: boolean,
  ): void {
    const { stops, adaptive, limiter, logger, block } = this.c;
    const status = end.kind === 'response' ? end.status : end.kind === 'failure' ? end.failure.kind : 'network';
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    if (end.kind === 'response') {
      stops.answered(end.status);
      // A block's 429s say nothing of the rate: the adaptation does not hear of them.
      const blocked = block.blocked;
      block.answered(end.status, probe);
      // Before the pause below: the adaptation reads the pause that was in force when this request went out.
      const change = blocked ? undefined : adaptive?.answered(sentAt, end.status);
      // A 429 pauses every call. Set here, before this attempt gives its concurrency slot back, so that the
      // next queued attempt already waits; the retry of this call then waits the same delay.
      if (end.status === 429) {
        end.pauseMs = retryDelay(end, attempt, this.c.timing);
        limiter.pauseUntil(this.c.clock.now() + end.pauseMs);
      }
      if (change !== undefined) this.logRateChange(change, end.pauseMs);
    } else if (end.kind === 'failure') {
      stops.failedToConnect(end.failure);
      block.unanswered(probe);
    }
    const info: AttemptInfo = { step: spec.step, clientUserId: spec.clientUserId, attempt, status, ms };
    if (this.debug)
      logger?.debug({ ...info, ...(end.kind === 'failure' ? { code: end.failure.code } : {}) }, 'request');
    if (this.c.onAttempt !== undefined) {
      try {
        this.c.onAttempt(info);
      } catch (error) {
        logger?.warn({ err: error }, 'onAttempt listener threw');
      }
    }
  }

  /** What an attempt's end means for its call: its result, or another attempt after a wait. */
  private afterAttempt<T>(
    spec: CallSpec<T>,
    end: AttemptEnd,
    attempt: number,
    failures: number,
    lastError: ApiError | undefined,
  ): CallResult<T> | Retry {
    const { stops, logger } = this.c;
    // Stopped before this attempt went out. A call tried before ends "not sent" too: its retry would have gone out
    // but for the stop, so nothing is wrong with its row. Only a retry that certainly stored nothing got here.
    if (end.kind === 'not-sent') return { ok: false, error: stops.notSent(spec.step, lastError) };
    let error: ApiError;
    if (end.kind === 'response' && end.status >= 200 && end.status < 300) {
      const read = spec.read(end.body, end.status);
      if (read.unclear === undefined) {
        stops.understoodAnswer();
        if (read.problems.length > 0) {
          logger?.warn(
            { step: spec.step, clientUserId: spec.clientUserId, status: end.status, fields: read.problems },
            'answer does not match the response schema; kept what was usable',
          );
        }
        return { ok: true, status: end.status, body: read.value };
      }
      // Retried like a 502 where resending is safe; a create's is settled by a read, as after a lost answer.
      const answered = describeAnswer(end.status, end.headers, end.body, read.unclear);
      error = new ApiError({ step: spec.step, kind: 'unclear', status: end.status, answered, retryable: true });
      stops.foreignAnswer(answered);
    } else {
      if (end.kind === 'response' && end.status === 404 && spec.notFound !== undefined)
        return { ok: true, status: 404, body: spec.notFound };
      error = attemptError(spec.step, [spec.body, spec.personal], end, this.c.apiKey, this.c.timeoutMs);
    }
    const mayResend = !spec.once || certainlyNotStored(end);
    const refused = spec.refusable === true && end.kind === 'response' && end.status === 500;
    const wouldRetry = error.retryable && mayResend && !refused && (is429(end) || failures < this.c.retries);
    // Nothing has ever answered, and this attempt could not connect either.
    const cause = !stops.reached && end.kind === 'failure' ? unreachableCause(end.failure) : undefined;
    // Out of retries: no later call will connect either.
    if (cause !== undefined && mayResend && !wouldRetry) stops.unreachable(cause);
    // The run stopped under a call that would have been sent again, or never connected: the stop, not the row,
    // ended it. A create that may have stored something keeps its error, for a read to settle.
    if (stops.stopped !== undefined && mayResend && (wouldRetry || cause !== undefined))
      return { ok: false, error: stops.notSent(spec.step, error) };
    if (wouldRetry) {
      const delayMs = (end.kind === 'response' ? end.pauseMs : undefined) ?? retryDelay(end, attempt, this.c.timing);
      logger?.debug(
        { step: spec.step, clientUserId: spec.clientUserId, attempt, delayMs, error: error.message },
        'retrying',
      );
      return new Retry(delayMs, error);
    }
    // A refused bank account (a 500 from the KYC gate) says nothing about the API's health; a rejected key does.
    stops.failedForGood(error, mayResend && !refused);
    return { ok: false, error };
  }

  private logRateChange(change: RateChange, pauseMs: number | undefined): void {
    const { logger, adaptive } = this.c;
    const rate = Math.round(change.rate * 100) / 100;
    if (change.because === 'throttled') logger?.info({ rate, pauseMs }, 'rate lowered after a 429');
    else if (change.because === 'refined')
      logger?.info({ rate }, 'rate lowered further: the server took no more than this in any second');
    else if (change.because === 'quiet') logger?.debug({ rate }, 'rate raised after a quiet period');
    else
      logger?.info(
        { rate, stats: adaptive?.stats },
        '429s do not follow the rate: rate restored; their Retry-After is still honoured',
      );
  }
}

const is429 = (end: AttemptEnd) => end.kind === 'response' && end.status === 429;

/** Another attempt of a call, after `delayMs`; `error` is this attempt's. */
class Retry {
  constructor(
    readonly delayMs: number,
    readonly error: ApiError,
  ) {}
}
