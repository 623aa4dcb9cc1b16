import type { AttemptInfo } from '../execute/ApiClient.js';

/** How an attempt ended, as the requests-per-second chart colours it. */
export type AttemptClass = 'ok' | 'throttled' | 'error' | 'network';

export const ATTEMPT_CLASSES: readonly AttemptClass[] = ['ok', 'throttled', 'error', 'network'];

/** Attempts ended in each second of the run, from its start: `seconds[i]` counts second i. */
export interface RequestSeries {
  seconds: Array<Record<AttemptClass, number>>;
}

export function classifyAttempt(status: AttemptInfo['status']): AttemptClass {
  if (typeof status !== 'number') return 'network';
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'throttled';
  return 'error';
}

/**
 * Counts attempts per second of the run through the API client's `onAttempt` hook. One small record per
 * second of run time, never one per request, so a 100,000-row run costs a few kilobytes.
 */
export class RequestTimeline {
  private readonly buckets: Array<Record<AttemptClass, number>> = [];
  private readonly startedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  record(info: Pick<AttemptInfo, 'status'>): void {
    const second = Math.max(0, Math.floor((this.now() - this.startedAt) / 1000));
    while (this.buckets.length <= second) this.buckets.push(emptyBucket());
    this.buckets[second]![classifyAttempt(info.status)]++;
  }

  series(): RequestSeries {
    return { seconds: this.buckets.map((b) => ({ ...b })) };
  }
}

function emptyBucket(): Record<AttemptClass, number> {
  return { ok: 0, throttled: 0, error: 0, network: 0 };
}
