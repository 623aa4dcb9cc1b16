import { setTimeout as delay } from 'node:timers/promises';

/** Time as the limiter and the retry loop see it; tests pass a fake one so nothing really waits. */
export interface Clock {
  /** Milliseconds since the epoch (fractions allowed). */
  now(): number;
  /** Resolves after `ms`, or early (never rejecting) once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Epoch-based but monotonic: a wall-clock step (NTP) must not let a burst through the rate cap. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0 || signal?.aborted === true) return;
    try {
      await delay(ms, undefined, { signal });
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
  },
};
