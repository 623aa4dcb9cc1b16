import { afterEach, describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../src/execute/AdaptiveRate.js';
import { RateLimiter } from '../src/execute/RateLimiter.js';
import { comply, testClient } from './helpers/executeFixtures.js';
import { FakeClock, maxInWindow } from './helpers/fakeClock.js';
import {
  complianceAnswer,
  nestError,
  sequence,
  startScriptedServer,
  type ScriptedServer,
} from './helpers/scriptedServer.js';

/** Records `perSecond` sends spread over the next `ms` of fake time, as a run at that rate would. */
function sendFor(adaptive: AdaptiveRate, clock: FakeClock, perSecond: number, ms: number): void {
  const n = Math.round((perSecond * ms) / 1000);
  for (let i = 0; i < n; i += 1) {
    adaptive.sent(clock.now());
    clock.advance(ms / n);
  }
}

function setup(cap: number, options: ConstructorParameters<typeof AdaptiveRate>[3] = {}) {
  const clock = new FakeClock(0);
  const limiter = new RateLimiter(cap, clock);
  const adaptive = new AdaptiveRate(limiter, cap, clock, options);
  return { clock, limiter, adaptive };
}

describe('AdaptiveRate: multiplicative decrease', () => {
  it('a 429 lowers the rate to 0.7 x the current rate', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 20, 2000);
    expect(adaptive.throttled(clock.now() - 50)).toBeCloseTo(14);
    expect(limiter.rate).toBeCloseTo(14);
  });

  it('starts from the rate really sent when the run is slower than its cap', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 8, 2000);
    adaptive.throttled(clock.now() - 50);
    expect(limiter.rate).toBeCloseTo(8 * 0.7, 1);
  });

  it('one decrease per round: a 429 for a request sent before the last decrease changes nothing', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 20, 2000);
    const sentBefore = clock.now() - 100;
    adaptive.throttled(sentBefore);
    expect(adaptive.throttled(sentBefore)).toBeUndefined();
    expect(adaptive.throttled(sentBefore + 50)).toBeUndefined();
    expect(limiter.rate).toBeCloseTo(14);
    // A request sent after the decrease that still gets a 429 lowers it again.
    clock.advance(300);
    expect(adaptive.throttled(clock.now() - 10)).toBeCloseTo(14 * 0.7);
    expect(adaptive.stats.decreases).toBe(2);
  });

  it('never goes below the floor, nor lifts a cap that is below the floor', () => {
    const { clock, limiter, adaptive } = setup(20, { floor: 2 });
    for (let i = 0; i < 20; i += 1) {
      clock.advance(100);
      adaptive.throttled(clock.now());
    }
    expect(limiter.rate).toBe(2);

    const low = setup(0.5);
    low.adaptive.throttled(low.clock.now());
    expect(low.limiter.rate).toBe(0.5);
  });

  it('with no cap (rate 0) a 429 engages one, from the rate observed', () => {
    const { clock, limiter, adaptive } = setup(0);
    sendFor(adaptive, clock, 100, 500); // 50 sends in the half second since sending began: 100/s
    expect(limiter.rate).toBe(0);
    expect(adaptive.succeeded()).toBeUndefined(); // nothing engaged yet: successes change nothing
    adaptive.throttled(clock.now() - 5);
    expect(limiter.rate).toBeCloseTo(70, 0);
  });

  it('a pause in the last second makes the observed count meaningless: the decrease starts from the current rate', () => {
    const { clock, limiter, adaptive } = setup(10);
    sendFor(adaptive, clock, 10, 2000);
    limiter.pauseUntil(clock.now() + 800); // an earlier 429's pause
    clock.advance(900);
    adaptive.sent(clock.now()); // one request since the pause
    adaptive.throttled(clock.now());
    expect(limiter.rate).toBeCloseTo(7);
  });
});

describe('AdaptiveRate: additive increase', () => {
  it('recovers fast to just below the rate that got the 429, then probes one step per quiet period, never above the cap', () => {
    const { clock, limiter, adaptive } = setup(12, { increaseEveryMs: 2000 });
    sendFor(adaptive, clock, 20, 2000);
    limiter.setRate(11);
    adaptive.throttled(clock.now()); // ceiling min(11, 20 sent) = 11 -> 7.7
    expect(limiter.rate).toBeCloseTo(7.7);
    const rates: Array<[number, number]> = [];
    for (let t = 0; t < 12_000; t += 100) {
      clock.advance(100);
      const next = adaptive.succeeded();
      if (next !== undefined) rates.push([t + 100, Math.round(next * 100) / 100]);
    }
    // Recovery: +max(1, 1.1) every 500 ms up to 11 - 1 = 10; then +1 after 2 s: 11; then the cap 12, and no further.
    expect(rates).toEqual([
      [500, 8.8],
      [1000, 9.9],
      [1500, 10],
      [3500, 11],
      [5500, 12],
    ]);
    expect(limiter.rate).toBe(12);
  });

  it('no increase without a quiet period since the last change', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 20, 2000);
    adaptive.throttled(clock.now());
    clock.advance(499);
    expect(adaptive.succeeded()).toBeUndefined();
    expect(limiter.rate).toBeCloseTo(14);
  });

  it('repeated 429s at the same rate double the wait before the next probe, up to the maximum', () => {
    const { clock, limiter, adaptive } = setup(50, { increaseEveryMs: 1000, maxIncreaseEveryMs: 4000 });
    sendFor(adaptive, clock, 10, 2000);
    limiter.setRate(10);
    const probeWaits: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      adaptive.throttled(clock.now()); // the server's limit is 10: every probe to 11 fails
      // Run on: climb back to 10 (recovery), then wait for the probe above it.
      let reachedTenAt: number | undefined;
      while (limiter.rate < 11) {
        clock.advance(50);
        adaptive.succeeded();
        if (reachedTenAt === undefined && limiter.rate >= 10) reachedTenAt = clock.now();
      }
      probeWaits.push(clock.now() - (reachedTenAt ?? 0));
      sendFor(adaptive, clock, 10, 1000);
      limiter.setRate(10); // the 429 came at the limit, as it would
    }
    expect(probeWaits.map((ms) => Math.round(ms / 500) * 500)).toEqual([1000, 2000, 4000, 4000, 4000]);
    expect(adaptive.stats.probeEveryMs).toBe(4000);
  });

  it('checks its options', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(5, clock);
    expect(() => new AdaptiveRate(limiter, 5, clock, { decreaseFactor: 1 })).toThrow(RangeError);
    expect(() => new AdaptiveRate(limiter, 5, clock, { floor: 0 })).toThrow(RangeError);
    expect(() => new AdaptiveRate(limiter, 5, clock, { increaseStep: -1 })).toThrow(RangeError);
  });
});

describe('AdaptiveRate with the limiter: pauseUntil', () => {
  it('after a 429 everyone waits out the pause, then starts at the lowered rate and keeps its window', async () => {
    const { clock, limiter, adaptive } = setup(10);
    const before: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      await limiter.acquire();
      before.push(clock.now());
      adaptive.sent(clock.now());
    }
    const at = clock.now();
    adaptive.throttled(at - 20);
    limiter.pauseUntil(at + 1000);
    const after: number[] = [];
    await Promise.all(Array.from({ length: 15 }, () => limiter.acquire().then(() => after.push(clock.now()))));
    expect(Math.min(...after)).toBeGreaterThanOrEqual(at + 1000);
    expect(limiter.rate).toBeCloseTo(7);
    expect(maxInWindow(after)).toBeLessThanOrEqual(7);
    expect(maxInWindow([...before, ...after])).toBeLessThanOrEqual(10);
    const mean = (after.length - 1) / (((after.at(-1) ?? 0) - (after[0] ?? 0)) / 1000);
    expect(mean).toBeGreaterThan(7 * 0.95);
    expect(mean).toBeLessThanOrEqual(7.01);
  });
});

describe('api client: adaptive rate on 429 without Retry-After', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lowers its own rate on a 429 and never sets it above --rate', async () => {
    server = await startScriptedServer(
      sequence(
        { status: 200, body: complianceAnswer() },
        { status: 429, body: nestError(429, 'Too Many Requests') },
        { status: 200, body: complianceAnswer() },
      ),
    );
    const client = testClient(server.url, { rate: 40, concurrency: 1 });
    expect(client.limiter.rate).toBe(40);
    await comply(client, 1);
    expect((await comply(client, 2)).ok).toBe(true);
    expect(client.limiter.rate).toBeLessThan(40);
    expect(client.limiter.rate).toBeGreaterThanOrEqual(1);
  });

  it('adaptiveRate: false keeps the rate fixed', async () => {
    server = await startScriptedServer(
      sequence({ status: 429, body: nestError(429, 'Too Many Requests') }, { status: 200, body: complianceAnswer() }),
    );
    const client = testClient(server.url, { rate: 40, adaptiveRate: false });
    expect((await comply(client, 1)).ok).toBe(true);
    expect(client.limiter.rate).toBe(40);
  });

  it('with no cap, a 429 engages one', async () => {
    server = await startScriptedServer(
      sequence({ status: 429, body: nestError(429, 'Too Many Requests') }, { status: 200, body: complianceAnswer() }),
    );
    const client = testClient(server.url, { rate: 0 });
    expect((await comply(client, 1)).ok).toBe(true);
    expect(client.limiter.rate).toBeGreaterThan(0);
  });
});
