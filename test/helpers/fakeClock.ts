import type { Clock } from '../../src/execute/RateLimiter.js';

/**
 * A clock whose sleep advances time instead of waiting. The limiter has at most one sleeper (its pump), so
 * advancing on sleep is exact for it. `lateness` adds a random overshoot to every sleep, as real timers do.
 */
export class FakeClock implements Clock {
  t: number;
  sleeps: number[] = [];
  constructor(
    start = 1_000_000,
    private readonly lateness: () => number = () => 0,
  ) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    // Let every continuation of what already happened run at the current time first, as with real timers.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.t += Math.max(0, ms) + this.lateness();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A deterministic [0, 1) sequence (mulberry32), for jitter and lateness. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Most starts in any half-open window [t, t + windowMs). */
export function maxInWindow(times: readonly number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi += 1) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= windowMs) lo += 1;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
