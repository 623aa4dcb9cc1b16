import { ConfigError } from '../core/errors.js';
import { AdaptiveRate } from './AdaptiveRate.js';
import { ApiCalls } from './ApiCalls.js';
import type { ApiClient, ApiClientOptions } from './ApiClient.js';
import { endpoints } from './endpoints.js';
import { createHttpClient } from './httpClient.js';
import { RateLimiter, systemClock } from './RateLimiter.js';
import { backoffDelay, DEFAULT_BACKOFF } from './retryPolicy.js';
import { StopRules } from './StopRules.js';
import { DEFAULT_BLOCK_TIMING, ServiceBlock } from './ServiceBlock.js';

/** How long the service's block is waited out by default: twice the 5 minutes its documents give it. */
export const DEFAULT_MAX_BLOCK_WAIT_MS = 600_000;

export type { ApiClient, ApiClientOptions, AttemptInfo, ClientStats, StopInfo, StopReason } from './ApiClient.js';
export type { CallResult } from '../core/answers.js';

/**
 * The API client: one got instance behind a concurrency limit and a shared rate limiter, with its own retries and
 * backoff (ApiCalls), and the rules that stop it as a whole (StopRules).
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const timeoutMs = positive('timeoutMs', options.timeoutMs);
  const retries = wholeNumber('retries', options.retries, 0);
  const concurrency = wholeNumber('concurrency', options.concurrency, 1);
  const maxConsecutiveFailures = wholeNumber('maxConsecutiveFailures', options.maxConsecutiveFailures, 1);
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;
  const { logger, apiKey, baseUrl } = options;
  const limiter = options.limiter ?? new RateLimiter(options.rate, clock);
  // AIMD on 429s, never above the rate the client was given (a limiter passed in: its rate now).
  const adaptive =
    options.adaptiveRate === false
      ? undefined
      : new AdaptiveRate(limiter, options.limiter?.rate ?? options.rate, clock, options.adaptiveRate);
  const stops = new StopRules({
    baseUrl,
    maxConsecutiveFailures,
    clock,
    logger,
    onStop: () => {
      limiter.close();
      block.close();
    },
    keyAdvice: options.keyAdvice,
  });
  const block = new ServiceBlock(
    {
      ...DEFAULT_BLOCK_TIMING,
      ...options.blockTiming,
      maxWaitMs: options.maxBlockWaitMs ?? DEFAULT_MAX_BLOCK_WAIT_MS,
    },
    clock,
    (news) => {
      if (news.kind === 'lifted') adaptive?.afterBlock();
      options.onBlock?.(news);
    },
    (message) => stops.stop('blocked', message),
  );
  const calls = new ApiCalls({
    http: createHttpClient({ baseUrl, apiKey, timeoutMs }),
    apiKey,
    timeoutMs,
    retries,
    concurrency,
    timing: { backoff, random, maxRetryAfterMs: options.maxRetryAfterMs ?? 300_000 },
    clock,
    limiter,
    adaptive,
    stops,
    block,
    logger,
    onAttempt: options.onAttempt,
    onRefused: options.onRefused,
  });

  return {
    ...endpoints((spec) => calls.call(spec), options.compliancePath),
    backoff: (retry) => clock.sleep(backoffDelay(retry, backoff, random), stops.signal),
    stopped: () => stops.stopped,
    stop: (reason, message) => stops.stop(reason, message),
    get pending() {
      return calls.pending;
    },
    whenBelow: (n) => calls.whenBelow(n),
    stats: () => calls.stats(),
    refused: (refusal) => calls.refused(refusal),
    rateAdaptation: () => adaptive?.stats,
    concurrency,
    limiter,
  };
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
