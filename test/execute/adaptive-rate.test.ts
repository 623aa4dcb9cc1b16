import { afterEach, describe, expect, it } from 'vitest';
import { AdaptiveRate, type RateChange } from '../../src/execute/AdaptiveRate.js';
import { RateLimiter } from '../../src/execute/RateLimiter.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { API_KEY, comply, testClient } from '../helpers/executeFixtures.js';
import { FakeClock, maxInWindow } from '../helpers/fakeClock.js';
import {
  complianceAnswer,
  nestError,
  sequence,
  startScriptedServer,
  type ScriptedServer,
} from '../helpers/scriptedServer.js';

/** Records `perSecond` sends spread over the next `ms` of fake time, as a run at that rate would. */
function sendFor(adaptive: AdaptiveRate, clock: FakeClock, perSecond: number, ms: number): void {
  const n = Math.round((perSecond * ms) / 1000);
  for (let i = 0; i < n; i += 1) {
    adaptive.sent(clock.now());
    clock.advance(ms / n);
  }
}

/**
 * `perSecond` requests over the next `ms` of fake time, each answered at once: a 429 when `throttle(i)` says so,
 * else a 200. Returns the changes of rate they caused.
 */
function traffic(
  adaptive: AdaptiveRate,
  clock: FakeClock,
  perSecond: number,
  ms: number,
  throttle: (i: number) => boolean = () => false,
): RateChange[] {
  const n = Math.round((perSecond * ms) / 1000);
  const changes: RateChange[] = [];
  for (let i = 0; i < n; i += 1) {
    const at = clock.now();
    adaptive.sent(at);
    const change = adaptive.answered(at, throttle(i) ? 429 : 200);
    if (change !== undefined) changes.push(change);
    clock.advance(ms / n);
  }
  return changes;
}

/**
 * `n` requests sent together (the first calls of a run), answered 20 ms later in order: the first `accepted` taken,
 * the rest 429s, as a server limited to `accepted` a second answers them. Returns the changes of rate they caused.
 */
function burst(adaptive: AdaptiveRate, clock: FakeClock, n: number, accepted: number): RateChange[] {
  const sentAt = clock.now();
  for (let i = 0; i < n; i += 1) adaptive.sent(sentAt);
  clock.advance(20);
  const changes: RateChange[] = [];
  for (let i = 0; i < n; i += 1) {
    const change = adaptive.answered(sentAt, i < accepted ? 200 : 429);
    if (change !== undefined) changes.push(change);
    clock.advance(1);
  }
  return changes;
}

/** Every tenth answer a 429, whatever the rate: what a service's own trouble looks like. */
const everyTenth = (i: number) => i % 10 === 9;

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
    expect(adaptive.answered(clock.now() - 50, 429)).toEqual({ rate: 14, because: 'throttled' });
    expect(limiter.rate).toBeCloseTo(14);
  });

  it('starts from the rate really sent when the run is slower than its cap', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 8, 2000);
    adaptive.answered(clock.now() - 50, 429);
    expect(limiter.rate).toBeCloseTo(8 * 0.7, 1);
  });

  it('a pause does not hide the rate: the decrease starts from the busiest of the last seconds', () => {
    const { clock, limiter, adaptive } = setup(10);
    sendFor(adaptive, clock, 10, 2000);
    limiter.pauseUntil(clock.now() + 800); // an earlier 429's pause
    clock.advance(900);
    adaptive.sent(clock.now()); // one request since the pause
    adaptive.answered(clock.now(), 429);
    expect(limiter.rate).toBeCloseTo(7);
  });

  it('lands below what the server accepted in its busiest second: one decrease, however far above the limit', () => {
    const { clock, limiter, adaptive } = setup(50);
    // 50 a second against a server that takes 10 in any second: after the 10th, every answer is a 429.
    const changes = traffic(adaptive, clock, 50, 1000, (i) => i >= 10);
    expect(changes).toEqual([{ rate: 9, because: 'throttled' }]);
    expect(limiter.rate).toBe(9);
    expect(adaptive.stats).toMatchObject({ decreases: 1, mode: 'trial' });
  });

  it("the rest of the burst's answers take the decrease lower: a tier of 2 a second found at the first burst", () => {
    const { clock, limiter, adaptive } = setup(50);
    // The first 16 calls go out together; the third answer is the first 429, while 13 are still out.
    const changes = burst(adaptive, clock, 16, 2);
    expect(changes[0]).toMatchObject({ because: 'throttled' });
    expect(changes.at(-1)).toEqual({ rate: 1.8, because: 'refined' });
    expect(limiter.rate).toBeCloseTo(1.8);
    expect(adaptive.stats).toMatchObject({ decreases: 1, mode: 'trial' });
  });

  it('one decrease per burst: 429s for requests sent before it, in the second after it, or on trial change nothing', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 20, 2000);
    const sentBefore = clock.now() - 100;
    adaptive.answered(sentBefore, 429);
    expect(adaptive.answered(sentBefore, 429)).toBeUndefined();
    expect(adaptive.answered(sentBefore + 50, 429)).toBeUndefined();
    // Sent after the decrease, while the server's window still holds the old rate.
    clock.advance(300);
    expect(adaptive.answered(clock.now() - 10, 429)).toBeUndefined();
    // Sent after that second, while the trial is still counting.
    clock.advance(1000);
    expect(traffic(adaptive, clock, 14, 1000, (i) => i === 3)).toEqual([]);
    expect(limiter.rate).toBeCloseTo(14);
    expect(adaptive.stats).toMatchObject({ decreases: 1, mode: 'trial' });
  });

  it('never goes below the floor, nor lifts a cap that is below the floor', () => {
    const { clock, limiter, adaptive } = setup(20, { floor: 2 });
    for (let i = 0; i < 20; i += 1) {
      // Each decrease is judged (a clean trial), and the next 429 lowers it again.
      clock.advance(1100);
      traffic(adaptive, clock, 20, 2000);
      adaptive.answered(clock.now(), 429);
    }
    expect(limiter.rate).toBe(2);

    const low = setup(0.5);
    low.adaptive.answered(low.clock.now(), 429);
    expect(low.limiter.rate).toBe(0.5);
  });

  it('with no cap (rate 0) a 429 engages one, from the rate observed', () => {
    const { clock, limiter, adaptive } = setup(0);
    // 50 in the half second since sending began, every one taken: 100/s
    expect(traffic(adaptive, clock, 100, 500)).toEqual([]); // nothing engaged yet: answers change nothing
    expect(limiter.rate).toBe(0);
    adaptive.answered(clock.now() - 5, 429);
    // 0.7 x 100, but the server took only 50 in its busiest second so far: 0.9 x 50.
    expect(limiter.rate).toBeCloseTo(45, 0);
  });
});

describe('AdaptiveRate: does the 429 share follow the rate?', () => {
  it('it fell with the rate: the decrease stays, and the next burst lowers it again', () => {
    const { clock, limiter, adaptive } = setup(50);
    traffic(adaptive, clock, 50, 1000, (i) => i >= 10);
    expect(limiter.rate).toBe(9);
    clock.advance(1000);
    // Below its limit the server takes everything: a trial without a 429.
    traffic(adaptive, clock, 9, 4444);
    expect(adaptive.stats).toMatchObject({ mode: 'steady', decreases: 1, undone: 0 });
    expect(limiter.rate).toBe(9);
    clock.advance(200);
    expect(adaptive.answered(clock.now(), 429)?.because).toBe('throttled');
    expect(adaptive.stats.decreases).toBe(2);
  });

  it('it did not: the decrease is undone, and later 429s at the same share lower nothing', () => {
    const { clock, limiter, adaptive } = setup(20);
    // One answer in ten is a 429, at 20 a second and at every rate below.
    const first = traffic(adaptive, clock, 20, 2000, (i) => i >= 20 && everyTenth(i));
    expect(first).toEqual([{ rate: 14, because: 'throttled' }]);
    // A second for the server to forget the old rate, then a trial of 40 answers at 14 a second: still one in ten.
    const trial = traffic(adaptive, clock, 14, 5000, everyTenth);
    expect(trial).toEqual([{ rate: 20, because: 'not-the-rate' }]);
    expect(limiter.rate).toBe(20);
    expect(adaptive.stats).toMatchObject({ mode: 'noise', decreases: 1, undone: 1, lowest: 14 });
    // A minute more of the same: no decrease, the rate stays at the cap.
    expect(traffic(adaptive, clock, 20, 60_000, everyTenth)).toEqual([]);
    expect(limiter.rate).toBe(20);
    expect(adaptive.stats.decreases).toBe(1);
  });

  it('with no cap, undoing the decrease lifts the cap it engaged', () => {
    const { clock, limiter, adaptive } = setup(0);
    traffic(adaptive, clock, 50, 1000, everyTenth);
    expect(limiter.rate).toBeGreaterThan(0);
    traffic(adaptive, clock, 30, 5000, everyTenth);
    expect(limiter.rate).toBe(0);
    expect(adaptive.stats.mode).toBe('noise');
  });

  it('a 429 share far above the noise is a limit again: decreases resume', () => {
    const { clock, limiter, adaptive } = setup(20);
    traffic(adaptive, clock, 20, 1000, everyTenth);
    traffic(adaptive, clock, 14, 5000, everyTenth);
    expect(adaptive.stats.mode).toBe('noise');
    // Half the answers 429: not the noise of one in ten.
    const changes = traffic(adaptive, clock, 20, 3000, (i) => i % 2 === 1);
    expect(changes[0]?.because).toBe('throttled');
    expect(limiter.rate).toBeLessThan(20);
    expect(adaptive.stats.mode).toBe('trial');
  });

  it('noise is forgotten after 30 s without a 429', () => {
    const { clock, adaptive } = setup(20);
    traffic(adaptive, clock, 20, 1000, everyTenth);
    traffic(adaptive, clock, 14, 5000, everyTenth);
    expect(adaptive.stats.mode).toBe('noise');
    traffic(adaptive, clock, 20, 31_000);
    expect(adaptive.answered(clock.now(), 429)?.because).toBe('throttled');
  });
});

describe('AdaptiveRate: additive increase', () => {
  it('recovers fast to just below the rate that got the 429, then probes one step per quiet period, never above the cap', () => {
    const { clock, limiter, adaptive } = setup(12, { increaseEveryMs: 2000 });
    sendFor(adaptive, clock, 20, 2000);
    limiter.setRate(11);
    adaptive.answered(clock.now(), 429); // ceiling min(11, 20 sent) = 11 -> 7.7
    expect(limiter.rate).toBeCloseTo(7.7);
    // The trial: a second to settle, then 40 answers without a 429.
    clock.advance(1000);
    traffic(adaptive, clock, 10, 4000);
    expect(adaptive.stats.mode).toBe('steady');
    const rates: Array<[number, number]> = [];
    for (let t = 0; t < 12_000; t += 100) {
      clock.advance(100);
      const next = adaptive.answered(clock.now(), 200);
      if (next !== undefined) rates.push([t + 100, Math.round(next.rate * 100) / 100]);
    }
    // Recovery: +max(1, 1.1) every 500 ms up to 11 - 1 = 10; then +1 after 2 s: 11, the rate that got the 429;
    // then the cap 12, and no further.
    expect(rates).toEqual([
      [100, 8.8],
      [600, 9.9],
      [1100, 10],
      [3100, 11],
      [5100, 12],
    ]);
    expect(limiter.rate).toBe(12);
  });

  it('no increase while a decrease is on trial, nor without a quiet period since the last change', () => {
    const { clock, limiter, adaptive } = setup(20);
    sendFor(adaptive, clock, 20, 2000);
    adaptive.answered(clock.now(), 429);
    clock.advance(1000);
    expect(traffic(adaptive, clock, 14, 2700)).toEqual([]); // 38 answers: the trial is not over
    expect(limiter.rate).toBeCloseTo(14);
    // The 40th answer ends it: the decrease stays, and the climb back begins, one step per quarter quiet period.
    expect(traffic(adaptive, clock, 20, 100)).toEqual([]);
    expect(adaptive.answered(clock.now(), 200)).toEqual({ rate: 16, because: 'quiet' });
    clock.advance(300);
    expect(adaptive.answered(clock.now(), 200)).toBeUndefined();
    expect(limiter.rate).toBe(16);
  });

  it('once the 429s stop, the rate is back at the cap within seconds, however low it was', () => {
    const { clock, limiter, adaptive } = setup(50);
    // A limit of 5 a second found at the first burst, then lifted.
    burst(adaptive, clock, 16, 5);
    expect(limiter.rate).toBeCloseTo(4.5);
    const start = clock.now();
    while (limiter.rate < 50 && clock.now() - start < 120_000) traffic(adaptive, clock, limiter.rate, 1000);
    expect(limiter.rate).toBe(50);
    expect(clock.now() - start).toBeLessThan(20_000);
  });

  it('with no cap, the engaged cap goes once the rate is twice the rate that got the 429', () => {
    const { clock, limiter, adaptive } = setup(0);
    traffic(adaptive, clock, 20, 1000, (i) => i === 15);
    expect(limiter.rate).toBeGreaterThan(0);
    const start = clock.now();
    while (limiter.rate > 0 && clock.now() - start < 60_000) traffic(adaptive, clock, limiter.rate, 1000);
    expect(limiter.rate).toBe(0);
    expect(clock.now() - start).toBeLessThan(20_000);
  });

  it('repeated 429s at the same rate double the wait before the next probe, up to the maximum', () => {
    const { clock, limiter, adaptive } = setup(50, { increaseEveryMs: 1000, maxIncreaseEveryMs: 4000 });
    sendFor(adaptive, clock, 10, 2000);
    limiter.setRate(10);
    const probeWaits: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      adaptive.answered(clock.now(), 429); // the server's limit is 10: every probe to 11 fails
      clock.advance(1000);
      traffic(adaptive, clock, 10, 4000); // the trial: no 429 below the limit
      // Run on: climb back to 10 (recovery), then wait for the probe above it.
      let reachedTenAt: number | undefined;
      while (limiter.rate < 11) {
        clock.advance(50);
        adaptive.answered(clock.now(), 200);
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
    expect(() => new AdaptiveRate(limiter, 5, clock, { trialAnswers: 0 })).toThrow(RangeError);
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
    adaptive.answered(at - 20, 429);
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

describe('api client against the sandbox: 429s that do not follow the rate', () => {
  let sandbox: SandboxHandle | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('lowers the rate at most a few times, finds the 429 share does not fall with it, and goes back to no cap', async () => {
    // One answer in ten a 429 whatever the rate; no Retry-After, so each pauses the calls for a short backoff only.
    sandbox = await startSandbox({ port: 0, apiKey: API_KEY, fault429: 0.1, retryAfter: false, seed: 3 });
    // Quiet periods of half a second rather than two: the same rules, a shorter test.
    const client = testClient(sandbox.url, {
      rate: 0,
      concurrency: 8,
      retries: 20,
      adaptiveRate: { increaseEveryMs: 500 },
    });
    const adaptive = () => client.rateAdaptation()!;
    let calls = 0;
    // Reads of unknown payers (a 404 each, read as "not found"), 16 at a time, until the rate is uncapped again.
    const worker = async () => {
      while (calls < 20_000 && !(adaptive().mode === 'noise' && adaptive().rate === 0)) {
        calls += 1;
        const read = await client.readPayer(`nobody-${calls}`);
        expect(read.ok).toBe(true);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(sandbox.stats().byStatus['429']).toBeGreaterThanOrEqual(3);
    expect(adaptive()).toMatchObject({ mode: 'noise', rate: 0 });
    expect(adaptive().undone).toBeGreaterThanOrEqual(1);
    expect(adaptive().decreases).toBeLessThanOrEqual(3);
    // Not the floor (1 a second). The first 429 of a run may come after a handful of answers, and a limit that low
    // is what it looks like until the trial shows otherwise.
    expect(adaptive().lowest).toBeGreaterThan(1);
  });
});
