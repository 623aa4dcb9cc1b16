export interface Backoff {
  /** Delay cap of the first retry (ms); doubles per retry. */
  baseMs: number;
  /** No single delay is longer than this (ms). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000 };

/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"):
 * a random delay in [0, min(maxMs, baseMs * 2^retry)), so clients that failed together do not retry together.
 * `retry` counts from 0 for the first retry.
 */
export function backoffDelay(retry: number, backoff: Backoff, random: () => number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(retry, 30));
  return Math.floor(random() * ceiling);
}
