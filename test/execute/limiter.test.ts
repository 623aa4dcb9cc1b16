import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/execute/RateLimiter.js';
import { FakeClock, maxInWindow, seeded } from '../helpers/fakeClock.js';

/** `n` callers all asking at once; returns the clock time each one was let through. */
async function acquireAll(limiter: RateLimiter, clock: FakeClock, n: number): Promise<number[]> {
  const starts: number[] = [];
  await Promise.all(Array.from({ length: n }, () => limiter.acquire().then(() => starts.push(clock.now()))));
  return starts;
}

describe('RateLimiter', () => {
  it.each([1, 2, 5, 7, 10, 20, 50])(
    'never lets more than %i starts into any one-second window, and holds that rate',
    async (rate) => {
      const clock = new FakeClock();
      const limiter = new RateLimiter(rate, clock);
      const starts = await acquireAll(limiter, clock, rate * 30);
      expect(maxInWindow(starts)).toBe(rate);
      const first = starts[0] ?? 0;
      const last = starts[starts.length - 1] ?? 0;
      const mean = (starts.length - 1) / ((last - first) / 1000);
      expect(Math.abs(mean - rate) / rate).toBeLessThan(0.05);
    },
  );

  it('keeps both bars when timers fire late, as real ones do', async () => {
    const random = seeded(7);
    const clock = new FakeClock(0, () => random() * 4);
    const limiter = new RateLimiter(50, clock);
    const starts = await acquireAll(limiter, clock, 1500);
    expect(maxInWindow(starts)).toBeLessThanOrEqual(50);
    const mean = (starts.length - 1) / (((starts.at(-1) ?? 0) - (starts[0] ?? 0)) / 1000);
    expect(mean).toBeGreaterThan(50 * 0.95);
  });

  it('keeps the window with callers arriving at random times, idle gaps included', async () => {
    const random = seeded(42);
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(5, clock);
    const starts: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      // Bursts of several callers, then sometimes a pause longer than the window.
      if (random() < 0.2) clock.advance(random() * 3000);
      const burst = 1 + Math.floor(random() * 6);
      await Promise.all(Array.from({ length: burst }, () => limiter.acquire().then(() => starts.push(clock.now()))));
    }
    expect(maxInWindow(starts)).toBeLessThanOrEqual(5);
  });

  it('pauseUntil holds every caller, queued and new, until the time given', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(10, clock);
    const before = await acquireAll(limiter, clock, 3);
    const pausedAt = clock.now();
    limiter.pauseUntil(pausedAt + 5000);
    limiter.pauseUntil(pausedAt + 1000); // a shorter pause never cuts a longer one
    const after = await acquireAll(limiter, clock, 10);
    expect(before.every((t) => t < pausedAt + 5000)).toBe(true);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(pausedAt + 5000);
    expect(maxInWindow([...before, ...after])).toBeLessThanOrEqual(10);
  });

  it('a pause set while callers wait reaches the ones already queued', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(10, clock);
    const starts: number[] = [];
    let pauseEnd = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limiter.acquire().then(() => {
          starts.push(clock.now());
          if (i === 4) {
            pauseEnd = clock.now() + 3000;
            limiter.pauseUntil(pauseEnd);
          }
        }),
      ),
    );
    expect(starts.slice(5).every((t) => t >= pauseEnd)).toBe(true);
    expect(starts).toHaveLength(20);
  });

  it('rate 0 lets everyone through at once, but still honours a pause', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(0, clock);
    const starts = await acquireAll(limiter, clock, 1000);
    expect(new Set(starts)).toEqual(new Set([0]));
    expect(clock.sleeps).toEqual([]);
    limiter.pauseUntil(2000);
    const after = await acquireAll(limiter, clock, 5);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(2000);
  });

  it('setRate takes effect at once and the window still holds across the change', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(50, clock);
    const fast = await acquireAll(limiter, clock, 60);
    limiter.setRate(5);
    const slow = await acquireAll(limiter, clock, 40);
    // Every one-second window that ends in the slow phase holds at most 5 slow starts ...
    expect(maxInWindow(slow)).toBeLessThanOrEqual(5);
    // ... and no window holds more than the higher rate.
    expect(maxInWindow([...fast, ...slow])).toBeLessThanOrEqual(50);
    const mean = (slow.length - 1) / (((slow.at(-1) ?? 0) - (slow[0] ?? 0)) / 1000);
    expect(Math.abs(mean - 5) / 5).toBeLessThan(0.05);
    expect(limiter.rate).toBe(5);
    expect(() => limiter.setRate(-1)).toThrow(RangeError);
  });

  it('a fractional rate spaces starts by 1000/R and caps the window at floor(R)', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(2.5, clock);
    const starts = await acquireAll(limiter, clock, 50);
    expect(maxInWindow(starts)).toBeLessThanOrEqual(2);
    expect(maxInWindow(starts, 2000)).toBeLessThanOrEqual(5);
  });

  it('counts a start from when the request really left, if that was later than the grant', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(1, clock, { marginMs: 0 });
    const slot = await limiter.acquire();
    slot.sentAt(300); // a cold connection: the server sees it at 300
    slot.sentAt(100); // never moves it back
    await limiter.acquire();
    expect(clock.now()).toBe(1300);
  });

  it('keeps a safety margin over the one-second window by default', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(2, clock);
    const starts = await acquireAll(limiter, clock, 3);
    expect(starts).toEqual([0, 500, 1025]);
  });

  it('above 1,000 a second, lets a millisecond of starts through without a timer, and still holds the window and the rate', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(4000, clock);
    const starts = await acquireAll(limiter, clock, 40_000);
    // 4 starts fit in a millisecond at 4,000 a second: the first ones go at once, with no sleep.
    expect(starts.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(clock.sleeps.length).toBeLessThan(starts.length / 3);
    expect(maxInWindow(starts)).toBeLessThanOrEqual(4000);
    const mean = (starts.length - 1) / ((starts.at(-1)! - starts[0]!) / 1000);
    expect(Math.abs(mean - 4000) / 4000).toBeLessThan(0.05);
  });

  it('at 1,000 a second or less, never lets a start through before its turn', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(1000, clock);
    const starts = await acquireAll(limiter, clock, 50);
    expect(starts.slice(0, 4)).toEqual([0, 1, 2, 3]);
  });

  it('close lets every waiter through at once', async () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(1, clock);
    limiter.pauseUntil(60_000);
    const waiting = Promise.all([limiter.acquire(), limiter.acquire()]);
    limiter.close();
    await waiting;
    await limiter.acquire();
    expect(limiter.waiting).toBe(0);
  });
});
