import { setMaxListeners } from 'node:events';
import type { ClientRequest } from 'node:http';
import type { CancelableRequest, Response } from 'got';
import { ConfigError } from '../errors.js';
import {
  ApiError,
  attemptError,
  type AttemptEnd,
  backoffDelay,
  type CallStep,
  certainlyNotStored,
  DEFAULT_BACKOFF,
  describeAnswer,
  fromGotError,
  MAX_ANSWER_BYTES,
  NOT_SENT,
  type RetryTiming,
  retryDelay,
  unreachableCause,
} from './retryPolicy.js';
import { AdaptiveRate, type RateChange } from './AdaptiveRate.js';
import type { ApiClient, ApiClientOptions, CallResult, ClientStats, StopInfo, StopReason } from './ApiClient.js';
import { type CallSpec, endpoints } from './endpoints.js';
import { RouteError } from '../schema/index.js';
import { AnswerTooLargeError, createHttpClient, withinAnswerLimit } from './httpClient.js';
import { Slots } from './Slots.js';
import { StopRules } from './StopRules.js';
import { type LimiterSlot, systemClock, RateLimiter } from './RateLimiter.js';

export type {
  ApiClient,
  ApiClientOptions,
  AttemptInfo,
  CallResult,
  ClientStats,
  StopInfo,
  StopReason,
} from './ApiClient.js';

const STOPPED_BECAUSE: Record<StopReason, string> = {
  'key-rejected': 'API key rejected',
  'api-down': 'API down',
  interrupted: 'run interrupted',
  'write-failed': 'the run could not write its records',
  unreachable: 'the API cannot be reached',
  'not-the-api': 'the server does not answer as the API does',
};

/**
 * The API client: one got instance behind a concurrency limit and a shared rate limiter, with its own retries and
 * backoff.
 *
 * Retries are done here, not by got (`retry.limit: 0`): each attempt takes its own concurrency slot and its own
 * limiter slot, so a retry is counted against the concurrency limit and the rate cap like any first attempt,
 * and a call waiting out its backoff holds no concurrency slot. got's own retry would resend from inside one
 * slot and one limiter token, and a beforeRetry hook cannot give the slot back while it sleeps.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? 30_000);
  const retries = wholeNumber('retries', options.retries ?? 5, 0);
  const concurrency = wholeNumber('concurrency', options.concurrency ?? 8, 1);
  const maxConsecutiveFailures = wholeNumber('maxConsecutiveFailures', options.maxConsecutiveFailures ?? 20, 1);
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  // A line per request is built only when it is written: at thousands of requests a second the object is not free.
  const debug = logger?.isLevelEnabled('debug') === true;
  const apiKey = options.apiKey;
  const limiter = options.limiter ?? new RateLimiter(options.rate ?? 5, clock);
  // AIMD on 429s, never above the rate the client was given (a limiter passed in: its rate now).
  const adaptive =
    options.adaptiveRate === false
      ? undefined
      : new AdaptiveRate(limiter, options.limiter?.rate ?? options.rate ?? 5, clock, options.adaptiveRate);
  const slots = new Slots(concurrency);
  const timing: RetryTiming = { backoff, random, maxRetryAfterMs };

  const http = createHttpClient({ baseUrl: options.baseUrl, apiKey, timeoutMs });

  let stopInfo: StopInfo | undefined;
  const stopping = new AbortController();
  // Every call waiting out a backoff listens on it; after a 429 that is every call in flight, not a leak.
  setMaxListeners(0, stopping.signal);
  let pendingCount = 0;
  const rules = new StopRules({ baseUrl: options.baseUrl, maxConsecutiveFailures, clock, logger, stop });
  const belowWaiters: Array<{ n: number; resolve: () => void }> = [];
  const counts = { requests: 0, retries: 0 };
  // A Map, not an object: an object keyed by status codes keeps them as sparse array elements, slow to update.
  const byStatus = new Map<number | string, number>();

  function logRateChange(change: RateChange, pauseMs: number | undefined): void {
    const rate = round2(change.rate);
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

  function stop(reason: StopReason, message?: string): void {
    if (stopInfo !== undefined) return;
    stopInfo = { reason, message: message ?? `stopped: ${STOPPED_BECAUSE[reason]}` };
    logger?.error({ reason }, stopInfo.message);
    stopping.abort();
    limiter.close();
  }

  /** `tried`: the error of an attempt that would have been retried but for the stop; kept as the cause. */
  function notSent(step: CallStep, tried?: ApiError): ApiError {
    const reason = stopInfo?.reason;
    return new ApiError({
      step,
      kind: 'stopped',
      retryable: false,
      stoppedBecause: reason === undefined ? undefined : STOPPED_BECAUSE[reason],
      ...(tried === undefined ? {} : { cause: tried }),
    });
  }

  function wakeBelowWaiters(): void {
    for (let i = belowWaiters.length - 1; i >= 0; i -= 1) {
      const waiter = belowWaiters[i];
      if (waiter !== undefined && pendingCount < waiter.n) {
        belowWaiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** A call until it is done: its attempts, each with a concurrency slot, and the waits between them. */
  async function call<T>(spec: CallSpec<T>): Promise<CallResult<T>> {
    if (stopInfo !== undefined) return { ok: false, error: notSent(spec.step) };
    if (spec.path instanceof RouteError)
      return {
        ok: false,
        error: new ApiError({ step: spec.step, kind: 'bad-route', retryable: false, routeProblem: spec.path.message }),
      };
    pendingCount += 1;
    try {
      let lastError: ApiError | undefined;
      for (let attempt = 0; ; attempt += 1) {
        const wait = slots.take();
        if (wait !== undefined) await wait;
        let end: AttemptEnd = NOT_SENT;
        try {
          // The attempt is awaited here, not in a function of its own: one async function a call, not two.
          const slot = stopInfo === undefined ? (limiter.tryAcquire() ?? (await limiter.acquire())) : undefined;
          if (slot !== undefined && stopInfo === undefined) {
            const sent = startAttempt(attempt);
            try {
              const response = await withinAnswerLimit(request(spec, slot));
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
            endAttempt(spec, attempt, sent, end);
          }
        } finally {
          slots.give();
        }
        const next = afterAttempt(spec, end, attempt, lastError);
        if (!(next instanceof Retry)) return next;
        lastError = next.error;
        await clock.sleep(next.delayMs, stopping.signal);
      }
    } finally {
      pendingCount -= 1;
      wakeBelowWaiters();
    }
  }

  /** What an attempt's end means for its call: its result, or another attempt after a wait. */
  function afterAttempt<T>(
    spec: CallSpec<T>,
    end: AttemptEnd,
    attempt: number,
    lastError: ApiError | undefined,
  ): CallResult<T> | Retry {
    // Stopped before this attempt went out. A call tried before ends "not sent" too: its retry would have gone out
    // but for the stop, so nothing is wrong with its row. Only a retry that certainly stored nothing got here.
    if (end.kind === 'not-sent') return { ok: false, error: notSent(spec.step, lastError) };
    let error: ApiError;
    if (end.kind === 'response' && end.status >= 200 && end.status < 300) {
      const read = spec.read(end.body, end.status);
      if (read.unclear === undefined) {
        rules.understoodAnswer();
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
      rules.foreignAnswer(answered);
    } else {
      if (end.kind === 'response' && end.status === 404 && spec.notFound !== undefined)
        return { ok: true, status: 404, body: spec.notFound };
      error = attemptError(spec.step, [spec.body, spec.personal], end, apiKey, timeoutMs);
    }
    const mayResend = !spec.once || certainlyNotStored(end);
    const wouldRetry = error.retryable && attempt < retries && mayResend;
    // Nothing has ever answered, and this attempt could not connect either.
    const cause = !rules.reached && end.kind === 'failure' ? unreachableCause(end.failure) : undefined;
    // Out of retries: no later call will connect either.
    if (cause !== undefined && mayResend && !wouldRetry) rules.unreachable(cause);
    // The run stopped under a call that would have been sent again, or never connected: the stop, not the row,
    // ended it. A create that may have stored something keeps its error, for a read to settle.
    if (stopInfo !== undefined && mayResend && (wouldRetry || cause !== undefined))
      return { ok: false, error: notSent(spec.step, error) };
    if (wouldRetry) {
      const delayMs = (end.kind === 'response' ? end.pauseMs : undefined) ?? retryDelay(end, attempt, timing);
      logger?.debug(
        { step: spec.step, clientUserId: spec.clientUserId, attempt, delayMs, error: error.message },
        'retrying',
      );
      return new Retry(delayMs, error);
    }
    // A refused bank account (a 500 from the KYC gate) says nothing about the API's health; a rejected key does.
    rules.failedForGood(error, mayResend);
    return { ok: false, error };
  }

  /** An attempt counted as it starts. */
  function startAttempt(attempt: number): Attempt {
    const sentAt = clock.now();
    adaptive?.sent(sentAt);
    counts.requests += 1;
    if (attempt > 0) counts.retries += 1;
    return { sentAt, started: performance.now() };
  }

  /** got's request for the attempt, counted against the rate cap from when it left. */
  function request<T>(spec: CallSpec<T>, slot: LimiterSlot): CancelableRequest<Response> {
    const sending = http(spec.path as string, {
      method: spec.method,
      headers: spec.headers,
      ...(spec.body === undefined ? {} : { json: spec.body }),
    });
    // The request is counted from when its body left (a cold connection may take a while): the native request's
    // own 'finish', rather than got's upload-progress events, which cost every request a listener call per chunk.
    // Uncapped, nothing is counted.
    if (slot.counted)
      sending.on('request', (sent: ClientRequest) => sent.once('finish', () => slot.sentAt(clock.now())));
    return sending;
  }

  /** What an attempt's end tells the client: the counts, the rate, a 429's pause, an API out of reach. */
  function endAttempt<T>(spec: CallSpec<T>, attempt: number, { sentAt, started }: Attempt, end: AttemptEnd): void {
    const ms = Math.round(performance.now() - started);
    const status = end.kind === 'response' ? end.status : end.kind === 'failure' ? end.failure.kind : 'network';
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (end.kind === 'response') {
      rules.answered(end.status);
      // Before the pause below: the adaptation reads the pause that was in force when this request went out.
      const change = adaptive?.answered(sentAt, end.status);
      // A 429 pauses every call. Set here, before this attempt gives its concurrency slot back, so that the
      // next queued attempt already waits; the retry of this call then waits the same delay.
      if (end.status === 429) {
        end.pauseMs = retryDelay(end, attempt, timing);
        limiter.pauseUntil(clock.now() + end.pauseMs);
      }
      if (change !== undefined) logRateChange(change, end.pauseMs);
    } else if (end.kind === 'failure') {
      rules.failedToConnect(end.failure);
    }
    if (debug)
      logger?.debug(
        {
          step: spec.step,
          clientUserId: spec.clientUserId,
          attempt,
          status,
          ms,
          ...(end.kind === 'failure' ? { code: end.failure.code } : {}),
        },
        'request',
      );
    if (options.onAttempt !== undefined) {
      try {
        options.onAttempt({ step: spec.step, clientUserId: spec.clientUserId, attempt, status, ms });
      } catch (error) {
        logger?.warn({ err: error }, 'onAttempt listener threw');
      }
    }
  }

  return {
    ...endpoints(call, options.compliancePath),
    backoff: (retry) => clock.sleep(backoffDelay(retry, backoff, random), stopping.signal),
    stopped: () => stopInfo,
    stop,
    get pending() {
      return pendingCount;
    },
    whenBelow(n) {
      if (pendingCount < n) return Promise.resolve();
      return new Promise<void>((resolve) => belowWaiters.push({ n, resolve }));
    },
    stats: (): ClientStats => ({
      requests: counts.requests,
      byStatus: Object.fromEntries([...byStatus].map(([status, n]) => [String(status), n])),
      retries: counts.retries,
    }),
    rateAdaptation: () => adaptive?.stats,
    concurrency,
    limiter,
  };
}

/** When an attempt started: epoch ms, and performance time for its duration. */
interface Attempt {
  sentAt: number;
  started: number;
}

/** Another attempt of a call, after `delayMs`; `error` is this attempt's. */
class Retry {
  constructor(
    readonly delayMs: number,
    readonly error: ApiError,
  ) {}
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigError(`${name}: must be a number above 0, got ${value}`, 'E_USAGE');
  return value;
}

function wholeNumber(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name}: must be a whole number >= ${min}, got ${value}`, 'E_USAGE');
  return value;
}
