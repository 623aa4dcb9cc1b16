// The sandbox's pure parts, with made-up times: no clock, no server.
import { describe, expect, it } from 'vitest';
import { StatsRecorder } from '../../src/sandbox/stats.js';
import { drawFault, SlidingWindowLimiter, createRng, randomUuid } from '../../src/sandbox/faults.js';
import { UUID } from '../helpers/sandboxHelpers.js';

// Arrivals as the sandbox's stats keep them (handle.maxInWindow, stats().maxArrivalsPerSecond and the rest read them).
describe('the arrival log of the stats', () => {
  it('finds the most arrivals in any half-open window', () => {
    const stats = new StatsRecorder();
    for (const t of [0, 100, 999, 1000, 1500, 1999, 2000, 2001]) stats.arrived(t);
    // [1500, 2500) holds 1500, 1999, 2000 and 2001; no other one-second window holds more.
    expect(stats.arrivals.maxInWindow(1000)).toBe(4);
    expect(stats.snapshot().maxArrivalsPerSecond).toBe(4);
    expect(stats.arrivals.maxInWindow(1)).toBe(1);
    expect(stats.arrivals.maxInWindow(0)).toBe(0);
    expect(stats.arrivals.maxInWindow(10_000)).toBe(8);
  });

  it('keeps only the latest 200,000 arrivals, oldest first, and forgets them on reset', () => {
    const stats = new StatsRecorder();
    const capacity = 200_000;
    for (let t = 1; t <= capacity + 2; t += 1) stats.arrived(t);
    const kept = stats.arrivals.toArray();
    expect(kept).toHaveLength(capacity);
    expect(kept.slice(0, 3)).toEqual([3, 4, 5]);
    expect(kept.slice(-2)).toEqual([capacity + 1, capacity + 2]);
    expect(stats.arrivals.size).toBe(capacity);
    expect(stats.arrivals.maxInWindow(2)).toBe(2);
    expect(stats.snapshot()).toMatchObject({
      requests: capacity + 2,
      arrivalsRetained: capacity,
      firstArrivalAt: 3,
      lastArrivalAt: capacity + 2,
    });
    stats.reset();
    expect(stats.arrivals.toArray()).toEqual([]);
    expect(stats.arrivals.maxInWindow(1000)).toBe(0);
    expect(stats.snapshot()).toMatchObject({ arrivalsRetained: 0, firstArrivalAt: null, lastArrivalAt: null });
  });
});

describe('SlidingWindowLimiter', () => {
  it('allows N per sliding second and says when the next one fits', () => {
    const limiter = new SlidingWindowLimiter(2);
    expect(limiter.check(0)).toEqual({ allowed: true });
    expect(limiter.check(10)).toEqual({ allowed: true });
    expect(limiter.check(20)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.check(999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.check(1000)).toEqual({ allowed: true }); // the request at 0 has left the window
    expect(limiter.check(1005)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.check(1010)).toEqual({ allowed: true });
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    const limiter = new SlidingWindowLimiter(1);
    limiter.check(0);
    expect(limiter.check(1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('0 is no limit', () => {
    const limiter = new SlidingWindowLimiter(0);
    for (let i = 0; i < 100; i += 1) expect(limiter.check(0).allowed).toBe(true);
  });
});

describe('seeded randomness', () => {
  it('the same seed gives the same numbers; floats stay in [0, 1)', () => {
    const a = createRng(123);
    const b = createRng(123);
    const xs = Array.from({ length: 1000 }, () => a.next());
    expect(Array.from({ length: 1000 }, () => b.next())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(createRng(124).next()).not.toBe(xs[0]);
  });

  it('UUIDs are version 4 and repeat with the seed', () => {
    const id = randomUuid(createRng(1));
    expect(id).toMatch(UUID);
    expect(randomUuid(createRng(1))).toBe(id);
  });

  it('fault bands are laid end to end: the rates come out as asked', () => {
    const rng = createRng(99);
    const counts = new Map<string, number>();
    const n = 20_000;
    for (let i = 0; i < n; i += 1) {
      const kind =
        drawFault(rng, {
          fault429: 0.1,
          fault500: 0.2,
          fault503: 0,
          faultReset: 0.05,
          faultCommit500: 0.05,
          faultSlow: 0.1,
        }) ?? 'none';
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    const share = (k: string) => (counts.get(k) ?? 0) / n;
    expect(share('429')).toBeCloseTo(0.1, 1);
    expect(share('500')).toBeCloseTo(0.2, 1);
    expect(counts.has('503')).toBe(false);
    expect(share('reset')).toBeCloseTo(0.05, 1);
    expect(share('commit500')).toBeCloseTo(0.05, 1);
    expect(share('slow')).toBeCloseTo(0.1, 1);
    expect(share('none')).toBeCloseTo(0.5, 1);
  });

  it('all rates 0 never faults; a rate of 1 always does', () => {
    const rng = createRng(1);
    const zero = { fault429: 0, fault500: 0, fault503: 0, faultReset: 0, faultCommit500: 0, faultSlow: 0 };
    for (let i = 0; i < 1000; i += 1) expect(drawFault(rng, zero)).toBeUndefined();
    for (let i = 0; i < 1000; i += 1) expect(drawFault(rng, { ...zero, faultReset: 1 })).toBe('reset');
  });
});
